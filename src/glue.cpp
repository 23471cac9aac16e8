// Thin Rcpp glue: R objects <-> Eigen. The core's exceptions become R errors
// in the Rcpp wrappers (RcppExports.cpp), so no entry needs a catch of its own.
// All modelling logic lives in inst/include/sparsebayes/.
#include <RcppEigen.h>

#include <chrono>
#include <memory>

#include <sparsebayes/centres.hpp>
#include <sparsebayes/fit.hpp>
#include <sparsebayes/kernels.hpp>
#include <sparsebayes/laplace_passes.hpp>
#include <sparsebayes/multinomial.hpp>
#include <sparsebayes/scan.hpp>

#include "r_kernel.h"

#include "r_interrupt.h"

// [[Rcpp::depends(RcppEigen)]]

namespace {

template <typename T>
T setting(const Rcpp::List& list, const char* name) {
  if (!list.containsElementNamed(name)) Rcpp::stop("internal: the solver settings lack '%s'", name);
  return Rcpp::as<T>(list[name]);
}

// The problem (made by R's fit_basis()) and the control (an sb_control) as
// the core's options: every field read by its own name, which R uses too.
#define SB_READ(list, part, field) o.part.field = setting<decltype(o.part.field)>(list, #field)
sparsebayes::SolverOptions as_options(const Rcpp::List& p, const Rcpp::List& c) {
  sparsebayes::SolverOptions o;
  SB_READ(p, problem, method); SB_READ(p, problem, per_sample); SB_READ(p, problem, student);
  SB_READ(p, problem, gradient_form); SB_READ(p, problem, smoothness); SB_READ(p, problem, noise_variance);
  SB_READ(p, problem, n_effective); SB_READ(p, problem, target_variance); SB_READ(p, problem, case_weights);
  SB_READ(p, problem, offset);
  if (p.containsElementNamed("start_alpha")) SB_READ(p, problem, start_alpha);  // optional: a warm start
  if (p.containsElementNamed("join_at")) {  // optional: a checkpoint to keep, and another fit's to join
    SB_READ(p, problem, join_at); SB_READ(p, problem, join_alpha); SB_READ(p, problem, join_noise);
    SB_READ(p, problem, join_tolerance);
  }
  SB_READ(c, loop, max_iterations); SB_READ(c, loop, time_limit); SB_READ(c, loop, tolerance);
  SB_READ(c, noise, init_lambda); SB_READ(c, noise, lambda_min); SB_READ(c, noise, lambda_max);
  SB_READ(c, noise, damping_lambda); SB_READ(c, noise, student_df); SB_READ(c, noise, outlier_class);
  SB_READ(c, noise, warm_start);
  SB_READ(c, fast, min_delta_log_alpha); SB_READ(c, fast, min_delta_log_beta); SB_READ(c, fast, min_noise_move);
  SB_READ(c, fast, priority_addition);
  SB_READ(c, fast, priority_deletion); SB_READ(c, fast, noise_update_start); SB_READ(c, fast, noise_update_frequency);
  SB_READ(c, fast, beta_max_factor); SB_READ(c, fast, alignment_test); SB_READ(c, fast, alignment_max);
  SB_READ(c, fast, zero_factor); SB_READ(c, fast, noise_shape); SB_READ(c, fast, noise_scale);
  SB_READ(c, batch, schedule); SB_READ(c, batch, patience); SB_READ(c, batch, alpha_min); SB_READ(c, batch, alpha_max);
  SB_READ(c, batch, damping_alpha); SB_READ(c, batch, noise_every); SB_READ(c, batch, init_alpha);
  SB_READ(c, batch, fixed_alpha); SB_READ(c, batch, studentized); SB_READ(c, batch, studentized_power);
  SB_READ(c, batch, learning_rate); SB_READ(c, batch, admm_iterations); SB_READ(c, batch, admm_tolerance);
  SB_READ(c, batch, path_max); SB_READ(c, batch, start); SB_READ(c, batch, start_subsets);
  return o;
}
#undef SB_READ

// R's list of statistics (.sb_statistics()'s) as the core's.
sparsebayes::GaussianStatistics as_statistics(const Rcpp::List& statistics) {
  sparsebayes::GaussianStatistics s;
  s.gram = Rcpp::as<Eigen::MatrixXd>(statistics["gram"]);
  s.cross = Rcpp::as<Eigen::VectorXd>(statistics["cross"]);
  s.tt = Rcpp::as<double>(statistics["tt"]);
  s.sum_t = Rcpp::as<double>(statistics["sum_t"]);
  s.n = static_cast<Eigen::Index>(Rcpp::as<double>(statistics["n"]));
  return s;
}

// The core's statistics as R's list (.sb_statistics()'s).
Rcpp::List statistics_list(const sparsebayes::GaussianStatistics& s) {
  return Rcpp::List::create(Rcpp::Named("gram") = s.gram, Rcpp::Named("cross") = s.cross, Rcpp::Named("tt") = s.tt,
                            Rcpp::Named("sum_t") = s.sum_t, Rcpp::Named("n") = static_cast<double>(s.n));
}

Rcpp::IntegerVector one_based(const std::vector<Eigen::Index>& columns) {
  Rcpp::IntegerVector out(columns.size());
  for (std::size_t k = 0; k < columns.size(); ++k) out[k] = static_cast<int>(columns[k]) + 1;
  return out;
}

Rcpp::List trace_list(const std::vector<sparsebayes::TraceRow>& trace) {
  const std::size_t T = trace.size();
  Rcpp::NumericVector tr_lp(T), tr_noise(T);
  Rcpp::IntegerVector tr_it(T), tr_n(T), tr_action(T);
  for (std::size_t i = 0; i < T; ++i) {
    tr_it[i] = trace[i].iteration;
    tr_lp[i] = trace[i].log_posterior;
    tr_n[i] = trace[i].n_relevant;
    tr_noise[i] = trace[i].noise_variance;
    tr_action[i] = trace[i].action;
  }
  return Rcpp::List::create(Rcpp::Named("iteration") = tr_it, Rcpp::Named("log_posterior") = tr_lp,
                            Rcpp::Named("relevant") = tr_n, Rcpp::Named("noise") = tr_noise,
                            Rcpp::Named("action") = tr_action);
}

Rcpp::List as_list(const sparsebayes::FitResult& r) {
  const Rcpp::IntegerVector relevant = one_based(r.relevant);
  Rcpp::IntegerVector path_it(r.path_iteration.begin(), r.path_iteration.end());
  Rcpp::List out = Rcpp::List::create(
      Rcpp::Named("relevant") = relevant, Rcpp::Named("mu") = r.mu, Rcpp::Named("Sigma") = r.Sigma,
      Rcpp::Named("alpha") = r.alpha, Rcpp::Named("lambda") = r.lambda, Rcpp::Named("log_evidence") = r.log_evidence,
      Rcpp::Named("log_posterior") = r.log_posterior, Rcpp::Named("student_df") = r.student_df,
      Rcpp::Named("student_scale") = r.student_scale, Rcpp::Named("student_outlier_share") = r.student_outlier_share,
      Rcpp::Named("outlier_probability") = r.outlier_probability, Rcpp::Named("fitted") = r.fitted,
      Rcpp::Named("iterations") = r.iterations, Rcpp::Named("converged") = r.converged,
      Rcpp::Named("jitter_events") = r.jitter_events, Rcpp::Named("mode_converged") = r.mode_converged,
      Rcpp::Named("start_log_evidence") = r.start_log_evidence, Rcpp::Named("start_chosen") = r.start_chosen,
      Rcpp::Named("trace") = trace_list(r.trace),
      Rcpp::Named("path") = Rcpp::List::create(Rcpp::Named("iteration") = path_it,
                                               Rcpp::Named("alpha") = r.path_alpha,
                                               Rcpp::Named("lambda") = r.path_lambda));
  if (r.other) out["other"] = as_list(*r.other);
  if (r.checkpoint_alpha.size())
    out["checkpoint"] = Rcpp::List::create(Rcpp::Named("alpha") = r.checkpoint_alpha,
                                           Rcpp::Named("noise") = r.checkpoint_noise, Rcpp::Named("joined") = r.joined);
  return out;
}

// The core's iterations to R's `report` function of the settings (R's
// fit_reporter(): it prints every `verbose`-th row on the data's scale, and
// signals progress through progressr): each printed row, and a progress row
// at most every half second, so that a long fit is never silent and a short
// one costs nothing. Without one, no reports.
sparsebayes::Progress make_progress(const Rcpp::List& control) {
  const int verbose = setting<int>(control, "verbose");
  if (!control.containsElementNamed("report") || !Rf_isFunction(control["report"])) return nullptr;
  auto report = std::make_shared<Rcpp::Function>(control["report"]);
  auto last = std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
  return [verbose, report, last](const sparsebayes::TraceRow& row) {
    const bool print = verbose > 0 && (row.iteration <= 1 || row.iteration % verbose == 0);
    const auto now = std::chrono::steady_clock::now();
    const bool due = now - *last > std::chrono::milliseconds(500);
    if (!print && !due) return;
    if (due) *last = now;
    (*report)(row.iteration, row.log_posterior, row.n_relevant, row.noise_variance, print);
  };
}

}  // namespace

