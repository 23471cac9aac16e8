// An R kernel object (the list made in R/kernels.R) as the core's Kernel;
// shared by the glue files.
#pragma once

#include <RcppEigen.h>

#include <sparsebayes/kernels.hpp>

inline sparsebayes::Kernel as_kernel(const Rcpp::List& k) {
  sparsebayes::Kernel out;
  out.type = sparsebayes::kernel_type_from_name(Rcpp::as<std::string>(k["type"]));
  const Rcpp::NumericVector width = k["width"];  // one width, or one per input column
  if (width.size() == 1) {
    out.width = width[0];
  } else {
    out.input_widths = Rcpp::as<Eigen::VectorXd>(width);
  }
  out.variance = Rcpp::as<double>(k["variance"]);
  out.degree = Rcpp::as<double>(k["degree"]);
  out.offset = Rcpp::as<double>(k["offset"]);
  return out;
}
