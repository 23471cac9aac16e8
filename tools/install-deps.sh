#!/bin/sh
# Installs the R packages given as arguments that are not installed yet:
# Debian's prebuilt r-cran-* packages where apt is usable, CRAN otherwise.
set -e
missing=$(Rscript -e 'p <- commandArgs(TRUE); cat(p[!vapply(p, requireNamespace, logical(1), quietly = TRUE)])' "$@")
[ -z "$missing" ] && exit 0
echo "installing R packages: $missing"
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  debs=""
  for p in $missing; do debs="$debs r-cran-$(echo "$p" | tr 'A-Z' 'a-z')"; done
  apt-get update -qq >/dev/null 2>&1 || true
  for d in $debs; do
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$d" >/dev/null 2>&1 || echo "no Debian package $d"
  done
fi
Rscript -e '
p <- commandArgs(TRUE)
p <- p[!vapply(p, requireNamespace, logical(1), quietly = TRUE)]
if (length(p)) {
  lib <- Sys.getenv("R_LIBS_USER")
  if (!file.access(.libPaths()[1], 2) == 0) { dir.create(lib, recursive = TRUE, showWarnings = FALSE); .libPaths(c(lib, .libPaths())) }
  # the configured repositories (getOption("repos"), as set in Rprofile.site)
  if (any(getOption("repos") %in% c("", "@CRAN@"))) stop("no CRAN mirror is configured: set options(repos = ...) in your Rprofile")
  install.packages(p, lib = .libPaths()[1])
}
' $missing
# Checked in a fresh R: the session above has loaded the namespaces it found
# before installing, and an older dependency it loaded (rlang, vctrs) makes
# a newly installed package that needs the newer one fail to load there.
Rscript -e '
p <- commandArgs(TRUE)
lib <- Sys.getenv("R_LIBS_USER")
if (dir.exists(lib)) .libPaths(c(lib, .libPaths()))
p <- p[!vapply(p, requireNamespace, logical(1), quietly = TRUE)]
if (length(p)) stop("could not install: ", paste(p, collapse = ", "))
' $missing