// Kernel basis between the rows of x and z, with a leading column of ones
// when bias is TRUE; written straight into R's memory.
// [[Rcpp::export(.sb_kernel_design)]]
Rcpp::NumericMatrix sb_kernel_design(Rcpp::List kernel, Eigen::Map<Eigen::MatrixXd> x, Eigen::Map<Eigen::MatrixXd> z,
                                     bool bias, int threads) {
  RInterruptScope interrupts;
  const sparsebayes::Kernel k = as_kernel(kernel);
  // Not zero-filled: the core writes every entry, block by block with interrupt checks.
  Rcpp::NumericMatrix out = Rcpp::no_init_matrix(x.rows(), z.rows() + (bias ? 1 : 0));
  Eigen::Map<Eigen::MatrixXd> K(out.begin(), out.nrow(), out.ncol());
  if (bias) K.col(0).setOnes();
  sparsebayes::fill_kernel_matrix(k, x, z, K, bias ? 1 : 0, threads);
  return out;
}

// k-means++ centres (refined by Lloyd steps) for the rows of x.
// [[Rcpp::export(.sb_kmeans_centres)]]
Eigen::MatrixXd sb_kmeans_centres(Eigen::Map<Eigen::MatrixXd> x, int m, double seed, int iterations, int sample_size,
                                  int threads) {
  RInterruptScope interrupts;
  return sparsebayes::kmeans_centres(x, m, static_cast<std::uint64_t>(seed), iterations, sample_size, threads);
}

