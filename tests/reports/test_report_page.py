"""`report DIR --html FILE`: one self-contained page an operator reads, opened in a real
headless browser; what it holds is also checked in its HTML, with or without a browser."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from page_outline import axis_labels, charts, outline, printed_values, series_colours
from reports_folder import REPORTS, report, turn, write_reports

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


def written_page(directory: Path) -> str:
    page = directory.parent / "summary.html"
    assert main([str(directory), "--html", str(page)]) == 0
    return page.read_text()


def unpriced(**amounts: Any) -> dict[str, Any]:
    """A model the price table has no entry for."""
    return {"kind": "llm", "provider": "acme", "model": "unknown", "cost_usd": None, **amounts}


def test_the_page_has_no_network_reference(tmp_path: Path) -> None:
    text = written_page(write_reports(tmp_path / "reports"))
    assert not re.search(r"https?:|//[\w.-]+\.\w+/|<script|<link|@import|src=", text)


def test_the_page_opens_with_the_first_and_last_calls_start(tmp_path: Path) -> None:
    page = outline(written_page(write_reports(tmp_path / "reports")))
    assert page.ids[0] == "dates"
    assert page.text_within["dates"] == (
        "Calls started from 2025-03-03 17:45:10 to 2025-03-05 14:02:30 (UTC)."
    )


def test_the_page_lists_every_call_with_a_link_to_its_details(tmp_path: Path) -> None:
    page = outline(written_page(write_reports(tmp_path / "reports")))
    header, *rows = page.table("calls", within="calls")
    assert header == ["Started (UTC)", "Call", "Outcome", "Duration", "Specialists"]
    assert rows == [
        ["2025-03-03 17:45:10", "call-3", "Locked", "42 s", "Identity check"],
        ["2025-03-04 09:15:00", "call-1", "Resolved", "1 min 36 s", "Identity check"],
        [
            "2025-03-05 14:02:30",
            "call-2",
            "Resolved",
            "3 min 10 s",
            "Identity check, Delivery address change",
        ],
    ]
    details = [link.removeprefix("#") for link in page.links if link.startswith("#call-")]
    assert len(details) == 3
    assert all(anchor in page.ids for anchor in details)
    # Each call's section: its specialists' outcomes and its turns' timings.
    first, second, third = details
    assert "call-3" in page.text_within[first]
    assert page.table("specialists", within=first) == [
        ["Specialist", "Outcome", "Time (s)"],
        ["Identity check", "Failed", "6.000"],
    ]
    assert page.table("turns", within=first) == [
        ["Turn", "End of turn", "Model's first token", "Tool calls", "Tool time (s)"],
        ["1", "0.900", "1.000", "0", "-"],
    ]
    assert page.table("turns", within=second) == [
        ["Turn", "End of turn", "Model's first token", "Tool calls", "Tool time (s)"],
        ["1", "0.500", "0.100", "0", "-"],
        ["2", "-", "0.200", "1", "0.700"],
    ]
    assert [row[0] for row in page.table("specialists", within=third)[1:]] == [
        "Identity check",
        "Delivery address change",
    ]


def test_the_page_never_shows_what_the_caller_said(tmp_path: Path) -> None:
    text = written_page(write_reports(tmp_path / "reports"))
    [said] = REPORTS[0]["chat_history"][0]["content"]
    assert said not in text
    assert "card number" not in text


def test_a_call_without_a_start_is_listed_last_and_left_out_of_the_dates(
    tmp_path: Path,
) -> None:
    directory = write_reports(tmp_path / "reports")
    undated = {**REPORTS[0], "call_id": "call-undated"}
    del undated["started_at"], undated["duration_ms"]
    (directory / "call-undated.json").write_text(json.dumps(undated))
    page = outline(written_page(directory))
    assert page.table("calls", within="calls")[-1][:4] == ["-", "call-undated", "Resolved", "-"]
    assert "2025-03-05 14:02:30 (UTC)" in page.text_within["dates"]


def test_every_name_shown_is_a_plain_one_explained_where_it_needs_it(tmp_path: Path) -> None:
    text = written_page(write_reports(tmp_path / "reports"))
    page = outline(text)
    shown = " ".join(
        [
            *(cell for t in page.tables if t.name != "names" for row in t.rows for cell in row),
            *charts(text).values(),
        ]
    )
    raw = ["verify_identity_task", "address_update_task", "llm_ttft_s", "tool_s", "input_tokens"]
    assert [name for name in raw if name in shown] == []
    assert "Identity check" in charts(text)["delegations"]
    assert "Model's first token" in charts(text)["latency"]
    assert "first token" in page.titles["Model's first token"]
    assert "verified" in page.titles["Identity check"]
    # The names the reports and the text summary use, each beside its plain name.
    glossary = page.table("names", within="names")
    assert ["Model's first token", "llm_ttft_s"] in [row[:2] for row in glossary]
    assert ["Identity check", "verify_identity_task"] in [row[:2] for row in glossary]


def test_count_charts_count_in_whole_numbers_and_print_no_zeroes(tmp_path: Path) -> None:
    drawn = charts(written_page(write_reports(tmp_path / "reports")))
    for name, highest in (("outcomes", 2), ("delegations", 3)):
        labels = axis_labels(drawn[name])
        assert all(label.isdigit() for label in labels), (name, labels)
        assert labels[0] == "0"
        assert int(labels[-1]) >= highest, name
        assert "0" not in printed_values(drawn[name]), name


def is_green(colour: str) -> bool:
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return green > 1.3 * max(red, blue)


def is_red(colour: str) -> bool:
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return red > 1.3 * max(green, blue)


def test_outcomes_are_coloured_as_people_read_them(tmp_path: Path) -> None:
    drawn = charts(written_page(write_reports(tmp_path / "reports")))
    calls = series_colours(drawn["outcomes"])
    runs = series_colours(drawn["delegations"])
    assert is_green(calls["Resolved"])
    assert is_green(runs["Completed"])
    assert is_red(runs["Failed"])
    assert not is_green(calls["Locked"])
    assert not is_red(calls["Locked"])


def test_a_model_without_a_price_is_said_not_priced_wherever_a_cost_would_be(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "reports"
    directory.mkdir()
    call = report(
        "call-1",
        "resolved",
        started="2025-03-04 09:15:00",
        duration_s=60,
        turns=[turn(1, llm_ttft_s=0.1)],
        specialists=[],
        usage=[unpriced(input_tokens=100, output_tokens=10)],
    )
    (directory / "call-1.json").write_text(json.dumps(call))
    text = written_page(directory)
    page = outline(text)
    assert "cost" not in charts(text)
    assert "$0.0000" not in text
    assert page.table("usage", within="usage")[1][-1] == "not priced"
    assert "Estimated cost: not priced" in page.text_within["usage"]


def test_beside_priced_models_an_unpriced_one_is_named_and_left_out_of_the_chart(
    tmp_path: Path,
) -> None:
    directory = write_reports(tmp_path / "reports")
    extra = {**REPORTS[0], "call_id": "call-4", "usage": [unpriced(input_tokens=5)]}
    (directory / "call-4.json").write_text(json.dumps(extra))
    text = written_page(directory)
    cost = charts(text)["cost"]
    assert "openai/gpt-4.1-mini" in cost
    assert "acme/unknown" not in cost
    assert (
        "Estimated cost: $0.8750 for the priced models; not priced: acme/unknown"
        in outline(text).text_within["usage"]
    )


def test_the_page_renders_in_a_headless_browser(tmp_path: Path) -> None:
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
    assert "Resolved" in charts["outcomes"]
    assert "Locked" in charts["outcomes"]
    assert "Identity check" in charts["delegations"]
    assert "Delivery address change" in charts["delegations"]
    assert ">0.3<" in charts["latency"]
    assert ">30<" in charts["latency"]
    assert "openai/gpt-4.1-mini" in charts["cost"]
    assert ">0.875<" in charts["cost"]
    # And the tables beside them: the dates, the calls and each call's details.
    assert "<h1>Call reports: 3 calls</h1>" in dom
    assert "Estimated cost: $0.8750" in dom
    shown = outline(dom)
    assert shown.text_within["dates"].startswith("Calls started from 2025-03-03 17:45:10")
    assert len(shown.table("calls", within="calls")) == 4
    details = [link.removeprefix("#") for link in shown.links if link.startswith("#call-")]
    assert len(details) == 3
    assert all(shown.table("turns", within=anchor) for anchor in details)


def test_markup_in_a_report_is_shown_as_text(tmp_path: Path) -> None:
    directory = write_reports(tmp_path / "reports")
    hostile = {
        **REPORTS[0],
        "call_id": '<script src="http://example.com/x.js"></script>',
        "outcome": "<b>resolved</b>",
    }
    hostile["specialists"] = [
        {"specialist": "<img src=x>", "outcome": "completed", "duration_ms": 1}
    ]
    (directory / "call-hostile.json").write_text(json.dumps(hostile))
    text = written_page(directory)
    # Said as text, never a tag or an attribute.
    assert not re.search(r"<script|<img|<b>|<[^>]*(src=|https?:)", text)
    [row] = [row for row in outline(text).table("calls", within="calls") if "x.js" in row[1]]
    assert row[1] == '<script src="http://example.com/x.js"></script>'
