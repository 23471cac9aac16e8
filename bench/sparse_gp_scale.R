# Sparse GPs at scale: time, peak memory and latent error of sparse_gp()
# (VFE, defaults) beside rvm(centres = m) and mgcv::bam (thin-plate
# regression spline, fREML) on the same data: the 2-D surface
# f = sin(2 x1) cos(x2) on U(-3, 3)^2 with noise sd 0.2, at n = 10^4, 10^5
# and 10^6 and m = 100 and 500 inducing points / centres (bam: k = m basis
# functions, which bounds its cost the same way). Latent RMSE against f on
# 5000 fresh points. bam is not run at n = 10^6 with k = 500: its cost
# grows as n k^2, and n = 10^5 took 225 s with k = 500, n = 10^6 383 s with
# k = 100 (projected: over two hours).
#
# Every fit runs in its own R process, so that its peak resident memory
# (VmHWM) is its own. Run from the package root after installing:
#   Rscript bench/sparse_gp_scale.R            # the whole table (about 25 minutes)
#   Rscript bench/sparse_gp_scale.R 1e4 100    # one cell
# Prints a markdown table for bench/RESULTS.md.
args <- commandArgs(TRUE)

one_fit <- function(method, n, m) {
  if (method == "bam" && n * m^2 > 3e10)
    return(data.frame(method = method, n = n, m = m, kept = NA, wall = NA, cpu = NA, rss_mb = NA, rmse = NA))
  suppressPackageStartupMessages(library(sparsebayes))
  set.seed(1)
  x <- matrix(runif(2 * n, -3, 3), n, 2, dimnames = list(NULL, c("x1", "x2")))
  y <- sin(2 * x[, 1]) * cos(x[, 2]) + rnorm(n, sd = 0.2)
  set.seed(2)
  xt <- matrix(runif(2 * 5000, -3, 3), 5000, 2, dimnames = list(NULL, c("x1", "x2")))
  ft <- sin(2 * xt[, 1]) * cos(xt[, 2])
  gc(FALSE)
  kept <- m
  t <- system.time(pred <- switch(method,
    sparse_gp = {
      fit <- sparse_gp(x, y, inducing = m, seed = 1)
      kept <- fit$m  # after the points K_uu cannot tell apart are dropped
      predict(fit, xt)
    },
    rvm = {
      fit <- rvm(x, y, centres = m)
      predict(fit, xt)
    },
    bam = {
      d <- data.frame(x, y = y)
      fit <- mgcv::bam(y ~ s(x1, x2, k = m), data = d, method = "fREML")
      as.numeric(predict(fit, as.data.frame(xt)))
    }))
  status <- readLines("/proc/self/status")
  rss <- as.numeric(gsub("[^0-9]", "", grep("^VmHWM", status, value = TRUE))) / 1024
  data.frame(method = method, n = n, m = m, kept = kept, wall = t[["elapsed"]], cpu = t[["user.self"]] + t[["sys.self"]],
             rss_mb = rss, rmse = sqrt(mean((pred - ft)^2)))
}

if (length(args) == 4L && args[1] == "--one") {
  res <- one_fit(args[2], as.numeric(args[3]), as.integer(args[4]))
  write.csv(res, stdout(), row.names = FALSE)
  quit(save = "no")
}

cells <- expand.grid(method = c("sparse_gp", "rvm", "bam"), m = c(100L, 500L), n = c(1e4, 1e5, 1e6),
                     stringsAsFactors = FALSE)
if (length(args) == 2L) cells <- cells[cells$n == as.numeric(args[1]) & cells$m == as.integer(args[2]), ]
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
rows <- lapply(seq_len(nrow(cells)), function(i) {
  cl <- cells[i, ]
  out <- suppressWarnings(system2("Rscript", c(script, "--one", cl$method, format(cl$n, scientific = FALSE), cl$m),
                                  stdout = TRUE, stderr = FALSE))
  res <- tryCatch(utils::read.csv(text = out), error = function(e) NULL)
  if (is.null(res) || !nrow(res)) res <- data.frame(method = cl$method, n = cl$n, m = cl$m, kept = NA, wall = NA, cpu = NA,
                                                    rss_mb = NA, rmse = NA)
  message(sprintf("%-9s n = %7d m = %3d: %s s, RMSE %s", cl$method, as.integer(cl$n), cl$m, format(res$wall),
                  format(res$rmse, digits = 3)))
  res
})
res <- do.call(rbind, rows)
cat("Command: `Rscript bench/sparse_gp_scale.R`\n\n")
cat(sprintf("Machine: %s, R %s, %d cores, %s\n\n", Sys.info()[["machine"]], getRversion(),
            parallel::detectCores(), format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC")))
cat("| n | m | kept | method | wall s | CPU s | peak RSS MB | latent RMSE |\n|---:|---:|---:|---|---:|---:|---:|---:|\n")
cat(sprintf("| %s | %d | %s | %s | %.1f | %.1f | %.0f | %.5f |\n", format(res$n, big.mark = ",", scientific = FALSE),
            res$m, format(res$kept), res$method, res$wall, res$cpu, res$rss_mb, res$rmse), sep = "")