// The kept products of one basis (fast_state.hpp's ColumnProducts), which
// several fits of that basis share: an external pointer (NULL after
// serialisation, as on a future's worker: then each fit keeps its own).
using ProductsHandle = std::shared_ptr<sparsebayes::ColumnProducts>;

// [[Rcpp::export(.sb_column_products)]]
SEXP sb_column_products() { return Rcpp::XPtr<ProductsHandle>(new ProductsHandle(std::make_shared<sparsebayes::ColumnProducts>())); }

// Every fit of rvm() and ard(): the basis, the targets (gaussian: in
// standard units), the problem and the control settings; `products`: NULL or
// .sb_column_products()'s for this basis.
// [[Rcpp::export(.sb_fit)]]
Rcpp::List sb_fit(Eigen::Map<Eigen::MatrixXd> Phi, Eigen::Map<Eigen::VectorXd> t, std::string likelihood,
                  Rcpp::List problem, Rcpp::List control, SEXP products = R_NilValue) {
  RInterruptScope interrupts;
  const sparsebayes::SolverOptions opt = as_options(problem, control);
  ProductsHandle kept;
  if (TYPEOF(products) == EXTPTRSXP && R_ExternalPtrAddr(products)) kept = *Rcpp::XPtr<ProductsHandle>(products);
  return as_list(sparsebayes::fit_model(Phi, t, likelihood, opt, make_progress(control), kept));
}

