# The C++ unit tests of the core (src/test-*.cpp: Catch through testthat).
# Each Catch section counts here as one test, each of its checks as one
# expectation, and a failed check as a failure with its file and line.
skip_if_not_installed("xml2")  # run_cpp_tests() reads Catch's XML report with it
run_cpp_tests("sparsebayes")
