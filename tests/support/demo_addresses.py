"""The demo customers' shipping addresses, written out independently of the seed."""

from customer_service.domain import PostalAddress

JORDAN_ADDRESS = PostalAddress(
    street="500 Howard St",
    unit="Apt 4B",
    city="San Francisco",
    region="CA",
    postal_code="94107",
    country="US",
)
PRIYA_ADDRESS = PostalAddress(
    street="350 5th Ave", city="New York", region="NY", postal_code="10001", country="US"
)
MARIA_ADDRESS = PostalAddress(
    street="Calle de Alcalá 45",
    unit="2º izquierda",
    city="Madrid",
    region="M",
    postal_code="28013",
    country="ES",
)

# The new address most conversation tests move order 100102 to.
MARKET_STREET_SUITE_5 = PostalAddress(
    street="1 Market Street",
    unit="Suite 5",
    city="San Francisco",
    region="CA",
    postal_code="94105",
    country="US",
)
MARKET_ST_ARGUMENTS = {
    "street": "1 Market St",
    "city": "San Francisco",
    "region": "CA",
    "postal_code": "94105",
    "country": "US",
}
"""`record_address` arguments for "1 Market St, San Francisco, CA 94105"."""