// A multinomial (softmax) fit (multinomial.hpp): the basis, the n x K class
// indicators, the case weights (empty: none), the n x K offset of the latent
// functions (empty: none), shared precisions (or one per class) and the
// settings.
// [[Rcpp::export(.sb_fit_multinomial)]]
Rcpp::List sb_fit_multinomial(Eigen::Map<Eigen::MatrixXd> Phi, Eigen::Map<Eigen::MatrixXd> T,
                              Eigen::Map<Eigen::VectorXd> case_weights, Eigen::Map<Eigen::MatrixXd> offset,
                              bool shared, Rcpp::List problem, Rcpp::List control) {
  RInterruptScope interrupts;
  const sparsebayes::SolverOptions opt = as_options(problem, control);
  const sparsebayes::MultinomialResult r = sparsebayes::fit_multinomial(
      Phi, T, case_weights, offset, shared, opt.loop, opt.fast, make_progress(control));
  return Rcpp::List::create(
      Rcpp::Named("relevant") = one_based(r.relevant), Rcpp::Named("W") = r.W, Rcpp::Named("Sigma") = r.Sigma,
      Rcpp::Named("alpha") = r.alpha, Rcpp::Named("fitted") = r.fitted, Rcpp::Named("log_evidence") = r.log_evidence,
      Rcpp::Named("iterations") = r.iterations, Rcpp::Named("converged") = r.converged,
      Rcpp::Named("mode_converged") = r.mode_converged, Rcpp::Named("jitter_events") = r.jitter_events,
      Rcpp::Named("trace") = trace_list(r.trace));
}

// The AVX2 + FMA and AVX-512 paths of simd.hpp: whether they run (`on` NA:
// unchanged), and whether the CPU has them.
// [[Rcpp::export(.sb_simd)]]
Rcpp::LogicalVector sb_simd(Rcpp::LogicalVector on) {
  if (on.size() == 1 && on[0] != NA_LOGICAL) sparsebayes::simd::set_enabled(on[0]);
  return Rcpp::LogicalVector::create(Rcpp::Named("enabled") = sparsebayes::simd::avx2(),
                                     Rcpp::Named("cpu") = sparsebayes::simd::cpu_has_avx2(),
                                     Rcpp::Named("avx512") = sparsebayes::simd::cpu_has_avx512());
}

// [[Rcpp::export(.sb_row_keys)]]
Eigen::MatrixXd sb_row_keys(Eigen::Map<Eigen::MatrixXd> x) { return sparsebayes::row_keys(x); }

// The statistics layer (statistics.hpp): the sums a gaussian fit with
// shared noise reads from rows of the basis and targets (in standard units);
// the sums of several blocks of rows add; the same sums on any `threads`.
// [[Rcpp::export(.sb_statistics)]]
Rcpp::List sb_statistics(Eigen::Map<Eigen::MatrixXd> Phi, Eigen::Map<Eigen::VectorXd> t, int threads = 1) {
  RInterruptScope interrupts;
  sparsebayes::GaussianStatistics s;
  s.add_rows(Phi, t, threads);
  return statistics_list(s);
}

// A gaussian fit with shared noise from the statistics alone.
// [[Rcpp::export(.sb_fit_statistics)]]
Rcpp::List sb_fit_statistics(Rcpp::List statistics, Rcpp::List problem, Rcpp::List control) {
  RInterruptScope interrupts;
  const sparsebayes::GaussianStatistics s = as_statistics(statistics);
  const sparsebayes::SolverOptions opt = as_options(problem, control);
  return as_list(sparsebayes::fit_statistics(s, opt, make_progress(control)));
}

