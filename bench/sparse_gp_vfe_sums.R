# Can VFE's sums over rows skip the solve by L per row? sparse_sums()
# (inst/include/sparsebayes/sparse_gp.hpp) forms A = L^-1 K_uf block by
# block (a TRSM, m^2 n flops) and then E = A Lam^-1 A' (a SYRK, m^2 n).
# For VFE, Lam = s2n / w does not depend on A, so E = L^-1 S L^-T with
# S = K_uf Lam^-1 K_fu: one SYRK of the raw kernel and two m x m solves,
# half the flops of the posterior. This script measures what that costs in
# accuracy on the data of bench/sparse_gp_scale.R at the cell's learned
# hyperparameters (VFE, m = 500, learned widths and inducing points), on
# the first N rows, against a long-double reference of the TRSM route:
#
#   trsm           the current route, in double
#   syrk           S by rank updates of the raw kernel, then L^-1 S L^-T
#   S exact        S summed in long double and rounded to double once,
#                  then the same two solves (the best any summation of S
#                  in double can do)
#   trsm, K_uu+eps the current route with K_uu perturbed by a relative
#                  2.2e-16 before its factorisation (the problem's own
#                  sensitivity to rounding in K_uu)
#
# Columns: tr(B^-1 E) (the fit's edf), log det B, c'c and tr(E) minus the
# reference. Run from the package root after installing (about 3 minutes:
# the learning, then the long-double reference; the compiler's notes on
# Eigen's headers go to stderr):
#   Rscript bench/sparse_gp_vfe_sums.R [N]          # default N = 50000
suppressPackageStartupMessages(library(sparsebayes))
N <- as.integer(if (length(commandArgs(TRUE))) commandArgs(TRUE)[1] else 50000)
ns <- asNamespace("sparsebayes")
n <- 1e6
set.seed(1)
x <- matrix(runif(2 * n, -3, 3), n, 2, dimnames = list(NULL, c("x1", "x2")))
y <- sin(2 * x[, 1]) * cos(x[, 2]) + rnorm(n, sd = 0.2)
p <- ns$gp_problem(list(
  x = x, y = y, kernel = kernel_gaussian(), inducing = 500L, default_inducing = FALSE, approx = ns$gp_approxes$VFE,
  noise_variance = NULL, optimize = ns$gp_optimizes$all, restarts = 0, seed = 1, scale = TRUE, weights = NULL,
  offset = NULL, control = sparse_gp_control()))
set.seed(1)
learning <- ns$gp_learning(p)
par <- ns$gp_optimise(learning, ns$gp_optimizes$all, 0)$par
k <- unclass(par$kernel)
chol <- ns$.sb_gp_inducing_factor(k, par$Z, 1e-6)$chol
ev <- eigen(ns$.sb_kernel_design(k, par$Z, par$Z, FALSE, 1L), symmetric = TRUE, only.values = TRUE)$values / k$variance
cat(sprintf("K_uu / s2 at the learned point: %d of %d eigenvalues above 1e-5, %d below the jitter (1e-6)\n",
            sum(ev > 1e-5), length(ev), sum(ev < 1e-6)))

