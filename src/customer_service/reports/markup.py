"""The report page's pieces of HTML: tables, plain names with their explanation, times.

Every text from a report is escaped here; `Safe` marks markup built here, which is put
on the page as it is.
"""

from __future__ import annotations

import html
from datetime import datetime

from customer_service.reports.names import Name, name_of


class Safe(str):
    """HTML built by the page itself, put in a table as it is."""


Cell = str | Safe


def _cell(tag: str, value: Cell) -> str:
    if isinstance(value, Safe):
        return f"<{tag}>{value}</{tag}>"
    number = tag == "td" and (value[:1].isdigit() or value[:1] == "$")
    return (
        f'<{tag} class="n">{html.escape(value)}</{tag}>'
        if number
        else (f"<{tag}>{html.escape(value)}</{tag}>")
    )


def table(name: str, headers: list[Cell], rows: list[list[Cell]]) -> str:
    """A table the page names (`data-table`); numbers right-aligned."""
    head = "".join(_cell("th", cell) for cell in headers)
    body = "".join("<tr>" + "".join(_cell("td", cell) for cell in row) + "</tr>" for row in rows)
    return f'<table data-table="{html.escape(name)}"><tr>{head}</tr>{body}</table>'


def link(anchor: str, text: str) -> Safe:
    return Safe(f'<a href="#{html.escape(anchor)}">{html.escape(text)}</a>')


class Vocabulary:
    """The plain names the page shows (`names`), each recorded as it is used, for the
    list of names at the end of the page."""

    def __init__(self) -> None:
        self.used: dict[str, Name] = {}

    def label(self, name: str) -> str:
        self.used.setdefault(name, name_of(name))
        return self.used[name].label

    def cell(self, name: str) -> Safe:
        """The plain name, with its explanation where a reader hovers or long-presses."""
        label = html.escape(self.label(name))
        explanation = self.used[name].explanation
        if explanation is None:
            return Safe(label)
        return Safe(f'<abbr title="{html.escape(explanation)}">{label}</abbr>')

    def glossary(self) -> str:
        rows: list[list[Cell]] = [
            [entry.label, Safe(f"<code>{html.escape(name)}</code>"), entry.explanation or ""]
            for name, entry in self.used.items()
        ]
        return (
            '<section id="names"><h2>What the names mean</h2>'
            "<p>The call reports (and <code>report DIR</code> without <code>--html</code>) "
            "use the names in the middle column.</p>"
            + table("names", ["Name", "In the reports", "Meaning"], rows)
            + "</section>"
        )


def when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def duration(seconds: float | None) -> str:
    """ "42 s", "3 min 10 s", "1 h 05 min"; "-" when the report does not say."""
    if seconds is None:
        return "-"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"
