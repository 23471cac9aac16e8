# The pkgdown site that `make site` builds into docs/ reads offline. What is
# checked: (1) in the HTML of every page, no stylesheet, script, image,
# frame or icon comes from another host (http(s)://, //host or file://),
# and every local file a page loads or links to exists; the local
# stylesheets fetch nothing from another host either (url(), @import);
# (2) headless Chromium loads the home page, the reference index, rvm's page
# and the user's guide to their titles, and the site's script has run
# (it fills the "On this page" list). Not checked: what a page requests at
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