// A source read by passes over chunks (data.hpp): R functions that read the
// chunks, those a fit needs: weighted(w) gives .sb_statistics()'s list;
// rows(cols, coef, R) a list of resid and q (cols 1-based); pass(relevant,
// mu, pass) .sb_laplace_pass_sums()'s list added over the chunks (relevant
// 1-based). With the rows' sums and targets when the fit reads them. An R
// error or interrupt in them unwinds the core as any other.
class ChunkPasses : public sparsebayes::Data {
 public:
  ChunkPasses(Eigen::Index M, SEXP weighted, SEXP rows, SEXP pass,
              sparsebayes::GaussianStatistics sums = sparsebayes::GaussianStatistics(), Eigen::VectorXd t = Eigen::VectorXd())
      : M_(M), weighted_(weighted), rows_(rows), pass_(pass), sums_(std::move(sums)), t_(std::move(t)), n_(sums_.n) {}
  Eigen::Index rows() const override { return n_; }
  Eigen::Index cols() const override { return M_; }
  bool has_targets() const override { return t_.size() > 0; }
  const Eigen::VectorXd& targets() const override { return t_.size() ? t_ : Data::targets(); }
  const sparsebayes::GaussianStatistics& sums() const override { return sums_.n ? sums_ : Data::sums(); }
  bool reads_passes() const override { return true; }
  sparsebayes::GaussianStatistics weighted(const Eigen::VectorXd& w) override {
    return as_statistics(function(weighted_, "weighted sums")(Rcpp::wrap(w)));
  }
  void residual_rows(const Columns& cols, const Eigen::VectorXd& coef, const Eigen::MatrixXd& R, Eigen::VectorXd& resid,
                     Eigen::VectorXd& q) override {
    const Rcpp::List out = function(rows_, "residual rows")(one_based(cols), Rcpp::wrap(coef), Rcpp::wrap(R));
    resid = Rcpp::as<Eigen::VectorXd>(out["resid"]);
    q = Rcpp::as<Eigen::VectorXd>(out["q"]);
  }
  sparsebayes::PassSums laplace_pass(const sparsebayes::Likelihood&, const Columns& relevant, const Eigen::VectorXd& mu,
                                     int pass) override {
    const Rcpp::List out = function(pass_, "Laplace passes")(one_based(relevant), Rcpp::wrap(mu), pass);
    sparsebayes::PassSums s;
    s.statistics = as_statistics(out["statistics"]);
    s.log_lik = Rcpp::as<double>(out["log_lik"]);
    s.log_sat = Rcpp::as<double>(out["log_sat"]);
    s.null_log_lik = Rcpp::as<double>(out["null_log_lik"]);
    s.kept = Rcpp::as<double>(out["kept"]);
    s.positive = Rcpp::as<double>(out["positive"]);
    s.wrong = Rcpp::as<double>(out["wrong"]);
    n_ = static_cast<Eigen::Index>(s.kept);
    return s;
  }

 private:
  Rcpp::Function function(const Rcpp::RObject& f, const std::string& what) const {
    if (f.isNULL()) missing(what);
    return Rcpp::as<Rcpp::Function>(f);
  }
  Eigen::Index M_;
  Rcpp::RObject weighted_, rows_, pass_;
  sparsebayes::GaussianStatistics sums_;
  Eigen::VectorXd t_;
  Eigen::Index n_;
};

// [[Rcpp::export(.sb_fit_passes)]]
Rcpp::List sb_fit_passes(Rcpp::List statistics, Eigen::Map<Eigen::VectorXd> t, Rcpp::Function weighted,
                         Rcpp::Function rows, Rcpp::List problem, Rcpp::List control) {
  RInterruptScope interrupts;
  sparsebayes::GaussianStatistics s = as_statistics(statistics);
  const Eigen::Index M = s.cols();
  ChunkPasses passes(M, weighted, rows, R_NilValue, std::move(s), t);
  const sparsebayes::SolverOptions opt = as_options(problem, control);
  return as_list(sparsebayes::fit_passes(passes, opt, make_progress(control)));
}

