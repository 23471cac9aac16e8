library(testthat)
library(sparsebayes)

test_check("sparsebayes")
