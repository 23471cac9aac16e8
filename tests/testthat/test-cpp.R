# The C++ unit tests of the core (src/test-*.cpp: Catch through testthat).
# Each Catch section counts here as one test, each of its checks as one
# expectation, and a failed check as a failure with its file and line.
run_cpp_tests("sparsebayes")