// A block of rows' share of a pass of a binomial or Poisson fit from chunks
// (laplace_passes.hpp): the basis, targets, case weights and offset of the
// rows, the weights mu of the columns `relevant` (1-based).
// [[Rcpp::export(.sb_laplace_pass_sums)]]
Rcpp::List sb_laplace_pass_sums(Eigen::Map<Eigen::MatrixXd> Phi, Eigen::Map<Eigen::VectorXd> t,
                                Eigen::Map<Eigen::VectorXd> w, Eigen::Map<Eigen::VectorXd> offset,
                                Rcpp::IntegerVector relevant, Eigen::Map<Eigen::VectorXd> mu, std::string likelihood,
                                bool first_pass) {
  RInterruptScope interrupts;
  std::vector<Eigen::Index> cols(relevant.size());
  for (R_xlen_t k = 0; k < relevant.size(); ++k) cols[k] = relevant[k] - 1;
  const sparsebayes::PassSums s = sparsebayes::laplace_pass_sums(sparsebayes::Likelihood::from_name(likelihood), Phi,
                                                                 t, w, offset, cols, mu, first_pass);
  return Rcpp::List::create(Rcpp::Named("statistics") = statistics_list(s.statistics),
                            Rcpp::Named("log_lik") = s.log_lik, Rcpp::Named("log_sat") = s.log_sat,
                            Rcpp::Named("null_log_lik") = s.null_log_lik, Rcpp::Named("kept") = s.kept,
                            Rcpp::Named("positive") = s.positive, Rcpp::Named("wrong") = s.wrong);
}

// A binomial or Poisson fit from chunks: the outer loop of
// laplace_passes.hpp over the passes of `pass`, on a basis of M columns.
// [[Rcpp::export(.sb_fit_laplace_passes)]]
Rcpp::List sb_fit_laplace_passes(Rcpp::Function pass, int M, std::string likelihood, int max_passes,
                                 Rcpp::List problem, Rcpp::List control) {
  RInterruptScope interrupts;
  ChunkPasses passes(M, R_NilValue, R_NilValue, pass);
  const sparsebayes::PassesResult r = sparsebayes::LaplacePassesFit(
      passes, likelihood, max_passes, as_options(problem, control), make_progress(control)).run();
  Rcpp::List out = as_list(r.fit);
  out["lambda"] = NA_REAL;
  out["passes"] = r.passes;
  out["passes_converged"] = r.passes_converged;
  out["deviance"] = r.deviance;
  if (!std::isnan(r.error)) out["error"] = r.error;
  return out;
}

// The table of methods and what each supports (methods.hpp), for R's checks.
// [[Rcpp::export(.sb_methods)]]
Rcpp::DataFrame sb_methods() {
  Rcpp::CharacterVector name;
  Rcpp::LogicalVector batch, non_gaussian, smoothness, studentized, statistics, passes;
  for (const sparsebayes::Method& m : sparsebayes::kMethods) {
    name.push_back(m.name);
    batch.push_back(m.rule != sparsebayes::Rule::fast);
    non_gaussian.push_back(m.non_gaussian);
    smoothness.push_back(m.smoothness);
    studentized.push_back(m.studentized);
    statistics.push_back(m.statistics);
    passes.push_back(m.passes);
  }
  return Rcpp::DataFrame::create(Rcpp::Named("name") = name, Rcpp::Named("batch") = batch,
                                 Rcpp::Named("non_gaussian") = non_gaussian, Rcpp::Named("smoothness") = smoothness,
                                 Rcpp::Named("studentized") = studentized, Rcpp::Named("statistics") = statistics,
                                 Rcpp::Named("passes") = passes, Rcpp::Named("stringsAsFactors") = false);
}

// The table of kernels (kernels.hpp), for R's checks.
// [[Rcpp::export(.sb_kernels)]]
Rcpp::DataFrame sb_kernels() {
  Rcpp::CharacterVector name;
  Rcpp::LogicalVector width, slope;
  for (const sparsebayes::KernelInfo& k : sparsebayes::kKernels) {
    name.push_back(k.name);
    width.push_back(k.width);
    slope.push_back(k.slope);
  }
  return Rcpp::DataFrame::create(Rcpp::Named("name") = name, Rcpp::Named("width") = width,
                                 Rcpp::Named("slope") = slope, Rcpp::Named("stringsAsFactors") = false);
}

