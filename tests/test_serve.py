"""The local server the browser tests, screenshots and the Lighthouse audit use sends
text gzip-compressed to clients that accept it, as a static host does."""

from __future__ import annotations

import gzip
import urllib.request

from browser_support import serve


def _get(url: str, accept_gzip: bool):
    request = urllib.request.Request(
        url, headers={"Accept-Encoding": "gzip"} if accept_gzip else {}
    )
    with urllib.request.urlopen(request) as response:
        return response.headers, response.read()


def test_text_is_sent_gzipped_when_accepted_and_plain_otherwise(tmp_path):
    page = "<!doctype html><p>" + "positional encoding " * 200 + "</p>"
    (tmp_path / "index.html").write_text(page)
    (tmp_path / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(300))
    server, base = serve(tmp_path)
    try:
        headers, body = _get(base + "index.html", accept_gzip=True)
        assert headers["Content-Encoding"] == "gzip"
        assert int(headers["Content-Length"]) == len(body) < len(page)
        assert gzip.decompress(body).decode() == page
        headers, body = _get(base + "index.html", accept_gzip=False)
        assert headers["Content-Encoding"] is None and body.decode() == page
        headers, body = _get(base, accept_gzip=True)  # a directory's index.html
        assert headers["Content-Encoding"] == "gzip" and gzip.decompress(body).decode() == page
        headers, _ = _get(base + "image.png", accept_gzip=True)  # already compressed
        assert headers["Content-Encoding"] is None
    finally:
        server.shutdown()
        server.server_close()
