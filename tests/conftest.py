import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


# --- shared by the browser tests (test_browser.py, test_interactive.py) ---------------------
# One Chromium per test run: Playwright's sync API allows one instance per thread at a time.


@pytest.fixture(scope="session")
def site():
    """The built book (built once per run, or PE_SITE)."""
    from browser_support import built_site

    return built_site()


@pytest.fixture(scope="session")
def browser():
    from browser_support import CHROMIUM, CHROMIUM_ARGS, browser_missing
    from playwright.sync_api import sync_playwright

    if browser_missing():
        pytest.skip(f"browser tests: {browser_missing()}")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def server(site):
    """The built book served on 127.0.0.1: its base URL."""
    from browser_support import serve

    httpd, base = serve(site)
    yield base
    httpd.shutdown()
    httpd.server_close()