// The table of likelihoods (likelihood.hpp), from which R builds its rows (R/family.R).
// [[Rcpp::export(.sb_likelihoods)]]
Rcpp::DataFrame sb_likelihoods() {
  Rcpp::CharacterVector name, family, link, targets, title;
  Rcpp::LogicalVector noise, canonical;
  for (const sparsebayes::LikelihoodInfo& l : sparsebayes::kLikelihoods) {
    name.push_back(l.name);
    family.push_back(l.family);
    link.push_back(l.link);
    noise.push_back(l.noise);
    canonical.push_back(l.canonical);
    targets.push_back(l.targets);
    title.push_back(l.title);
  }
  return Rcpp::DataFrame::create(Rcpp::Named("name") = name, Rcpp::Named("family") = family,
                                 Rcpp::Named("link") = link, Rcpp::Named("noise") = noise,
                                 Rcpp::Named("canonical") = canonical, Rcpp::Named("targets") = targets,
                                 Rcpp::Named("title") = title, Rcpp::Named("stringsAsFactors") = false);
}

// The predicted response of a likelihood under Gaussian posteriors N(eta, v) of the linear predictor.
// [[Rcpp::export(.sb_predictive_mean)]]
Rcpp::NumericVector sb_predictive_mean(std::string likelihood, Rcpp::NumericVector eta, Rcpp::NumericVector v) {
  if (eta.size() != v.size()) Rcpp::stop("internal: one variance per linear predictor");
  const sparsebayes::Likelihood lik = sparsebayes::Likelihood::from_name(likelihood);
  Rcpp::NumericVector out(eta.size());
  for (R_xlen_t i = 0; i < eta.size(); ++i) out[i] = lik.predictive_mean(eta[i], v[i]);
  return out;
}

// The Laplace posterior mode for fixed precisions; exported for the tests
// that compare it with glm().
// [[Rcpp::export(.sb_laplace_mode)]]
Rcpp::List sb_laplace_mode(Eigen::Map<Eigen::MatrixXd> Phi, Eigen::Map<Eigen::VectorXd> t, std::string likelihood,
                           Eigen::Map<Eigen::VectorXd> alpha) {
  RInterruptScope interrupts;
  int jitter = 0;
  const sparsebayes::LaplacePosterior lp = sparsebayes::laplace_mode(
      sparsebayes::Likelihood::from_name(likelihood), Phi, t, alpha, Eigen::VectorXd::Zero(Phi.cols()), jitter);
  return Rcpp::List::create(Rcpp::Named("mu") = lp.post.mu, Rcpp::Named("Sigma") = lp.post.Sigma,
                            Rcpp::Named("converged") = lp.converged,
                            Rcpp::Named("log_evidence") = sparsebayes::laplace_log_evidence(lp, alpha));
}

// The smoothness-prior maximiser of l^(alpha) for given s, q, beta and c;
// exported for the tests that check it against a brute-force search.
// [[Rcpp::export(.sb_optimal_alpha)]]
double sb_optimal_alpha(double s, double q, double beta, double c) {
  return sparsebayes::optimal_alpha(s, q, beta, c, 0.0);
}

// Gaussian RVM on an orthonormal wavelet basis by the O(N) path; t in grid
// order. level_smoothness: one constant per level, or empty.
// [[Rcpp::export(.sb_fit_wavelet)]]
Rcpp::List sb_fit_wavelet(Eigen::Map<Eigen::VectorXd> t, std::string family, Rcpp::List problem, Rcpp::List control,
                          Eigen::Map<Eigen::VectorXd> level_smoothness, bool learn, bool invariant) {
  RInterruptScope interrupts;
  const sparsebayes::SolverOptions opt = as_options(problem, control);
  sparsebayes::WaveletPrior prior;
  prior.level_smoothness = level_smoothness;
  prior.learn = learn;
  prior.invariant = invariant;
  const sparsebayes::WaveletFit w =
      sparsebayes::fit_wavelet(t, family, opt, prior, make_progress(control));
  Rcpp::List out = as_list(w.fit);
  out["level_smoothness"] = w.level_smoothness;
  out["inclusion"] = w.inclusion;
  out["fitted_variance"] = w.fitted_variance;
  return out;
}