code <- '
// [[Rcpp::depends(RcppEigen)]]
#include <RcppEigen.h>
using namespace Eigen;
typedef Matrix<long double, Dynamic, Dynamic> MatLD;
typedef Matrix<long double, Dynamic, 1> VecLD;
template <class M, class V>
void summarise(const M& E, const V& alr, Rcpp::NumericMatrix& out, int row) {
  M B = E;
  B.diagonal().array() += 1;
  LLT<M> llt(B);
  const M LB = llt.matrixL();
  const V c = LB.template triangularView<Lower>().solve(alr);
  out(row, 0) = double(llt.solve(E).trace());
  out(row, 1) = double(2 * LB.diagonal().array().log().sum());
  out(row, 2) = double(c.squaredNorm());
  out(row, 3) = double(E.trace());
}
// K: m x N kernel block, L = chol(K_uu + jitter), noise, r: the rows\' response
// [[Rcpp::export]]
Rcpp::NumericMatrix vfe_sums(Eigen::Map<Eigen::MatrixXd> K, Eigen::Map<Eigen::MatrixXd> L, double noise,
                             Eigen::Map<Eigen::VectorXd> r) {
  const Index m = K.rows(), N = K.cols(), block = 2048;
  const double isd = 1 / std::sqrt(noise);
  Rcpp::NumericMatrix out(5, 4);
  {  // reference: the TRSM route in long double
    MatLD A = K.cast<long double>();
    const MatLD Ll = L.cast<long double>();
    Ll.triangularView<Lower>().solveInPlace(A);
    const MatLD E = A * A.transpose() / (long double)noise;
    const VecLD alr = A * r.cast<long double>() / (long double)noise;
    summarise(E, alr, out, 0);
  }
  auto trsm = [&](const MatrixXd& Lf, int row) {  // sparse_sums(): blocks of 2048 rows
    MatrixXd E = MatrixXd::Zero(m, m);
    VectorXd alr = VectorXd::Zero(m);
    for (Index s = 0; s < N; s += block) {
      const Index nb = std::min(block, N - s);
      MatrixXd A = K.middleCols(s, nb);
      Lf.triangularView<Lower>().solveInPlace(A);
      A *= isd;
      E.selfadjointView<Lower>().rankUpdate(A);
      alr += A * (r.segment(s, nb) * isd);
    }
    E.triangularView<StrictlyUpper>() = E.transpose();
    summarise(E, alr, out, row);
  };
  auto both_sides = [&](const MatrixXd& S, VectorXd alr, int row) {  // L^-1 S L^-T, L^-1 K Lam^-1 r
    MatrixXd X = S.selfadjointView<Lower>();
    L.triangularView<Lower>().solveInPlace(X);
    X.transposeInPlace();
    L.triangularView<Lower>().solveInPlace(X);
    const MatrixXd E = 0.5 * (X + X.transpose());
    L.triangularView<Lower>().solveInPlace(alr);
    summarise(E, alr, out, row);
  };
  trsm(L, 1);
  {
    MatrixXd S = MatrixXd::Zero(m, m);
    VectorXd alr = VectorXd::Zero(m);
    for (Index s = 0; s < N; s += block) {
      const Index nb = std::min(block, N - s);
      const MatrixXd Ks = K.middleCols(s, nb) * isd;
      S.selfadjointView<Lower>().rankUpdate(Ks);
      alr += Ks * (r.segment(s, nb) * isd);
    }
    both_sides(S, alr, 2);
  }
  {
    const MatLD Kl = K.cast<long double>() * (long double)isd;
    const MatLD S = Kl * Kl.transpose();
    const VecLD alr = Kl * (r.cast<long double>() * (long double)isd);
    both_sides(S.cast<double>(), alr.cast<double>(), 3);
  }
  {
    const MatrixXd Kuu = L * L.transpose();
    MatrixXd R = MatrixXd::Random(m, m);  // fixed seed of Eigen\'s generator (std::rand)
    R = (0.5 * (R + R.transpose())).eval();
    const MatrixXd Kp = Kuu + (R.array() * Kuu.array().abs() * 2.2e-16).matrix();
    trsm(Kp.llt().matrixL(), 4);
  }
  return out;
}
'
file <- tempfile(fileext = ".cpp")
writeLines(code, file)
suppressMessages(Rcpp::sourceCpp(file))
rows <- seq_len(N)
K <- ns$.sb_kernel_design(k, par$Z, p$xs[rows, , drop = FALSE], FALSE, 1L)
res <- vfe_sums(K, chol, par$noise, p$std$r[rows])
dimnames(res) <- list(c("reference (long double)", "trsm", "syrk", "S exact, then rounded", "trsm, K_uu+eps"),
                      c("tr(B^-1 E)", "log det B", "c'c", "tr(E)"))
cat(sprintf("\nN = %d rows, m = %d, noise %.4g, kernel variance %.4g\n", N, nrow(par$Z), par$noise, k$variance))
print(res[1, , drop = FALSE], digits = 12)
cat("\nminus the reference:\n")
print(sweep(res[-1, ], 2, res[1, ]), digits = 3)
