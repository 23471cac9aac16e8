// Thin Rcpp glue for joint model-and-data ARD; the logic is in
// inst/include/sparsebayes/joint_ard.hpp.
#include <RcppEigen.h>

#include <sparsebayes/joint_ard.hpp>

#include "r_interrupt.h"

// [[Rcpp::depends(RcppEigen)]]

namespace {

sparsebayes::ArdOptions as_ard_options(const Rcpp::List& c) {
  sparsebayes::ArdOptions o;
  o.max_iterations = Rcpp::as<int>(c["max_iterations"]);
  o.time_limit = Rcpp::as<double>(c["time_limit"]);
  o.tolerance = Rcpp::as<double>(c["tolerance"]);
  o.patience = Rcpp::as<int>(c["patience"]);
  o.eta_gamma = Rcpp::as<double>(c["damping_gamma"]);
  o.eta_lambda = Rcpp::as<double>(c["damping_lambda"]);
  o.gamma_min = Rcpp::as<double>(c["gamma_min"]);
  o.gamma_max = Rcpp::as<double>(c["gamma_max"]);
  o.lambda_min = Rcpp::as<double>(c["lambda_min"]);
  o.lambda_max = Rcpp::as<double>(c["lambda_max"]);
  o.warm_start = Rcpp::as<int>(c["warm_start"]);
  o.noise_every = Rcpp::as<int>(c["noise_every"]);
  o.init_gamma = Rcpp::as<double>(c["init_gamma"]);
  o.init_lambda = Rcpp::as<double>(c["init_lambda"]);
  o.fixed_gamma = Rcpp::as<double>(c["fixed_gamma"]);
  o.fixed_noise = Rcpp::as<double>(c["fixed_noise"]);
  o.studentized = Rcpp::as<bool>(c["studentized"]);
  o.studentized_power = Rcpp::as<double>(c["studentized_power"]);
  o.learning_rate = Rcpp::as<double>(c["learning_rate"]);
  o.admm_iterations = Rcpp::as<int>(c["admm_iterations"]);
  o.admm_tolerance = Rcpp::as<double>(c["admm_tolerance"]);
  o.path_max = Rcpp::as<int>(c["path_max"]);
  if (c.containsElementNamed("n_effective")) o.n_effective = Rcpp::as<double>(c["n_effective"]);
  return o;
}

}  // namespace

// [[Rcpp::export(.sb_ard_fit)]]
Rcpp::List sb_ard_fit(Eigen::Map<Eigen::MatrixXd> X, Eigen::Map<Eigen::VectorXd> y, std::string method,
                      bool per_sample, std::string form, Rcpp::List control, int verbose) {
  try {
    RInterruptScope interrupts;
    sparsebayes::ArdOptions opt = as_ard_options(control);
    opt.method = method;
    opt.per_sample = per_sample;
    opt.form = form;
    auto progress = [verbose](int it, const sparsebayes::ArdTraceRow& row) {
      if (verbose > 0 && (it <= 1 || it % verbose == 0))
        Rprintf("iteration %5d  log evidence %.6g  relevant %d  mean noise %.4g\n", it, row.log_ml, row.n_relevant,
                row.noise);
    };
    const sparsebayes::ArdResult r = sparsebayes::fit_joint_ard(X, y, opt, progress);
    Rcpp::IntegerVector relevant(r.relevant.size());
    for (std::size_t k = 0; k < r.relevant.size(); ++k) relevant[k] = static_cast<int>(r.relevant[k]) + 1;
    const std::size_t T = r.trace.size();
    Rcpp::NumericVector tr_ll(T), tr_noise(T);
    Rcpp::IntegerVector tr_n(T);
    for (std::size_t i = 0; i < T; ++i) {
      tr_ll[i] = r.trace[i].log_ml;
      tr_n[i] = r.trace[i].n_relevant;
      tr_noise[i] = r.trace[i].noise;
    }
    Rcpp::IntegerVector path_it(r.path_iteration.begin(), r.path_iteration.end());
    return Rcpp::List::create(
        Rcpp::Named("relevant") = relevant, Rcpp::Named("mu") = r.mu, Rcpp::Named("Sigma") = r.Sigma,
        Rcpp::Named("alpha") = r.gamma, Rcpp::Named("lambda") = r.lambda, Rcpp::Named("log_ml") = r.log_ml,
        Rcpp::Named("fitted") = r.fitted, Rcpp::Named("iterations") = r.iterations,
        Rcpp::Named("converged") = r.converged, Rcpp::Named("jitter_events") = r.jitter_events,
        Rcpp::Named("trace") = Rcpp::List::create(Rcpp::Named("logLik") = tr_ll, Rcpp::Named("relevant") = tr_n,
                                                  Rcpp::Named("noise") = tr_noise),
        Rcpp::Named("path") = Rcpp::List::create(Rcpp::Named("iteration") = path_it,
                                                 Rcpp::Named("alpha") = r.path_gamma,
                                                 Rcpp::Named("lambda") = r.path_lambda));
  } catch (const std::exception& e) {
    Rcpp::stop(e.what());
  }
}
