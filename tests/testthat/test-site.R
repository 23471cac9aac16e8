# The pkgdown site that `make site` builds into docs/ reads offline. What is
# checked: (1) in the HTML of every page, no stylesheet, script, image,
# frame or icon comes from another host (http(s)://, //host or file://),
# and every local file a page loads or links to exists; the local
# stylesheets fetch nothing from another host either (url(), @import);
# (2) headless Chromium loads the home page, the reference index, rvm's page
# and the user's guide to their titles, and the site's script has run
# (it fills the "On this page" list); (3) the home page opens with the
# package and its figure, no stray file is left, and the search box finds
# pages offline. Not checked: what a page requests at
# run time beyond its HTML and CSS (Chromium's network log is not read).
# Runs only where the site was built and Chromium is installed.

site_dir <- function() test_path("..", "..", "docs")

skip_without_site <- function() {
  skip_on_cran()
  skip_if_not_installed("xml2")
  skip_if_not(file.exists(file.path(site_dir(), "index.html")), "no built site (make site)")
}

outside <- "^(https?:)?//|^file:"

# The files a page loads (`loads`) and the local pages and files it links to
# (`links`), as written in its HTML.
page_refs <- function(page) {
  html <- xml2::read_html(page)
  attr_of <- function(xpath, attr) xml2::xml_attr(xml2::xml_find_all(html, xpath), attr)
  list(loads = c(attr_of("//link[@href]", "href"), attr_of("//script[@src]", "src"),
                 attr_of("//img[@src]", "src"), attr_of("//iframe[@src]", "src"),
                 attr_of("//source[@src]", "src"), attr_of("//video[@src]", "src")),
       links = attr_of("//a[@href]", "href"))
}

# Local references resolved against the page's folder (fragments and
# queries dropped; data: URIs and mail links are not files).
local_files <- function(page, refs) {
  refs <- refs[!grepl(outside, refs) & !grepl("^(data|mailto|javascript):", refs)]
  refs <- sub("[?#].*$", "", refs)
  refs <- unique(refs[nzchar(refs)])
  file.path(dirname(page), utils::URLdecode(refs))
}

test_that("every page of the site loads only local files, and every local file it names exists", {
  skip_without_site()
  pages <- list.files(site_dir(), pattern = "[.]html$", recursive = TRUE, full.names = TRUE)
  expect_gt(length(pages), 30)       # home, reference topics, articles, news
  for (page in pages) {
    refs <- page_refs(page)
    expect_identical(grep(outside, refs$loads, value = TRUE), character(0), info = page)
    files <- local_files(page, c(refs$loads, refs$links))
    expect_identical(files[!file.exists(files)], character(0), info = page)
  }
  css <- list.files(site_dir(), pattern = "[.]css$", recursive = TRUE, full.names = TRUE)
  expect_gt(length(css), 0)
  for (f in css) {
    text <- paste(readLines(f, warn = FALSE), collapse = "\n")
    expect_false(grepl("url\\(\\s*['\"]?(https?:)?//|@import", text), info = f)
  }
})

test_that("headless Chromium loads the main pages to their titles and runs the site's script", {
  skip_without_site()
  browser <- Sys.which(c("chromium", "chromium-browser", "google-chrome"))
  browser <- browser[nzchar(browser)]
  skip_if(length(browser) == 0L, "no Chromium")
  pages <- c("index.html", "reference/index.html", "reference/rvm.html", "articles/sparsebayes.html")
  titles <- c("sparsebayes", "Function reference", "Relevance vector machine", "A user's guide to sparsebayes")
  for (i in seq_along(pages)) {
    path <- normalizePath(file.path(site_dir(), pages[i]))
    # outside hosts resolve to nothing, so a page cannot lean on them
    dom <- suppressWarnings(system2(browser[1L], c("--headless", "--no-sandbox", "--disable-gpu",
                                                   "--host-resolver-rules='MAP * ~NOTFOUND'",
                                                   "--virtual-time-budget=3000", "--dump-dom",
                                                   shQuote(paste0("file://", path))),
                                    stdout = TRUE, stderr = FALSE))
    dom <- xml2::read_html(paste(dom, collapse = "\n"))
    expect_match(xml2::xml_text(xml2::xml_find_first(dom, "//title")), titles[i], fixed = TRUE, info = pages[i])
    expect_gt(length(xml2::xml_find_all(dom, "//main//p")), 0)
    # extra.js lists the page's sections in the sidebar (absent without JavaScript)
    if (pages[i] != "index.html")
      expect_gt(length(xml2::xml_find_all(dom, "//nav[@id='toc']//a[contains(@class, 'nav-link')]")), 0)
  }
})

test_that("the home page opens with what the package does and its figure, and leaves no stray file", {
  skip_without_site()
  home <- xml2::read_html(file.path(site_dir(), "index.html"))
  main <- xml2::xml_find_first(home, "//main")
  text <- xml2::xml_text(main)
  img <- xml2::xml_find_first(main, ".//img[contains(@src, 'README-fits.png')]")
  expect_false(inherits(img, "xml_missing"))
  expect_true(file.exists(file.path(site_dir(), xml2::xml_attr(img, "src"))))
  # the figure and the install come before the developers' make targets and architecture
  at <- function(pattern) regexpr(pattern, text, fixed = TRUE)[[1L]]
  expect_lt(at("Sparse Bayesian learning"), at("make demo"))
  expect_lt(at("R CMD INSTALL"), at("make demo"))
  expect_lt(at("make demo"), at("Architecture"))
  # pkgdown's example device writes Rplot%03d.png beside the topics: none is left, and every image is shown
  pngs <- list.files(site_dir(), "[.]png$", recursive = TRUE)
  expect_identical(grep("Rplot[0-9]+[.]png$", pngs, value = TRUE), character(0))
  pages <- list.files(site_dir(), pattern = "[.]html$", recursive = TRUE, full.names = TRUE)
  shown <- unlist(lapply(pages, function(p) {
    src <- xml2::xml_attr(xml2::xml_find_all(xml2::read_html(p), "//img[@src]"), "src")
    normalizePath(file.path(dirname(p), src[!grepl(outside, src)]), mustWork = FALSE)
  }))
  expect_identical(setdiff(normalizePath(file.path(site_dir(), pngs)), shown), character(0))
})

test_that("the search box finds pages offline, with the site's own lunr.js and index", {
  skip_without_site()
  expect_true(all(file.exists(file.path(site_dir(), c("lunr.min.js", "search-index.js")))))
  browser <- Sys.which(c("chromium", "chromium-browser", "google-chrome"))
  browser <- browser[nzchar(browser)]
  skip_if(length(browser) == 0L, "no Chromium")
  path <- normalizePath(file.path(site_dir(), "index.html"))
  # ?q= fills the box and opens its results, as typing does
  dom <- suppressWarnings(system2(browser[1L], c("--headless", "--no-sandbox", "--disable-gpu",
                                                 "--host-resolver-rules='MAP * ~NOTFOUND'",
                                                 "--virtual-time-budget=5000", "--dump-dom",
                                                 shQuote(paste0("file://", path, "?q=leverage"))),
                                  stdout = TRUE, stderr = FALSE))
  dom <- xml2::read_html(paste(dom, collapse = "\n"))
  hits <- xml2::xml_attr(xml2::xml_find_all(dom, "//ul[@id='sb-search-results']//a"), "href")
  expect_gt(length(hits), 2)
  expect_true(any(grepl("reference/hatvalues.sparsebayes.html", hits, fixed = TRUE)))
  expect_true(all(startsWith(hits, "file://")))  # local pages, from the site's root
})
