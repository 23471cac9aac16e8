# The C++ unit tests of the core (tests/cpp/test-*.cpp: Catch through
# testthat's testthat.h). They are not part of the package, so a user's
# install compiles none of them: this file compiles them here, with R CMD
# SHLIB in a temporary directory, against the core's installed headers
# (system.file("include", package = "sparsebayes")), Eigen from RcppEigen and
# Catch from testthat, then runs Catch and reports as run_cpp_tests() does:
# each Catch section one test, each check one expectation, a failed check a
# failure at its file and line in tests/cpp. Compiling takes about two
# minutes on one core (seven translation units; MAKEFLAGS=-jN runs N
# compilers); nothing is written outside the temporary directory, which is
# removed. The compiler flags are R's (and R_MAKEVARS_USER's: `make
# sanitize` compiles the tests with the sanitizers too).
skip_on_os("solaris")  # testthat.h turns Catch off there
skip_if_not_installed("xml2")  # reads Catch's XML report
skip_if_not_installed("RcppEigen")  # Eigen's headers (in Suggests too, for R CMD check --as-cran)

cpp_dir <- normalizePath(test_path("..", "cpp"), mustWork = FALSE)

# The R CMD SHLIB flags of src/Makevars, with the include directories of an
# installed sparsebayes, RcppEigen and testthat.
cpp_test_makevars <- function() {
  include <- function(pkg) sprintf('-I"%s"', system.file("include", package = pkg))
  c("CXX_STD = CXX17",
    paste("PKG_CPPFLAGS =", include("sparsebayes"), include("RcppEigen"), include("testthat"),
          "-DEIGEN_PERMANENTLY_DISABLE_STUPID_WARNINGS -DEIGEN_DONT_PARALLELIZE"),
    "PKG_CXXFLAGS = $(SHLIB_OPENMP_CXXFLAGS)",
    "PKG_LIBS = $(SHLIB_OPENMP_CXXFLAGS)")
}

# Why the C++ tests cannot be compiled here, or NULL: make and R's C++17
# compiler (R CMD config CXX17, which itself runs make) must be on the path.
cpp_toolchain_missing <- function() {
  make <- Sys.getenv("MAKE", "make")
  if (!nzchar(Sys.which(make))) return(sprintf("no '%s' on the path to compile the C++ tests", make))
  cxx <- suppressWarnings(tryCatch(
    system2(file.path(R.home("bin"), "R"), c("CMD", "config", "CXX17"), stdout = TRUE, stderr = FALSE),
    error = function(e) character()))
  cxx <- strsplit(trimws(paste(cxx, collapse = " ")), "[[:space:]]+")[[1]][1]
  if (is.na(cxx) || !nzchar(cxx) || !nzchar(Sys.which(cxx)))
    return("no C++17 compiler (R CMD config CXX17) on the path to compile the C++ tests")
  NULL
}

# Compiles tests/cpp into a shared library in `dir`; returns its path, or
# stops with the end of the compiler's log.
compile_cpp_tests <- function(dir) {
  sources <- list.files(cpp_dir, pattern = "[.](cpp|h)$", full.names = TRUE)
  stopifnot(length(sources) > 0, all(file.copy(sources, dir)))
  writeLines(cpp_test_makevars(), file.path(dir, "Makevars"))
  lib <- paste0("sparsebayes_cpp_tests", .Platform$dynlib.ext)
  log <- file.path(dir, "compile.log")
  owd <- setwd(dir)
  on.exit(setwd(owd))
  status <- system2(file.path(R.home("bin"), "R"),
                    c("CMD", "SHLIB", "-o", lib, basename(grep("[.]cpp$", sources, value = TRUE))),
                    stdout = log, stderr = log)
  if (!identical(status, 0L)) {
    stop("compiling the C++ tests failed:\n", paste(utils::tail(readLines(log), 40), collapse = "\n"),
         call. = FALSE)
  }
  file.path(dir, lib)
}

# Catch's XML report as testthat results, as testthat::run_cpp_tests() makes
# them, with failures located in tests/cpp.
report_catch <- function(output) {
  reporter <- get_reporter()
  where <- function(node) {
    line <- as.integer(xml2::xml_attr(node, "line"))
    srcref(srcfile(file.path(cpp_dir, basename(xml2::xml_attr(node, "filename")))), c(line, line, 1L, 1L))
  }
  add <- function(context, test, exp) {
    exp$test <- test
    reporter$add_result(context = context, test = test, result = exp)
  }
  report <- xml2::read_xml(paste(output, collapse = "\n"))
  for (case in xml2::xml_find_all(report, "//TestCase")) {
    context <- sub(" [|][^|]+$", "", xml2::xml_attr(case, "name"))
    reporter$.start_context(context)
    for (section in xml2::xml_find_all(case, "./Section")) {
      test <- xml2::xml_attr(section, "name")
      reporter$start_test(context = context, test = test)
      successes <- as.integer(xml2::xml_attr(xml2::xml_find_first(section, "./OverallResults"), "successes"))
      for (i in seq_len(successes)) add(context, test, expectation("success", ""))
      for (failure in xml2::xml_find_all(section, "./Expression")) {
        text <- xml2::xml_text(xml2::xml_find_first(failure, "Original"), trim = TRUE)
        type <- switch(xml2::xml_attr(failure, "type"),
                       CATCH_CHECK_FALSE = "isn't false.",
                       CATCH_CHECK_THROWS = "did not throw an exception.",
                       CATCH_CHECK_THROWS_AS = "threw an exception with unexpected type.",
                       "isn't true.")
        add(context, test, expectation("failure", paste(text, type), srcref = where(failure)))
      }
      for (exception in xml2::xml_find_all(section, "./Exception")) {
        add(context, test, expectation("error", xml2::xml_text(exception, trim = TRUE), srcref = where(exception)))
      }
      reporter$end_test(context = context, test = test)
    }
  }
}

run_core_cpp_tests <- function() {
  if (!dir.exists(cpp_dir)) skip("the C++ tests (tests/cpp) are not beside tests/testthat")
  missing <- cpp_toolchain_missing()
  if (!is.null(missing)) skip(missing)
  dir <- tempfile("sparsebayes-cpp-tests-")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  lib <- compile_cpp_tests(dir)
  dll <- dyn.load(lib)
  on.exit(dyn.unload(lib), add = TRUE, after = FALSE)
  run <- getNativeSymbolInfo("run_testthat_tests", dll)
  report_catch(capture_output_lines(.Call(run, TRUE)))
}

run_core_cpp_tests()
