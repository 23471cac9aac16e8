# The data sets of the cross-validation panels, one function per panel, each
# a named list of list(data, formula), read by bench/panel.R for the
# panels (bench/regression_panel.R, bench/regression_broad.R,
# bench/classification_panel.R, bench/width_alternatives.R).

# Boston, Ozone, Servo, mcycle and Friedman 1-3: the sets of the issue
# "Kernels learned from the data".
regression_sets <- function() {
  data(BostonHousing, Ozone, Servo, package = "mlbench", envir = environment())
  ozone <- na.omit(Ozone)
  ozone[] <- lapply(ozone, function(v) if (is.factor(v)) as.numeric(as.character(v)) else v)  # month, day, weekday
  servo <- Servo
  servo[c("Pgain", "Vgain")] <- lapply(servo[c("Pgain", "Vgain")], function(v) as.numeric(as.character(v)))  # Motor, Screw: factors
  friedman <- function(gen, ...) { set.seed(1); p <- gen(n = 300, ...); data.frame(x = p$x, y = p$y) }  # x.1, .., y
  list(
    Boston = list(data = BostonHousing, formula = medv ~ .),
    Ozone = list(data = ozone, formula = V4 ~ .),
    Servo = list(data = servo, formula = Class ~ .),
    mcycle = list(data = MASS::mcycle, formula = accel ~ times),
    Friedman1 = list(data = friedman(mlbench.friedman1, sd = 1), formula = y ~ .),
    Friedman2 = list(data = friedman(mlbench.friedman2, sd = 125), formula = y ~ .),
    Friedman3 = list(data = friedman(mlbench.friedman3, sd = 0.1), formula = y ~ .))
}

# 14 small regression sets from base R, MASS and mlbench that no issue
# names, as a user would try them (formula interface, factors as they come).
regression_broad_sets <- function() {
  generated <- function(gen, n, ...) { set.seed(2); p <- gen(n, ...); data.frame(x = p$x, y = p$y) }
  cpus <- MASS::cpus[c("syct", "mmin", "mmax", "cach", "chmin", "chmax", "perf")]
  cpus$perf <- log(cpus$perf)
  list(
    swiss = list(data = swiss, formula = Fertility ~ .),
    mtcars = list(data = mtcars, formula = mpg ~ .),
    airquality = list(data = na.omit(airquality), formula = Ozone ~ .),
    trees = list(data = trees, formula = Volume ~ .),
    faithful = list(data = faithful, formula = eruptions ~ waiting),
    quakes = list(data = quakes, formula = mag ~ .),
    LifeCycle = list(data = LifeCycleSavings, formula = sr ~ .),
    cpus = list(data = cpus, formula = perf ~ .),
    UScrime = list(data = MASS::UScrime, formula = y ~ .),
    birthwt = list(data = MASS::birthwt[-1], formula = bwt ~ .),
    rock = list(data = rock, formula = area ~ .),
    hills = list(data = MASS::hills, formula = time ~ .),
    peak = list(data = generated(mlbench.peak, 300, 4), formula = y ~ .),
    Friedman1_200 = list(data = generated(mlbench.friedman1, 200, sd = 1), formula = y ~ .))
}

# Sonar, Ionosphere, BreastCancer (2 classes), Glass (6) and Vehicle (4):
# the classification sets of the issue "Kernels learned from the data".
classification_sets <- function() {
  data(Sonar, Ionosphere, BreastCancer, Glass, Vehicle, package = "mlbench", envir = environment())
  ionosphere <- Ionosphere[names(Ionosphere) != "V2"]  # V2 is constant
  ionosphere$V1 <- as.numeric(as.character(ionosphere$V1))  # factor 0/1
  breast <- na.omit(BreastCancer[names(BreastCancer) != "Id"])
  score <- setdiff(names(breast), "Class")  # the 1-10 scores, (ordered) factors
  breast[score] <- lapply(breast[score], function(v) as.numeric(as.character(v)))
  list(
    Sonar = list(data = Sonar, formula = Class ~ .),
    Ionosphere = list(data = ionosphere, formula = Class ~ .),
    BreastCancer = list(data = breast, formula = Class ~ .),
    Glass = list(data = Glass, formula = Type ~ .),
    Vehicle = list(data = Vehicle, formula = Class ~ .))
}

