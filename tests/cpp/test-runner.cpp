// The entry point of the C++ unit tests (tests/cpp/test-*.cpp, Catch through
// testthat's testthat.h): run_testthat_tests(). tests/testthat/test-cpp.R
// compiles these files into a shared library of their own (not the
// package's), loads it and calls this routine.
#define TESTTHAT_TEST_RUNNER
#include <testthat.h>
