# The R code of every vignette, as R CMD build extracts it and the package
# installs it (doc/*.R), runs from the installed package as a user sources
# it: in a fresh R process whose working directory is an empty temporary
# folder, leaving no file there (the precomputed results are read from
# extdata/). Skipped where the package was installed without its vignettes
# (R CMD INSTALL of the source tree; tools/install.sh builds them).

test_that("every installed vignette's code runs from the installed package and leaves no file behind", {
  skip_on_cran()
  doc <- system.file("doc", package = "sparsebayes")
  skip_if(!nzchar(doc), "the package was installed without its vignettes")
  scripts <- list.files(doc, pattern = "[.]R$", full.names = TRUE)
  skip_if(!length(scripts), "the package was installed without its vignettes' code")
  for (script in scripts) {
    run <- run_fresh_r(sprintf('source(system.file("doc", "%s", package = "sparsebayes"))', basename(script)))
    expect_identical(run$status, 0L, info = paste(basename(script), fresh_r_tail(run), sep = "\n"))
    expect_identical(run$left, character(0), info = basename(script))
  }
})
