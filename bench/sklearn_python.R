# The python that runs the scikit-learn peers: $SB_PYTHON, else the first of
# /usr/bin/python3 and python3 that imports sklearn; "" if none does.
sklearn_python <- function() {
  python <- Sys.getenv("SB_PYTHON")
  if (nzchar(python)) return(python)
  for (p in c("/usr/bin/python3", Sys.which("python3"))) {
    if (nzchar(p) && file.exists(p) &&
        identical(suppressWarnings(system2(p, c("-c", shQuote("import sklearn")), stdout = FALSE, stderr = FALSE)), 0L))
      return(p)
  }
  ""
}
