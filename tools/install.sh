#!/bin/bash
# Installs the package from this source tree into the library $1, with its
# vignettes (so that vignette("sparsebayes") opens), saying what it does:
# `make install` calls it when a source file changed (see Makefile).
#
# 1. R CMD INSTALL: compiles src/ (three files, the glue over the core's
#    heavy Eigen templates: about 2 minutes from scratch, up to 4 on busy
#    cores; only changed files later) and installs; one line per C++ file as
#    it starts. The C++ unit tests (tests/cpp) are not compiled here:
#    tests/testthat/test-cpp.R compiles them when the tests run.
# 2. tools::buildVignettes() with that installed copy, the outputs put in
#    inst/doc (git ignores it) as R CMD build would.
# 3. R CMD INSTALL again, which installs inst/doc and the vignette index; the
#    objects of step 1 are up to date, so nothing compiles.
set -eo pipefail
lib=$1
[ -n "$lib" ] || { echo "usage: tools/install.sh LIBRARY" >&2; exit 2; }
cd "$(dirname "$0")/.."
export R_LIBS="$lib${R_LIBS:+:$R_LIBS}"
start=$SECONDS

# R's rules for src/ know that an object depends on its .cpp file, not on the
# core's headers (inst/include) or src/Makevars: after a change to one of
# those, every object is rebuilt.
oldest=$(ls -tr src/*.o 2>/dev/null | head -n 1 || true)
if [ -n "$oldest" ] && [ -n "$(find inst/include src -newer "$oldest" \( -name '*.h' -o -name '*.hpp' -o -name 'Makevars*' \) | head -n 1)" ]; then
  rm -f src/*.o src/*.so
fi
todo=0
for f in src/*.cpp; do [ "${f%.cpp}.o" -nt "$f" ] || todo=$((todo + 1)); done
jobs=$(nproc 2>/dev/null || echo 1); [ "$jobs" -gt 4 ] && jobs=4   # each compiler takes ~2.5 GB
if [ "$todo" -gt 0 ]; then
  echo "sparsebayes: compiling $todo C++ files with $jobs jobs, then installing into $lib"
  echo "  (about 2 minutes from scratch, up to 4 on busy cores; the full log is install.log)"
else
  echo "sparsebayes: installing into $lib (the C++ objects are up to date)"
fi

# one line per C++ file as its compiler starts
progress() {
  local k=0 f line
  while read -r line; do
    case "$line" in
      *" -c "*.cpp" "*) f=${line##* -c }; f=${f%% *}; k=$((k + 1))
                        printf '  [%d/%d] compiling %-24s (at %d s)\n' "$k" "$todo" "$f" $((SECONDS - start)) ;;
    esac
  done
}
install() {
  if ! MAKEFLAGS="-j$jobs" R CMD INSTALL --no-multiarch -l "$lib" . 2>&1 | tee -a install.log | progress; then
    cat install.log
    exit 1
  fi
}
: >install.log
install
if ! Rscript -e 'quit(status = !rmarkdown::pandoc_available())' >/dev/null 2>&1; then
  echo "sparsebayes: installed in $((SECONDS - start)) s, without vignettes (rmarkdown needs pandoc)"
  rm -f install.log
  exit 0
fi
echo "  installed the code ($((SECONDS - start)) s); building the vignettes (about 20 s)"

mkdir -p inst/doc
Rscript -e '
v <- tools::buildVignettes(dir = ".", tangle = TRUE, quiet = TRUE)
made <- file.path(v$dir, basename(c(v$outputs, unlist(v$sources))))
stopifnot(all(file.copy(c(v$docs, made), "inst/doc", overwrite = TRUE)))
unlink(made)
' >>install.log 2>&1 || { cat install.log; exit 1; }
install
echo "sparsebayes: installed with its vignettes in $((SECONDS - start)) s"
rm -f install.log
