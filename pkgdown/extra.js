// What the offline site keeps of pkgdown.js (whose first lines call
// headroom.js and bootstrap-toc from a CDN): the "On this page" list of a
// page's sections, and Bootstrap's scrollspy over it.
document.addEventListener("DOMContentLoaded", function () {
  var toc = document.getElementById("toc");
  if (!toc) return;
  var list = document.createElement("ul");
  list.className = "nav nav-pills flex-column";
  document.querySelectorAll("main h2[id], main h3[id], main .section > h2, main .section > h3").forEach(function (h) {
    var id = h.id || (h.parentElement && h.parentElement.id);
    if (!id || h.hasAttribute("data-toc-skip")) return;
    var a = document.createElement("a");
    a.className = "nav-link" + (h.tagName === "H3" ? " ms-3" : "");
    a.href = "#" + id;
    a.textContent = h.textContent.replace(/\s+/g, " ").trim();
    var li = document.createElement("li");
    li.appendChild(a);
    list.appendChild(li);
  });
  if (!list.children.length) return;
  toc.appendChild(list);
  if (window.bootstrap && bootstrap.ScrollSpy) new bootstrap.ScrollSpy(document.body, { target: "#toc", offset: 80 });
});

// The search box, offline. pkgdown's own search fetches search.json (which
// a browser refuses from file://) and runs fuse.js and autocomplete.js from
// a CDN. Here tools/build-site.R writes the index as a script,
// search-index.js, and ships Debian's lunr.js beside it; both load when the
// box is first used. A page opened with ?q=words (what Enter in the box
// opens) shows the results for those words.
(function () {
  var root = document.currentScript.src.replace(/extra\.js([?#].*)?$/, "");
  var docs = null, index = null, waiting = [];
  function load(src, done) {
    var s = document.createElement("script");
    s.src = root + src;
    s.onload = done;
    s.onerror = function () { console.error("sparsebayes site: could not load " + src); };
    document.head.appendChild(s);
  }
  function ready(callback) {
    if (index) return callback();
    waiting.push(callback);
    if (waiting.length > 1) return;
    load("lunr.min.js", function () {
      load("search-index.js", function () {
        docs = window.sbSearchIndex;
        index = lunr(function () {
          this.ref("i");
          this.field("what", { boost: 10 });
          this.field("title", { boost: 5 });
          this.field("previous_headings", { boost: 2 });
          this.field("text");
          this.field("code");
          var self = this;
          docs.forEach(function (d, i) {
            self.add({ i: i, what: d.what, title: d.title, previous_headings: d.previous_headings,
                       text: d.text, code: d.code });
          });
        });
        waiting.forEach(function (f) { f(); });
        waiting = [];
      });
    });
  }
  // Each word of the query as typed, matched whole (boosted) or as a prefix;
  // the query is not lunr's syntax, so "x:y" or "a*" cannot throw.
  function search(text) {
    var words = lunr.tokenizer(text).map(String).filter(function (w) { return w.length > 1; });
    if (!words.length) return [];
    var perPage = {};
    return index.query(function (q) {
      words.forEach(function (w) {
        q.term(w, { boost: 10 });
        q.term(w, { wildcard: lunr.Query.wildcard.TRAILING, usePipeline: false, boost: 1 });
      });
    }).map(function (r) { return docs[+r.ref]; }).filter(function (d) {
      // at most two sections of a page, so that one topic's Usage, Arguments
      // and Value do not fill the list
      perPage[d.path] = (perPage[d.path] || 0) + 1;
      return perPage[d.path] <= 2;
    }).slice(0, 12);
  }
  function href(d) {
    return root + d.path.replace(/^\//, "") + (d.id ? "#" + d.id : "");
  }
  function show(input, list, text) {
    list.innerHTML = "";
    var found = search(text);
    if (!found.length) {
      var none = document.createElement("li");
      none.className = "sb-search-none";
      none.textContent = "No results for \u201c" + text + "\u201d";
      list.appendChild(none);
    }
    found.forEach(function (d) {
      var li = document.createElement("li"), a = document.createElement("a");
      a.href = href(d);
      var where = document.createElement("span");
      where.className = "sb-search-where";
      where.textContent = (d.dir ? d.dir + " \u203a " : "") + d.title;
      var what = document.createElement("span");
      what.className = "sb-search-what";
      what.textContent = d.what === d.title ? "" : (d.previous_headings ? d.previous_headings + " \u203a " : "") + d.what;
      a.appendChild(where);
      a.appendChild(what);
      li.appendChild(a);
      list.appendChild(li);
    });
    list.hidden = false;
  }
  document.addEventListener("DOMContentLoaded", function () {
    var input = document.getElementById("search-input");
    if (!input) return;
    var form = input.closest("form");
    form.classList.add("sb-search");
    var list = document.createElement("ul");
    list.id = "sb-search-results";
    list.hidden = true;
    form.appendChild(list);
    input.addEventListener("focus", function () { ready(function () {}); });
    input.addEventListener("input", function () {
      var text = input.value.trim();
      if (text.length < 2) { list.hidden = true; return; }
      ready(function () { if (input.value.trim() === text) show(input, list, text); });
    });
    input.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { list.hidden = true; input.blur(); }
    });
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var first = list.querySelector("a");
      if (first && !list.hidden) window.location.href = first.href;
    });
    document.addEventListener("click", function (e) { if (!form.contains(e.target)) list.hidden = true; });
    var q = new URLSearchParams(window.location.search).get("q");
    if (q) {
      input.value = q;
      ready(function () { show(input, list, q.trim()); });
    }
  });
})();
