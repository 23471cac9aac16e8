# The Boston protocol of the joint-ARD paper (section 5.3, App. D.2), shared
# by ard_reproduce.R, student_noise.R and boston_gap.R (beside this file): split `t` holds out a
# random 20% for testing; inputs are standardised by the training split,
# training targets standardised (centre, spread) before contamination.
boston_split <- function(t) {
  B <- MASS::Boston
  set.seed(t)
  test <- sample.int(nrow(B), round(0.2 * nrow(B)))
  x <- scale(as.matrix(B[-test, -14]))
  x_test <- scale(as.matrix(B[test, -14]), attr(x, "scaled:center"), attr(x, "scaled:scale"))
  y <- B$medv[-test]
  list(t = t, x = x, x_test = x_test, y = y, y_test = B$medv[test], centre = mean(y), spread = stats::sd(y))
}

# The standardised training targets of split `s` with a fraction `rate`
# contaminated (amplitude 3; attribute "outliers").
boston_targets <- function(s, rate) {
  contaminate((s$y - s$centre) / s$spread, rate = rate, amplitude = 3, seed = 100 * s$t + round(100 * rate),
              scale = 1)
}

# A fit's predictions at the test inputs of split `s`, on the medv scale.
boston_medv <- function(s, fit) s$centre + s$spread * predict(fit, s$x_test)
