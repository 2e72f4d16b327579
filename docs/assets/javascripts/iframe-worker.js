/* Search when the book is read from disk (file:// URLs).
 *
 * Browsers refuse to start a Web Worker from a file: URL, and the theme runs its
 * search in a worker. On file: pages only, this replaces `Worker` with an object
 * that runs the same worker script in a hidden same-document iframe and passes
 * messages both ways; the search index itself comes from search/search_index.js
 * (written at build time). Served over http(s), nothing here runs.
 */
(function () {
  "use strict";
  if (location.protocol !== "file:") return;

  class FileWorker extends EventTarget {
    constructor(url) {
      super();
      this.queue = [];
      this.ready = false;
      this.frame = document.createElement("iframe");
      this.frame.hidden = true;
      this.frame.setAttribute("aria-hidden", "true");
      this.frame.tabIndex = -1;
      this.frame.title = "search worker";
      (document.body || document.documentElement).appendChild(this.frame);
      const scope = this.frame.contentWindow;
      // The worker script answers with postMessage(data): deliver it here.
      scope.postMessage = (data) =>
        this.dispatchEvent(new MessageEvent("message", { data: structuredClone(data) }));
      const script = scope.document.createElement("script");
      script.src = new URL(url, location.href).href;
      script.onload = () => {
        this.ready = true;
        this.queue.splice(0).forEach((data) => this.postMessage(data));
      };
      script.onerror = () => this.dispatchEvent(new Event("error"));
      scope.document.head.appendChild(script);
    }

    postMessage(data) {
      if (!this.ready) {
        this.queue.push(data);
        return;
      }
      const scope = this.frame.contentWindow;
      scope.dispatchEvent(new scope.MessageEvent("message", { data: structuredClone(data) }));
    }

    terminate() {
      this.frame.remove();
    }
  }

  window.Worker = FileWorker;
})();
