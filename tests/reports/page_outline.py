"""The report page read as an operator reads it: its tables, links, anchors and charts,
from the HTML the page holds or the DOM a browser built from it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = frozenset({"meta", "br", "hr", "img", "input", "link", "col", "wbr"})


@dataclass
class Table:
    name: str
    within: str | None
    """The id of the nearest element around it that has one."""
    rows: list[list[str]] = field(default_factory=list)


@dataclass
class Outline:
    ids: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    text_within: dict[str, str] = field(default_factory=dict)
    """Every element with an id, and the text inside it."""
    titles: dict[str, str] = field(default_factory=dict)
    """Each `<abbr>`'s text and its title: the explanation a reader gets."""

    def table(self, name: str, within: str | None = None) -> list[list[str]]:
        [found] = [t for t in self.tables if t.name == name and t.within == within]
        return found.rows


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.outline = Outline()
        self.open: list[tuple[str, str | None]] = []
        self.table: Table | None = None
        self.cell: list[str] | None = None
        self.abbr: tuple[str, list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "svg" or self._in_chart():
            self.open.append((tag, None))
            return
        identifier = attributes.get("id")
        if identifier is not None:
            self.outline.ids.append(identifier)
            self.outline.text_within[identifier] = ""
        if tag == "a" and attributes.get("href"):
            self.outline.links.append(str(attributes["href"]))
        if tag == "table":
            self.table = Table(str(attributes.get("data-table")), self._within())
            self.outline.tables.append(self.table)
        elif tag == "tr" and self.table is not None:
            self.table.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "abbr":
            self.abbr = (str(attributes.get("title")), [])
        if tag not in VOID:
            self.open.append((tag, identifier))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        while self.open:
            name, _ = self.open.pop()
            if name == tag:
                break
        if tag == "svg" or self._in_chart():
            return
        if tag in ("td", "th") and self.cell is not None and self.table is not None:
            self.table.rows[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "table":
            self.table = None
        elif tag == "abbr" and self.abbr is not None:
            title, text = self.abbr
            self.outline.titles["".join(text).strip()] = title
            self.abbr = None

    def handle_data(self, data: str) -> None:
        if self._in_chart():
            return
        if self.cell is not None:
            self.cell.append(data)
        if self.abbr is not None:
            self.abbr[1].append(data)
        for _, identifier in self.open:
            if identifier is not None:
                self.outline.text_within[identifier] += data

    def _in_chart(self) -> bool:
        return any(name == "svg" for name, _ in self.open)

    def _within(self) -> str | None:
        return next((i for _, i in reversed(self.open) if i is not None), None)


def outline(page: str) -> Outline:
    reader = _Reader()
    reader.feed(page)
    reader.close()
    return reader.outline


def charts(page: str) -> dict[str, str]:
    """Each chart's SVG, by the name the page gives its figure."""
    return dict(re.findall(r'<figure data-chart="(\w+)">(.*?)</figure>', page, re.DOTALL))


def axis_labels(svg: str) -> list[str]:
    """The labels along a chart's vertical axis."""
    [axis] = re.findall(r'<g class="axis y[^"]*">((?:<g class="guides">.*?</g>)*)</g>', svg, re.S)
    return re.findall(r"<text[^>]*>([^<]*)</text>", axis)


def printed_values(svg: str) -> list[str]:
    """The values written on a chart's bars."""
    return re.findall(r'<text[^>]*class="value"[^>]*>([^<]*)</text>', svg)


def series_colours(svg: str) -> dict[str, str]:
    """Each series (by its legend's text) and the colour it is drawn in."""
    colours = dict(re.findall(r"\.(color-\d+)[^{]*\{stroke:([^;]+);fill:", svg))
    legend = re.findall(r'class="(color-\d+) reactive"\s*/>\s*<text[^>]*>([^<]*)</text>', svg)
    return {name: colours[colour].lower() for colour, name in legend}
