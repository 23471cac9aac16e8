# The C++ unit tests of the core (src/test-*.cpp: Catch, through testthat).
# testthat::run_cpp_tests("sparsebayes") finds the routine
# run_testthat_tests as the NativeSymbolInfo of that name in this namespace.
# The package registers its routines and turns dynamic lookup off
# (R_useDynamicSymbols(dll, FALSE) in src/RcppExports.cpp), so the routine
# must be registered too: this .Call() is what makes Rcpp::compileAttributes()
# (through tools::package_native_routine_registration_skeleton()) declare and
# register it with the Rcpp exports, every time it regenerates that file.
# Returns TRUE when every C++ test passes.
run_cpp_unit_tests <- function(use_xml = FALSE) .Call(run_testthat_tests, use_xml)
