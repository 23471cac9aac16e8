// The core's interrupt check (sparsebayes/interrupt.hpp) wired to R's: every
// glue entry point holds one RInterruptScope while it runs the core. A user
// interrupt throws Rcpp's InterruptedException, which unwinds the core (RAII
// only) and is turned into an R interrupt condition by the Rcpp wrapper
// (RcppExports.cpp), as core exceptions are turned into R errors.
#pragma once

#include <RcppEigen.h>

#include <sparsebayes/interrupt.hpp>

struct RInterruptScope : sparsebayes::InterruptScope {
  RInterruptScope() : sparsebayes::InterruptScope([] { Rcpp::checkUserInterrupt(); }, 0.1) {}
};
