# Builds the pkgdown site into docs/ from the installed package, offline
# (`make site`), then makes it read offline from file:// as it does from a
# server:
# 1. Search. pkgdown's search fetches search.json (a browser refuses that
#    from file://) and runs fuse.js and autocomplete.js from a CDN. Here the
#    index is written as a script, search-index.js, and searched with lunr.js
#    (Debian's libjs-lunr, which `make site` installs) by pkgdown/extra.js.
# 2. Stray files. pkgdown 2.0 runs each topic's examples on a ragg PNG
#    device opened with the default file name, Rplot%03d.png, in
#    docs/reference: every page an example draws is written there too
#    (plot.sb_ard's six pages left Rplot002-006), and a device closed with
#    no page left a blank Rplot001.png. The figures pkgdown links are saved
#    separately (topic-N.png), so the Rplot files are removed, as is
#    pkgdown.js, which the offline head does not load
#    (pkgdown/templates/head.html). Then every file in docs/ must be
#    reached from the home page by what the pages load or link, or be one
#    of the files read by scripts or tools (below): the build fails naming
#    any other.
# Usage: Rscript tools/build-site.R [lunr.js], from the source tree.
start <- Sys.time()
args <- commandArgs(TRUE)
lunr <- c(args, "/usr/share/javascript/lunr/lunr.min.js", "/usr/share/javascript/lunr/lunr.js")
lunr <- lunr[file.exists(lunr)][1L]
if (is.na(lunr))
  stop("the site's offline search needs lunr.js: apt-get install libjs-lunr (make site does), or give its path: ",
       "Rscript tools/build-site.R path/to/lunr.min.js", call. = FALSE)

options(pkgdown.internet = FALSE)
pkgdown::build_site(devel = FALSE, install = FALSE, new_process = FALSE, preview = FALSE)
docs <- "docs"

# 1. the search index as a script, and lunr beside it
index <- jsonlite::read_json(file.path(docs, "search.json"))
index <- Filter(function(e) is.character(e$path) && length(e$path) == 1L, index)
writeLines(c("// The site's search index (search.json), as a script a page can load from file://.",
             paste0("window.sbSearchIndex = ", jsonlite::toJSON(index, auto_unbox = TRUE, null = "null"), ";")),
           file.path(docs, "search-index.js"))
stopifnot(file.copy(lunr, file.path(docs, "lunr.min.js"), overwrite = TRUE))

# 2. no stray files
unlink(c(list.files(file.path(docs, "reference"), "^Rplot[0-9]+[.]png$", full.names = TRUE),
         file.path(docs, "pkgdown.js")))
# read by scripts and tools, or pkgdown's pages reached by their address
# (404.html, the index of articles), and the libraries bslib copies whole
# (their source maps and unminified copies)
read_by_scripts <- c("search.json", "search-index.js", "lunr.min.js", "sitemap.xml", "pkgdown.yml", "404.html",
                     "articles/index.html")
reached <- character(0)
todo <- "index.html"
while (length(todo)) {
  page <- todo[1L]
  todo <- todo[-1L]
  if (page %in% reached || !file.exists(file.path(docs, page))) next
  reached <- c(reached, page)
  if (grepl("[.]html$", page)) {
    html <- xml2::read_html(file.path(docs, page))
    refs <- xml2::xml_attr(xml2::xml_find_all(html, "//*[@href or @src]"), "href")
    refs <- c(refs, xml2::xml_attr(xml2::xml_find_all(html, "//*[@src]"), "src"))
  } else if (grepl("[.]css$", page)) {
    css <- paste(readLines(file.path(docs, page), warn = FALSE), collapse = "\n")
    refs <- gsub("^url\\(\\s*['\"]?|['\"]?\\s*\\)$", "", regmatches(css, gregexpr("url\\([^)]*\\)", css))[[1L]])
  } else next
  refs <- refs[!is.na(refs) & !grepl("^([a-z]+:|//|#)", refs)]
  refs <- unique(sub("[?#].*$", "", refs))
  refs <- refs[nzchar(refs)]
  refs <- vapply(refs, function(r) {
    parts <- strsplit(file.path(dirname(page), utils::URLdecode(r)), "/", fixed = TRUE)[[1L]]
    out <- character(0)
    for (p in parts[parts != "."]) out <- if (p == "..") utils::head(out, -1L) else c(out, p)
    paste(out, collapse = "/")
  }, "")
  todo <- c(todo, setdiff(refs, reached))
}
files <- list.files(docs, recursive = TRUE, all.files = TRUE)
stray <- setdiff(files, c(reached, read_by_scripts, grep("^deps/", files, value = TRUE)))
if (length(stray))
  stop("files in docs/ that no page loads or links:\n  ", paste(stray, collapse = "\n  "), call. = FALSE)
cat(sprintf("site built in docs/ in %.0f s: %d files, every one reached from index.html or read by its scripts\n",
            as.numeric(difftime(Sys.time(), start, units = "secs")), length(files)))
