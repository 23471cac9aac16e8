// The entry point of the C++ unit tests (src/test-*.cpp, Catch through
// testthat): run_testthat_tests(), called by testthat::run_cpp_tests() from
// tests/testthat/test-cpp.R. It is registered with the package's other
// routines: R/cpp_tests.R calls .Call(run_testthat_tests, ...), so
// Rcpp::compileAttributes() lists it in src/RcppExports.cpp.
#define TESTTHAT_TEST_RUNNER
#include <testthat.h>
