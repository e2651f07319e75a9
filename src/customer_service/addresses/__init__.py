"""Postal addresses as callers say them: validation, canonical form and read-back.

`validation` holds the rules; `regions` the reference data they use (states,
provinces, postal-code formats).
"""

from customer_service.addresses.validation import (
    AddressField,
    AddressProblem,
    country_name,
    read_back,
    validated_address,
)

__all__ = ["AddressField", "AddressProblem", "country_name", "read_back", "validated_address"]
