/* Small accessibility fixes to what the theme's script builds at run time
 * (checked by axe-core in the browser tests): the search dialog gets a name,
 * each code block's action bar a distinct label, and tables that scroll
 * sideways become reachable from the keyboard.
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

    document.querySelectorAll(".md-typeset__scrollwrap:not([tabindex])").forEach((wrap, n) => {
      if (wrap.scrollWidth > wrap.clientWidth) {
        wrap.setAttribute("tabindex", "0");
        wrap.setAttribute("role", "region");
        wrap.setAttribute("aria-label", `Table ${n + 1}, scrolls sideways`);
      }
    });
  }

  const start = () => {
    label();
    new MutationObserver(label).observe(document.body, { childList: true, subtree: true });
  };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
