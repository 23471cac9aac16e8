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
