"""`report DIR --html FILE`: one self-contained page, opened in a real headless browser."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from reports_folder import write_reports

from customer_service.reports.command import main

BROWSER_REQUIRED = os.environ.get("CI") == "true" or bool(os.environ.get("REQUIRE_BROWSER_TESTS"))
CHARTS = ("outcomes", "delegations", "latency", "cost")


def browser() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        reason = (
            "chromium is not installed (Debian: apt-get install --no-install-recommends "
            "chromium), so the report page cannot be opened in a browser"
        )
        if BROWSER_REQUIRED:
            pytest.fail(f"{reason}; CI and REQUIRE_BROWSER_TESTS need it")
        pytest.skip(reason)
    return found


def rendered_dom(page: Path, profile: Path) -> str:
    """The page's DOM as headless chromium built it, with the network out of reach."""
    result = subprocess.run(
        [
            browser(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            # Any name the page tried to resolve would fail: it must need none.
            "--host-resolver-rules=MAP * ~NOTFOUND",
            f"--user-data-dir={profile}",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_the_page_has_no_network_reference(tmp_path: Path) -> None:
    page = tmp_path / "summary.html"
    assert main([str(write_reports(tmp_path / "reports")), "--html", str(page)]) == 0
    text = page.read_text()
    assert not re.search(r"https?:|//[\w.-]+\.\w+/|<script|<link|@import|src=", text)


def test_the_page_renders_its_charts_in_a_headless_browser(tmp_path: Path) -> None:
    page = tmp_path / "summary.html"
    assert main([str(write_reports(tmp_path / "reports")), "--html", str(page)]) == 0
    dom = rendered_dom(page, tmp_path / "profile")
    figures = re.findall(r'<figure data-chart="(\w+)">(.*?)</figure>', dom, re.DOTALL)
    assert [name for name, _ in figures] == list(CHARTS)
    charts = dict(figures)
    for name, svg in charts.items():
        assert svg.startswith("<svg"), name
        assert "<rect" in svg or "<path" in svg, name
    # The data is in the charts: series names, labels and values.
    assert "resolved" in charts["outcomes"]
    assert "locked" in charts["outcomes"]
    assert "verify_identity_task" in charts["delegations"]
    assert "address_update_task" in charts["delegations"]
    assert ">0.3<" in charts["latency"]
    assert ">30<" in charts["latency"]
    assert "openai/gpt-4.1-mini" in charts["cost"]
    assert ">0.875<" in charts["cost"]
    # And the tables beside them.
    assert "<h1>Call reports: 3 calls</h1>" in dom
    assert "Estimated cost: $0.8750" in dom
