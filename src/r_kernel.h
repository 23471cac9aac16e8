// An R kernel object (the list made in R/kernels.R) as the core's Kernel;
// shared by the glue files.
#pragma once

#include <RcppEigen.h>

#include <sparsebayes/kernels.hpp>

inline sparsebayes::Kernel as_kernel(const Rcpp::List& k) {
  sparsebayes::Kernel out;
  out.type = sparsebayes::kernel_type_from_name(Rcpp::as<std::string>(k["type"]));
  out.width = Rcpp::as<double>(k["width"]);
  out.variance = Rcpp::as<double>(k["variance"]);
  out.degree = Rcpp::as<double>(k["degree"]);
  out.offset = Rcpp::as<double>(k["offset"]);
  return out;
}
