# Legends off the data, shared by every plot method.
#
# A plot with a legend reserves a band above its data by raising the upper y
# limit, and draws the legend in that band, centred, in one row (or in as
# few rows as fit the width of the plot). par() is left alone, so lines or
# points a user adds afterwards land where they should; the band holds
# nothing but the legend, whatever the data.
#
#   ylim <- legend_space(range(y), labels)      # before plot()
#   graphics::plot(x, y, ylim = ylim, ...)
#   draw_legend(ylim, labels, col = ..., ...)   # after
#
# `labels = NULL` (a plot drawn with `legend = FALSE`) reserves nothing and
# draws nothing.

# The y limits with room for a legend of `labels` above `ylim`, for the plot
# region about to be drawn (par("pin") of the current layout). On a log
# axis (`log = TRUE`) the room is taken in log10 units. Attributes: "ncol"
# (legend columns) and "data_top" (the upper limit of the data, below the
# band).
legend_space <- function(ylim, labels, log = FALSE, cex = 0.8) {
  ylim <- range(ylim, finite = TRUE)
  if (!length(labels)) return(structure(ylim, ncol = 0L, data_top = ylim[2L]))
  size <- cex * graphics::par("cex")                       # legend's and strwidth's cex are relative
  cw <- graphics::par("cin")[1L] * size                    # character width, inches
  # as graphics::legend() spaces them: text, the gap draw_legend() adds,
  # and the symbol with its spacing
  item <- graphics::strwidth(labels, units = "inches", cex = cex) + graphics::strwidth("m", units = "inches", cex = cex) +
    3.5 * cw
  avail <- graphics::par("pin")[1L]
  n <- length(labels)
  ncol <- n
  width <- function(k) if (k == n) sum(item) else k * max(item)
  while (ncol > 1L && width(ncol) > avail) ncol <- ncol - 1L
  rows <- ceiling(n / ncol)
  # the legend's rows and half a line above and below, and room for the
  # largest symbols drawn at the top of the data
  f <- min(0.45, ((rows + 1) * graphics::par("cin")[2L] * size + 0.1) / graphics::par("pin")[2L])
  lim <- if (log) log10(ylim) else ylim
  r <- diff(lim)
  if (!is.finite(r) || r <= 0) r <- max(abs(lim[2L]) * 0.1, 1)
  # With the default 4% axis extension on each side, raising the top by e
  # leaves a fraction f of the region above the data when
  # e + 0.04 (r + e) = 1.08 f (r + e).
  e <- max(0, r * (1.08 * f - 0.04) / (1.04 - 1.08 * f))
  top <- lim[2L] + e
  structure(c(ylim[1L], if (log) 10^top else top), ncol = ncol, data_top = ylim[2L])
}

# Draws the legend of `labels` in the band reserved by legend_space();
# `...` are graphics::legend() arguments (col, pch, lty, lwd, ...).
draw_legend <- function(space, labels, cex = 0.8, ...) {
  ncol <- attr(space, "ncol")
  if (!length(labels) || !length(ncol) || ncol == 0L) return(invisible(NULL))
  if (ncol == length(labels))  # one row: each entry as wide as its own text, a character apart
    graphics::legend("top", legend = labels, horiz = TRUE, bty = "n", cex = cex, xpd = NA,
                     text.width = graphics::strwidth(labels, cex = cex) + graphics::strwidth("m", cex = cex), ...)
  else graphics::legend("top", legend = labels, ncol = ncol, bty = "n", cex = cex, xpd = NA,
                        text.width = max(graphics::strwidth(labels, cex = cex)) + graphics::strwidth("m", cex = cex), ...)
  invisible(NULL)
}

# A second title line under `main`, in plain words, smaller (and smaller
# still if it would not fit the width of the figure).
subtitle <- function(text) {
  if (!length(text) || !nzchar(text)) return(invisible(NULL))
  fit <- title_room() / graphics::strwidth(text, units = "inches", cex = 0.8)
  graphics::mtext(text, side = 3L, line = 0.35, cex = min(0.8, 0.8 * fit) * graphics::par("cex"))
}

# par(cex.main) for panels titled `main`: the default 1.2, shrunk so that
# the longest title fits the figure of the current layout.
title_cex <- function(main) {
  main <- main[nzchar(main)]
  if (!length(main)) return(1.2)
  width <- max(graphics::strwidth(main, units = "inches", cex = 1.2, font = 2L))
  min(1.2, 1.2 * title_room() / width)
}

# Width (inches) a title centred over the plot region has before it leaves
# the figure on its narrower side.
title_room <- function() {
  mai <- graphics::par("mai")
  0.97 * (graphics::par("pin")[1L] + 2 * min(mai[2L], mai[4L]))
}
