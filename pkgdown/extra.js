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
