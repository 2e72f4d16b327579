/* Small accessibility fixes to what the theme's script builds at run time
 * (checked by axe-core in the browser tests): the search dialog gets a name,
 * each code block's action bar a distinct label, tables, formulas and outputs
 * that scroll sideways become reachable from the keyboard, and links made of a
 * formula alone get the formula's text as their name.
 */
(function () {
  "use strict";

  function label() {
    const search = document.querySelector(".md-search[role=dialog]");
    if (search && !search.hasAttribute("aria-label")) search.setAttribute("aria-label", "Search");

    document.querySelectorAll(".md-code__nav").forEach((nav, n) => {
      const name = `Code block ${n + 1} actions`;
      if (nav.getAttribute("aria-label") !== name) nav.setAttribute("aria-label", name);
    });

    const wide = ".md-typeset__scrollwrap, .md-typeset div.arithmatex, " +
      ".md-typeset .jp-OutputArea pre, .md-typeset .jp-RenderedImage";
    document.querySelectorAll(wide).forEach((box, n) => {
      if (box.hasAttribute("tabindex") || box.scrollWidth <= box.clientWidth) return;
      const what = box.matches(".md-typeset__scrollwrap") ? "Table" :
        box.matches(".arithmatex") ? "Formula" :
        box.matches(".jp-RenderedImage") ? "Plot" : "Output";
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", `${what} ${n + 1}, scrolls sideways`);
    });

    // A link whose whole text is a formula (a symbol linked to the glossary) is
    // named by the formula's text, so that it has a name for assistive technology.
    document.querySelectorAll(".md-typeset a:not([aria-label])").forEach((link) => {
      const math = link.querySelector("math");
      if (math && link.textContent.trim() === math.textContent.trim()) {
        link.setAttribute("aria-label", math.textContent.trim());
      }
    });
  }

  // The theme adds and replaces nodes in bursts (code buttons, search results, the
  // one-page book's contents): label once per frame, not once per change, since each
  // pass measures which boxes scroll.
  let queued = false;
  const later = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      label();
    });
  };
  const start = () => {
    label();
    new MutationObserver(later).observe(document.body, { childList: true, subtree: true });
  };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
