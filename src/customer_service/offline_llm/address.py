"""Reading a postal address said in one line: "street, [unit,] city, region postcode[, country]"."""

from __future__ import annotations

import re
from dataclasses import dataclass

from customer_service.offline_llm.fields import (
    Span,
    find_alphanumeric_postcodes,
    find_number_runs,
)

__all__ = ["SpokenAddress", "parse_address"]

_LEAD_IN = re.compile(
    r"^(?:(?:yes|yeah|no|nope|ok|okay|sure|so|well|actually)\b[,.!]?\s*)*"
    r"(?:(?:(?:my|the|our)\s+)?(?:new\s+)?address\s+(?:is|will be)\b:?|address:|"
    r"it(?:'|\u2019)?s|it is|it should be|that(?:'|\u2019)?s|that is|"
    r"(?:please\s+)?(?:ship|send|deliver)(?:\s+it)?\s+to|change it to)?\s*",
    re.IGNORECASE,
)
_UNIT = re.compile(
    r"^(?:apt|apartment|unit|suite|ste|flat|floor|fl|room|rm|building|bldg)\b\.?|^#\s*\w+",
    re.IGNORECASE,
)
_STATE_CODE = re.compile(r"^(?P<city>.+?)\s+(?P<region>[A-Z]{2})$")
_CANADIAN = re.compile(r"^[a-z]\d[a-z]", re.IGNORECASE)
_COUNTRIES = {
    "us": "US",
    "usa": "US",
    "u.s.": "US",
    "u.s.a.": "US",
    "united states": "US",
    "united states of america": "US",
    "america": "US",
    "uk": "GB",
    "u.k.": "GB",
    "gb": "GB",
    "united kingdom": "GB",
    "great britain": "GB",
    "britain": "GB",
    "england": "GB",
    "scotland": "GB",
    "wales": "GB",
    "northern ireland": "GB",
    "canada": "CA",
    "spain": "ES",
    "españa": "ES",
    "espana": "ES",
    "mexico": "MX",
    "méxico": "MX",
    "france": "FR",
    "germany": "DE",
    "ireland": "IE",
}


@dataclass(frozen=True)
class SpokenAddress:
    """An address as the caller said it, split into the tool's fields."""

    street: str
    city: str
    region: str
    postal_code: str
    country: str
    unit: str | None = None

    def arguments(self) -> dict[str, object]:
        """The `record_address` arguments (`unit` only when said)."""
        arguments: dict[str, object] = {
            "street": self.street,
            "city": self.city,
            "region": self.region,
            "postal_code": self.postal_code,
            "country": self.country,
        }
        if self.unit:
            arguments["unit"] = self.unit
        return arguments


def _postcode_in(segment: str) -> Span | None:
    codes = find_alphanumeric_postcodes(segment)
    zips = [
        run.span
        for run in find_number_runs(segment)
        if len(run.digits) == 5 or run.is_zip_plus_four
    ]
    return max([*codes, *zips], key=lambda span: span.start, default=None)


def _country(said: str | None, postcode: str) -> str:
    if said:
        key = " ".join(said.lower().split())
        return _COUNTRIES.get(key, said.upper() if len(said) == 2 else said)
    # Not said: infer it from an alphanumeric postcode, else the demo's home country.
    if find_alphanumeric_postcodes(postcode):
        return "CA" if _CANADIAN.match(postcode) else "GB"
    return "US"


def parse_address(line: str) -> SpokenAddress | None:
    """The address in `line`, or None unless it has at least a street, a city and a
    postcode, separated by commas."""
    text = _LEAD_IN.sub("", line.strip(), count=1).rstrip(" .!")
    segments = [segment.strip() for segment in text.split(",") if segment.strip()]
    # The last segment with a postcode; the street comes before it, so never the first.
    found = next(
        (
            (index, code)
            for index in range(len(segments) - 1, 0, -1)
            if (code := _postcode_in(segments[index])) is not None
        ),
        None,
    )
    if found is None:
        return None
    index, code = found
    with_code = segments[index]
    before_code = with_code[: code.start].strip()
    after_code = with_code[code.end :].strip() or None
    later = segments[index + 1 :]
    country = _country(after_code or (later[0] if later else None), code.text)

    street, *rest = segments[:index]
    unit = rest.pop(0) if len(rest) > 1 and _UNIT.match(rest[0]) else None
    region = before_code
    if not region and len(rest) >= 2:
        region = rest.pop()
    city = ", ".join(rest)
    if not city and (state := _STATE_CODE.match(region)) is not None:
        # "San Francisco CA 94105" said as one segment.
        city, region = state.group("city"), state.group("region")
    elif not city:
        city, region = region, ""
    if not city or not re.search(r"[^\W\d_]", street):
        return None
    return SpokenAddress(
        street=street,
        city=city,
        region=region,
        postal_code=code.text,
        country=country,
        unit=unit,
    )
