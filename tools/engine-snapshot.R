# Writes the behaviour snapshot (tests/testthat/helper-snapshot.R) of the
# installed package to tests/testthat/fixtures/engine-snapshot.rds. Run it
# at the commit before an engine refactor; test-engine-snapshot.R then
# asserts that every later commit reproduces it.
#   Rscript tools/engine-snapshot.R
suppressPackageStartupMessages(library(sparsebayes))
source("tests/testthat/helper-snapshot.R")
snap <- take_snapshot()
attr(snap, "commit") <- system("git rev-parse --short HEAD", intern = TRUE)
saveRDS(snap, "tests/testthat/fixtures/engine-snapshot.rds", version = 2)
for (nm in names(snap)) cat(sprintf("%-22s logLik %.10g  relevant %d\n", nm, snap[[nm]]$logLik, length(snap[[nm]]$relevant)))