# 8 classification sets no issue names (2 to 11 classes, 101 to 1250 rows).
classification_broad_sets <- function() {
  data(PimaIndiansDiabetes, HouseVotes84, Vowel, Zoo, package = "mlbench", envir = environment())
  data(crabs, cats, synth.tr, synth.te, package = "MASS", envir = environment())
  zoo <- Zoo
  zoo[] <- lapply(zoo, function(v) if (is.logical(v)) as.numeric(v) else v)  # 15 yes/no columns
  synth <- rbind(synth.tr, synth.te)
  synth$yc <- factor(synth$yc)
  list(
    Pima = list(data = PimaIndiansDiabetes, formula = diabetes ~ .),
    iris = list(data = iris, formula = Species ~ .),
    crabs = list(data = crabs, formula = sp ~ FL + RW + CL + CW + BD),
    cats = list(data = cats, formula = Sex ~ Bwt + Hwt),
    HouseVotes84 = list(data = na.omit(HouseVotes84), formula = Class ~ .),
    Zoo = list(data = zoo, formula = type ~ .),
    Vowel = list(data = Vowel, formula = Class ~ .),
    synth = list(data = synth, formula = yc ~ xs + ys))
}

# Six deterministic simulators (computer experiments; no noise), 200 rows
# drawn uniformly over each function's usual input box (Surjanovic and
# Bingham's library of test functions): the data where the responses are
# exact and the GP puts its noise near zero.
computer_experiment_sets <- function(n = 200) {
  design <- function(box, seed) {
    set.seed(seed)
    x <- sapply(box, function(r) runif(n, r[1L], r[2L]))
    as.data.frame(x)
  }
  borehole <- design(list(rw = c(0.05, 0.15), r = c(100, 50000), Tu = c(63070, 115600), Hu = c(990, 1110),
                          Tl = c(63.1, 116), Hl = c(700, 820), L = c(1120, 1680), Kw = c(9855, 12045)), 11)
  borehole$y <- with(borehole, 2 * pi * Tu * (Hu - Hl) /
                       (log(r / rw) * (1 + 2 * L * Tu / (log(r / rw) * rw^2 * Kw) + Tu / Tl)))
  piston <- design(list(M = c(30, 60), S = c(0.005, 0.02), V0 = c(0.002, 0.01), k = c(1000, 5000),
                        P0 = c(90000, 110000), Ta = c(290, 296), T0 = c(340, 360)), 12)
  piston$y <- with(piston, {
    A <- P0 * S + 19.62 * M - k * V0 / S
    V <- S / (2 * k) * (sqrt(A^2 + 4 * k * P0 * V0 * Ta / T0) - A)
    2 * pi * sqrt(M / (k + S^2 * P0 * V0 * Ta / (T0 * V^2)))
  })
  otl <- design(list(Rb1 = c(50, 150), Rb2 = c(25, 70), Rf = c(0.5, 3), Rc1 = c(1.2, 2.5), Rc2 = c(0.25, 1.2),
                     beta = c(50, 300)), 13)
  otl$y <- with(otl, {
    Vb1 <- 12 * Rb2 / (Rb1 + Rb2)
    g <- beta * (Rc2 + 9)
    (Vb1 + 0.74) * g / (g + Rf) + 11.35 * Rf / (g + Rf) + 0.74 * Rf * g / ((g + Rf) * Rc1)
  })
  branin <- design(list(x1 = c(-5, 10), x2 = c(0, 15)), 14)
  branin$y <- with(branin, (x2 - 5.1 / (4 * pi^2) * x1^2 + 5 / pi * x1 - 6)^2 + 10 * (1 - 1 / (8 * pi)) * cos(x1) + 10)
  hartmann <- design(list(x1 = c(0, 1), x2 = c(0, 1), x3 = c(0, 1)), 15)
  A <- rbind(c(3, 10, 30), c(0.1, 10, 35), c(3, 10, 30), c(0.1, 10, 35))
  P <- 1e-4 * rbind(c(3689, 1170, 2673), c(4699, 4387, 7470), c(1091, 8732, 5547), c(381, 5743, 8828))
  X <- as.matrix(hartmann)
  hartmann$y <- -drop(sapply(1:4, function(i) exp(-colSums(A[i, ] * (t(X) - P[i, ])^2))) %*% c(1, 1.2, 3, 3.2))
  wing <- design(list(Sw = c(150, 200), Wfw = c(220, 300), A = c(6, 10), L = c(-10, 10), q = c(16, 45),
                      lambda = c(0.5, 1), tc = c(0.08, 0.18), Nz = c(2.5, 6), Wdg = c(1700, 2500), Wp = c(0.025, 0.08)), 16)
  wing$y <- with(wing, {
    c2 <- cos(L * pi / 180)^2
    0.036 * Sw^0.758 * Wfw^0.0035 * (A / c2)^0.6 * q^0.006 * lambda^0.04 * (100 * tc / sqrt(c2))^-0.3 * (Nz * Wdg)^0.49 +
      Sw * Wp
  })
  list(borehole = list(data = borehole, formula = y ~ .), piston = list(data = piston, formula = y ~ .),
       OTL = list(data = otl, formula = y ~ .), branin = list(data = branin, formula = y ~ .),
       hartmann3 = list(data = hartmann, formula = y ~ .), wingweight = list(data = wing, formula = y ~ .))
}
