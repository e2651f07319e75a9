"""Reading a postal address said in one line: "street, [unit,] city, region postcode[, country]",
and a correction of one part of it ("the zip is 94105")."""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, replace

from customer_service.addresses import AddressField
from customer_service.addresses.country_rules import country_code, country_rules
from customer_service.offline_llm.fields import (
    Span,
    find_alphanumeric_postcodes,
    find_number_runs,
)
from customer_service.offline_llm.house_numbers import house_number_in_digits
from customer_service.offline_llm.speech import CORRECTION

__all__ = [
    "SpokenAddress",
    "address_in_request",
    "field_in_problem",
    "parse_address",
    "parse_correction",
]

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


def _misshapen_postcode(segments: list[str]) -> tuple[int, Span] | None:
    """A number that ends the last segment (or the one before a closing country) but is
    not shaped like a postcode ("CA 9410"): passed on as said, so the tool can say
    what is wrong with it instead of the caller hearing the whole question again."""
    last = len(segments) - 1
    closing_country = " ".join(segments[last].lower().split()) in _COUNTRIES
    for index in [last - 1] if closing_country else [last]:
        segment = segments[index].rstrip()
        if index < 1 or _UNIT.match(segment):
            continue
        runs = [run for run in find_number_runs(segment) if run.span.end == len(segment)]
        if runs and 3 <= len(runs[-1].digits) <= 10:
            return index, runs[-1].span
    return None


def _names_country(text: str) -> bool:
    return " ".join(text.lower().split()) in _COUNTRIES or country_code(text) is not None


def _country(said: str | None, postcode: str) -> str:
    if said:
        key = " ".join(said.lower().split())
        return _COUNTRIES.get(key, said.upper() if len(said) == 2 else said)
    # Not said: infer it from an alphanumeric postcode, else the demo's home country.
    if find_alphanumeric_postcodes(postcode):
        return "CA" if _CANADIAN.match(postcode) else "GB"
    return "US"


_STREET_END = re.compile(
    r"\b(?:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|way|court|ct|place|pl|"
    r"terrace|square|highway|hwy|parkway|pkwy|circle|cir|crescent|close|row|alley)\b\.?",
    re.IGNORECASE,
)
_UNIT_SAID = re.compile(
    r"\s*((?:apt|apartment|unit|suite|ste|flat|floor|fl|room|rm)\.?\s+#?\w+|#\s*\w+)",
    re.IGNORECASE,
)


def _in_digits(text: str) -> str:
    """`text` with the numbers said in words written in digits: "one market street" ->
    "1 market street", "suite five" -> "suite 5"."""
    for run in reversed(find_number_runs(text)):
        text = text[: run.span.start] + run.digits + text[run.span.end :]
    return text


def _with_pauses(text: str) -> str | None:
    """An address said without a pause ("1 market street suite 5 san francisco
    california 9 4 1 0 5") with its commas put back, or None when its street, house
    number or postcode cannot be told apart."""
    # After a house number and at least one word: "1 St Johns Road" ends at "Road".
    street_end = next(
        (end for end in _STREET_END.finditer(text) if len(text[: end.start()].split()) >= 2),
        None,
    )
    code = _postcode_in(text)
    runs = find_number_runs(text)
    if street_end is None or code is None or not runs or runs[0].span.start != 0:
        return None
    after_code = text[code.end :].strip()
    if after_code and not _names_country(after_code):
        return None
    # Speech-to-text writes in lower case what an envelope capitalises.
    written = string.capwords if text.islower() else str
    unit = _UNIT_SAID.match(text, street_end.end())
    parts = [written(_in_digits(text[: street_end.end()]))]
    if unit is not None:
        parts.append(written(_in_digits(unit.group(1))))
    place = written(text[unit.end() if unit else street_end.end() : code.start]).split()
    rules = country_rules(_country(after_code or None, code.text))
    # The longest run of final words that names a region: "new york", "california".
    region_words = next(
        (n for n in (3, 2, 1) if len(place) > n and rules.region_code(" ".join(place[-n:]))),
        0,
    )
    city = " ".join(place[: len(place) - region_words])
    region = " ".join(place[len(place) - region_words :])
    if not city:
        return None
    parts += [city, f"{region} {code.text}".strip()]
    return ", ".join([*parts, after_code] if after_code else parts)


def parse_address(line: str) -> SpokenAddress | None:
    """The address in `line`, or None unless it has at least a street, a city and a
    postcode, separated by commas (a street without a number needs a third part) or
    said without a pause after a street named as one ("1 Market Street ...").

    After "no wait" or "sorry, I mean" inside the line, a whole address replaces the one
    before, one part ("94105", "the city is Oakland") corrects it; anything else makes
    the address unclear (None)."""
    address: SpokenAddress | None = None
    for part in CORRECTION.split(line):
        part = part.strip(" ,.!")
        if not part:
            continue
        if (whole := _address_said(part)) is not None:
            address = whole
        elif address is not None:
            corrected = parse_correction(part, None, after_read_back=True)
            if corrected is None:
                return None
            field, value = corrected
            address = replace(address, **{field: value})
    return address


