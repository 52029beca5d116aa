"""Browser fixtures: one headless Debian Chromium per module, driven by Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from lab_harness import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    playwright_api = pytest.importorskip("playwright.sync_api")
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (scripts/install.sh installs it with apt)")
    ARTIFACTS.mkdir(exist_ok=True)
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()