// Columns `index` (1-based) of the N-point wavelet synthesis basis.
// [[Rcpp::export(.sb_wavelet_columns)]]
Eigen::MatrixXd sb_wavelet_columns(int N, std::string family, Rcpp::IntegerVector index) {
  RInterruptScope interrupts;
  std::vector<Eigen::Index> idx(index.size());
  for (R_xlen_t j = 0; j < index.size(); ++j) idx[j] = index[j] - 1;
  return sparsebayes::wavelet_columns(N, family, idx);
}

// Forward wavelet transform of a signal of N = 2^J points.
// [[Rcpp::export(.sb_dwt)]]
Eigen::VectorXd sb_dwt(Eigen::Map<Eigen::VectorXd> t, std::string family) {
  RInterruptScope interrupts;
  return sparsebayes::dwt(t, family);
}

// TRUE when a double vector or matrix holds no NA, NaN or infinite value;
// scans in place (no logical copy of a large input). Integers are finite
// unless NA.
// [[Rcpp::export(.sb_all_finite)]]
bool sb_all_finite(SEXP x) {
  RInterruptScope interrupts;
  if (TYPEOF(x) == REALSXP) return sparsebayes::all_finite(REAL(x), static_cast<std::size_t>(XLENGTH(x)));
  if (TYPEOF(x) == INTSXP || TYPEOF(x) == LGLSXP) {
    const int* p = TYPEOF(x) == INTSXP ? INTEGER(x) : LOGICAL(x);
    return std::find(p, p + XLENGTH(x), NA_INTEGER) == p + XLENGTH(x);
  }
  Rcpp::stop("expected a numeric vector or matrix");
}

// input_scaling()'s column moments of a double matrix: per column the largest
// magnitude s (1 if not positive), then the mean of x / s and the sum of
// squared deviations from it, in R's arithmetic (colMeans() and colSums()
// accumulate in long double), so the same numbers as the vectorised R code
// without its n x d temporaries (those took most of ard()'s time at
// n = 20000, d = 500). A 3 x d matrix.
// [[Rcpp::export(.sb_column_moments)]]
Rcpp::NumericMatrix sb_column_moments(Rcpp::NumericMatrix x) {
  const R_xlen_t n = x.nrow(), d = x.ncol();
  Rcpp::NumericMatrix out(3, d);
  std::vector<double> u(n);
  for (R_xlen_t j = 0; j < d; ++j) {
    const double* col = &x[n * j];
    double size = 0.0;
    bool nan = false;
    for (R_xlen_t i = 0; i < n; ++i) {
      if (std::isnan(col[i])) nan = true;
      else size = std::max(size, std::fabs(col[i]));
    }
    if (nan || !(size > 0.0)) size = 1.0;  // as R: max() is NA with an NA, then set to 1
    long double sum = 0.0L;
    for (R_xlen_t i = 0; i < n; ++i) sum += (u[i] = col[i] / size);
    const double center = static_cast<double>(sum / n);
    long double ss = 0.0L;
    for (R_xlen_t i = 0; i < n; ++i) {
      const double dev = u[i] - center;
      ss += dev * dev;
    }
    out(0, j) = size;
    out(1, j) = center;
    out(2, j) = static_cast<double>(ss);
  }
  return out;
}

// (x - center) / scale by columns, with a leading column of ones when
// `intercept`: apply_scaling(cbind(1, x)) in one allocation.
// [[Rcpp::export(.sb_scale_columns)]]
Rcpp::NumericMatrix sb_scale_columns(Rcpp::NumericMatrix x, Rcpp::NumericVector center, Rcpp::NumericVector scale,
                                     bool intercept) {
  const R_xlen_t n = x.nrow(), d = x.ncol(), k = intercept ? 1 : 0;
  if (center.size() != d || scale.size() != d) Rcpp::stop("one center and scale per column expected");
  Rcpp::NumericMatrix out(Rcpp::no_init(n, d + k));
  if (intercept) std::fill(&out[0], &out[0] + n, 1.0);
  for (R_xlen_t j = 0; j < d; ++j) {
    const double* col = &x[n * j];
    double* dst = &out[n * (j + k)];
    const double c = center[j], s = scale[j];
    for (R_xlen_t i = 0; i < n; ++i) dst[i] = (col[i] - c) / s;
  }
  return out;
}