def _address_said(line: str) -> SpokenAddress | None:
    text = house_number_in_digits(_LEAD_IN.sub("", line.strip(), count=1).rstrip(" .!"))
    if "," not in text and (paused := _with_pauses(text)) is not None:
        text = paused
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
        found = _misshapen_postcode(segments) if segments else None
    if found is None:
        return None
    index, code = found
    with_code = segments[index]
    before_code = with_code[: code.start].strip()
    after_code = with_code[code.end :].strip() or None
    later = segments[index + 1 :]
    city_after_code: str | None = None
    if after_code is not None and not _names_country(after_code):
        # "28014 Madrid, Spain": the postcode before the city, as in most of Europe; a
        # province may follow the city ("08201 Sabadell, Barcelona, Spain").
        city_after_code, after_code = after_code, None
    said_country = after_code or (later[-1] if later else None)
    country = _country(said_country, code.text)

    street, *rest = segments[:index]
    if city_after_code is not None:
        if len(rest) > 1 or not re.search(r"[^\W\d_]", street):
            return None
        return SpokenAddress(
            street=street,
            city=city_after_code,
            region=", ".join(later[:-1]) if len(later) > 1 else before_code,
            postal_code=code.text,
            # Never the demo's home country: a postcode before the city is not American.
            country=country if later else "",
            # Whatever sits between the street and the postcode: "2º izquierda".
            unit=rest[0] if rest else None,
        )
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
    if index < 2 and not re.search(r"\d", street):
        # "sorry, it's 94105" is an answer, not an address: with only two parts, the
        # street must have its house number.
        return None
    return SpokenAddress(
        street=street,
        city=city,
        region=region,
        postal_code=code.text,
        country=country,
        unit=unit,
    )


# Where an address starts inside a request: "... order 100102 to 1 Market Street, ...",
# "my new address is 1 Market Street, ...".
_ADDRESS_START = re.compile(r"\b(?:to|is|at|now)\b:?\s+(?=\d{1,5}[^\W\d_]{0,2}\s)", re.IGNORECASE)


def address_in_request(line: str) -> SpokenAddress | None:
    """The address in a line that may say more than the address ("Jordan Lee, 94107,
    ..., please send order 100102 to 1 Market Street, San Francisco, CA 94105"): what
    follows the last "to", "is", "at" or "now" that starts one, else the whole line when
    it reads as an address with a house number."""
    for start in reversed(list(_ADDRESS_START.finditer(line))):
        address = parse_address(line[start.end() :])
        if address is not None:
            return address
    whole = parse_address(line)
    return whole if whole is not None and re.search(r"\d", whole.street) else None


# --- correcting one part ---------------------------------------------------------------

# How `customer_service.addresses` names each field at the start of a problem message.
_PROBLEM_FIELDS: tuple[tuple[str, AddressField], ...] = (
    ("the zip code", "postal_code"),
    ("the postal code", "postal_code"),
    ("the apartment or unit", "unit"),
    ("the street", "street"),
    ("the city", "city"),
    ("the state", "region"),
    ("the province", "region"),
    ("the region", "region"),
    ("the country", "country"),
)
_LABELS: dict[str, AddressField] = {
    "zip": "postal_code",
    "zip code": "postal_code",
    "postal code": "postal_code",
    "post code": "postal_code",
    "postcode": "postal_code",
    "street": "street",
    "street address": "street",
    "city": "city",
    "town": "city",
    "state": "region",
    "province": "region",
    "region": "region",
    "country": "country",
    "apartment": "unit",
    "apartment number": "unit",
    "unit": "unit",
    "unit number": "unit",
}
_LABELLED = re.compile(
    r"(?<![\w'\u2019])(?:the\s+)?(?P<label>"
    + "|".join(sorted((re.escape(label) for label in _LABELS), key=len, reverse=True))
    + r")\s+(?:is|should be|should say|was)\b[:,]?\s*(?P<value>.+)$",
    re.IGNORECASE,
)
_CORRECTION_LEAD_IN = re.compile(
    r"^(?:(?:yes|yeah|no|nope|sorry|oops|oh|ok|okay|so|well|actually|my mistake)\b[,.!]?\s*)*"
    r"(?:(?:it|that)(?:'|\u2019)?s|it is|that is|(?:it\s+)?should be)?\s*",
    re.IGNORECASE,
)
_MAX_CORRECTION_WORDS = 6


def field_in_problem(message: str) -> AddressField | None:
    """The field a `record_address` problem message is about ("The ZIP code ... doesn't
    look right" -> postal_code), or None for any other message."""
    said = message.strip().lower()
    return next((field for start, field in _PROBLEM_FIELDS if said.startswith(start)), None)


def _postcode_value(text: str) -> str | None:
    codes = find_alphanumeric_postcodes(text)
    if codes:
        return codes[0].text
    runs = [run for run in find_number_runs(text) if len(run.digits) >= 2]
    return runs[0].span.text if runs else None


def parse_correction(
    line: str, expected: AddressField | None, *, after_read_back: bool = False
) -> tuple[AddressField, str] | None:
    """One corrected part: named by the caller ("the zip is 94105", "the city should be
    Oakland"), or, when the agent has just asked for the `expected` part, the caller's
    answer itself ("sorry, it's 94105"); `after_read_back`, a postcode alone. None when
    the line is not such an answer."""
    text = line.strip().rstrip(" .!")
    if "?" in text or "," in _CORRECTION_LEAD_IN.sub("", text, count=1):
        return None
    labelled = _LABELLED.search(text)
    if labelled is not None:
        field = _LABELS[" ".join(labelled.group("label").lower().split())]
        value = labelled.group("value").strip()
    elif expected is not None:
        field, value = expected, _CORRECTION_LEAD_IN.sub("", text, count=1).strip()
    elif after_read_back:
        # After a read-back, a postcode alone ("sorry, it's 9 4 1 0 5") can only
        # correct the postcode.
        value = _CORRECTION_LEAD_IN.sub("", text, count=1).strip()
        said_code = _postcode_in(value)
        if said_code is None or said_code.text != value:
            return None
        field = "postal_code"
    else:
        return None
    if field == "postal_code":
        code = _postcode_value(value)
        return (field, code) if code else None
    if not re.search(r"[^\W\d_]", value) or len(value.split()) > _MAX_CORRECTION_WORDS:
        return None
    return field, value
