// The core's interrupt check (sparsebayes/interrupt.hpp) wired to R's: every
// glue entry point holds one RInterruptScope while it runs the core. A user
// interrupt throws Rcpp's InterruptedException, which unwinds the core (RAII
// only) and is turned into an R interrupt condition by the Rcpp wrapper
// (RcppExports.cpp), as core exceptions are turned into R errors.
#pragma once

#include <RcppEigen.h>

#include <chrono>

#include <sparsebayes/interrupt.hpp>

// Progress from long computations: at most every half second of polling,
// the function `heartbeat$report` of the package's namespace (set by R's
// beat_while() for the duration of a fit: it signals a progressr message),
// if one is set. So a fit is never silent for long, wherever it spends its
// time in the core.
inline void r_heartbeat() {
  using clock = std::chrono::steady_clock;
  static clock::time_point last = clock::now();
  const clock::time_point now = clock::now();
  if (now - last < std::chrono::milliseconds(500)) return;
  last = now;
  const Rcpp::Environment beat = Rcpp::Environment::namespace_env("sparsebayes")["heartbeat"];
  SEXP report = beat.get("report");
  if (!Rf_isFunction(report)) return;
  const Rcpp::Function beat_report(report);
  beat_report();
}

struct RInterruptScope : sparsebayes::InterruptScope {
  RInterruptScope()
      : sparsebayes::InterruptScope(
            [] {
              Rcpp::checkUserInterrupt();
              r_heartbeat();
            },
            0.1) {}
};
