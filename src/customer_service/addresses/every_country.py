"""Imported once in the worker's forkserver (`server.PRELOADED_MODULES`): every country's
address rules read before any call, so no call pays for reading them (tens of
milliseconds of CPU at a call's first address) and every job process shares them."""

from customer_service.addresses.country_rules import load_every_country

COUNTRIES_LOADED = load_every_country()
