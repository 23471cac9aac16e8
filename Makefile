# Two commands do all the set-up on a fresh machine:
#   make demo   installs what is needed and the package, fits an RVM, writes a plot
#   make test   installs what the tests need and the package, runs the tests
# The C++ unit tests (tests/cpp) are compiled by tests/testthat/test-cpp.R, not
# by an install: testthat (Catch) and xml2 (Catch's report) are test deps only.
RUNTIME_DEPS = Rcpp RcppEigen MASS parallelly future future.apply progressr generics knitr rmarkdown
TEST_DEPS = testthat xml2 kernlab mlbench broom tibble yaml caret DBI RSQLite withr bigmemory future future.batchtools parsnip dials recipes rsample tune workflows yardstick
DEV_DEPS = roxygen2 knitr rmarkdown kernlab robustbase

.PHONY: demo test install deps test-deps document check bench fuzz sanitize site

demo: install
	Rscript tools/demo.R

# The fuzz test (1000 hostile inputs in child processes, about 10 s) runs
# first, so the last line is the testthat totals.
test: test-deps install
	Rscript tools/fuzz.R 1000 100
	Rscript tools/run-tests.R

# The package is installed (with its vignettes: tools/install.sh) into the
# first library of .libPaths() (R_LIBS chooses another) when a source file is
# newer than the installed copy, or when that copy came from another source
# tree or is missing: `make test` after `make demo` compiles nothing.
LIB := $(shell Rscript -e 'cat(.libPaths()[1])' 2>/dev/null)
INSTALLED = $(LIB)/sparsebayes/INSTALLED_FROM
PKG_FILES := DESCRIPTION NAMESPACE $(shell find R src inst man vignettes -type f ! -name '*.o' ! -name '*.so' ! -path 'inst/doc/*' 2>/dev/null)
ifneq ($(shell cat '$(INSTALLED)' 2>/dev/null),$(CURDIR))
.PHONY: $(INSTALLED)
endif
install: $(INSTALLED)
$(INSTALLED): $(PKG_FILES) | deps
	bash tools/install.sh '$(LIB)'
	@echo '$(CURDIR)' >'$@'

deps:
	sh tools/install-deps.sh $(RUNTIME_DEPS)

# Slurm (a one-node cluster for the future.batchtools test, tools/slurm-up.sh) where apt can install it.
test-deps:
	sh tools/install-deps.sh $(TEST_DEPS)
	command -v slurmctld >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurmctld slurmd munge >/dev/null 2>&1; } || true

# Developer targets.
document:
	sh tools/install-deps.sh $(DEV_DEPS)
	Rscript -e 'Rcpp::compileAttributes("."); roxygen2::roxygenise()'

# The pkgdown site in docs/ (_pkgdown.yml), from the installed package, offline;
# its search runs Debian's lunr.js (libjs-lunr), shipped in the site
# (tools/build-site.R), and the tidymodels article needs recipes.
site: install
	sh tools/install-deps.sh pkgdown recipes
	[ -f /usr/share/javascript/lunr/lunr.min.js ] || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libjs-lunr >/dev/null 2>&1; } || true
	TZ=$${TZ:-UTC} Rscript tools/build-site.R

# _R_CHECK_SYSTEM_CLOCK_=false: the clock check asks a time server, which an offline machine cannot reach.
check: deps
	command -v qpdf >/dev/null || apt-get install -y -qq qpdf >/dev/null 2>&1 || true
	sh tools/install-deps.sh $(TEST_DEPS) $(DEV_DEPS)
	rm -rf check && mkdir -p check && cd check && R CMD build .. && _R_CHECK_FORCE_SUGGESTS_=false \
	  _R_CHECK_SYSTEM_CLOCK_=false R CMD check --as-cran --no-manual sparsebayes_*.tar.gz

bench: install
	sh tools/install-deps.sh kernlab e1071 mlbench ranger glmnet susieR lasso2 wavethresh EbayesThresh mgcv
	command -v apt-get >/dev/null && apt-get install -y -qq python3-sklearn >/dev/null 2>&1 || true
	Rscript bench/rvm_vs_kernlab.R
	Rscript bench/smooth_orthonormal.R
	Rscript bench/sparse_gp_scaling.R
	Rscript bench/sparse_gp_profile.R
	Rscript bench/sparse_gp_scale.R
	Rscript bench/ard_speed.R
	Rscript bench/classification_cv.R
	Rscript bench/sparse_linear.R
	Rscript bench/wavelet_denoise.R
	Rscript bench/engine_laplace.R

# Random and hostile inputs to every fitting function, in child processes:
# fails on any crash. Clear errors are expected; see fuzz-output/messages.txt.
fuzz: install
	Rscript tools/fuzz.R 5000 250

# The fuzz test and the test suite under AddressSanitizer and UBSan (R
# itself is not instrumented, so the runtimes are preloaded; leaks in R are
# not ours). Any report aborts the process, which both runners count as a
# failure. R_MAKEVARS_USER gives the C++ unit tests, which
# tests/testthat/test-cpp.R compiles, the same flags as the package.
SANITIZE_LIB = $(CURDIR)/sanitize-lib
SANITIZE_ENV = LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libubsan.so)" \
  ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  R_LIBS=$(SANITIZE_LIB) R_MAKEVARS_USER=$(CURDIR)/tools/sanitize.mk
sanitize: test-deps deps
	mkdir -p $(SANITIZE_LIB)
	R_MAKEVARS_USER=$(CURDIR)/tools/sanitize.mk R CMD INSTALL --preclean --no-test-load --no-multiarch -l $(SANITIZE_LIB) . >install.log 2>&1 || (cat install.log; exit 1)
	@rm -f install.log src/*.o src/*.so
	$(SANITIZE_ENV) Rscript tools/fuzz.R 1000 100
	$(SANITIZE_ENV) Rscript tools/run-tests.R
