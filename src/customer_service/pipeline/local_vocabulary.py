"""What a call expects to hear, as the local recogniser's language model.

A general English model hears eSpeak's "jordan lee, nine four one zero seven" as "lord
only, line for one zero family": the recogniser is told instead what a caller of this
store says. Its language model is a small back-off n-gram model
(`pocketsphinx.lm.ArpaBoLM`) built from sentences: the requests callers make, digits
in any order (order numbers, postal codes, phone numbers, house numbers), yes and no in
their usual forms, and the store's own words (`store_vocabulary`: its products and their
options, the names, streets and cities of its customers, up to `MOST_CUSTOMERS`). Words
the recogniser's dictionary does not know are left out, so every word it can return is
one it can say how to hear.
"""

from __future__ import annotations

import asyncio
import re
import unicodedata
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from pocketsphinx import get_model_path
from pocketsphinx.lm import ArpaBoLM

from customer_service.domain import Customer, PostalAddress, Product
from customer_service.store import Store

__all__ = [
    "ANSWERS",
    "CALLER_REQUESTS",
    "DIGITS",
    "MOST_CUSTOMERS",
    "CallVocabulary",
    "dictionary_words",
    "spoken_words",
    "store_vocabulary",
]

MOST_CUSTOMERS = 2000
"""Customers whose names and addresses a call listens for (the first by id): enough for
τ²-bench's retail store (500) several times over, and few enough that the language model
is built in well under a second as a call starts. A store with more is heard for its
digits, requests and catalog, and these customers' words."""

DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")

ANSWERS = (
    "yes",
    "yes please",
    "yes that's right",
    "yes that's correct",
    "yes cancel it",
    "yes go ahead",
    "yeah",
    "yep",
    "correct",
    "that's right",
    "sure",
    "no",
    "no thanks",
    "no thank you",
    "no that's wrong",
    "no don't",
    "nope",
    "okay",
    "thank you",
    "thanks",
    "that's all thank you",
    "goodbye",
    "sorry can you say that again",
    "hello",
)
"""Yes, no and the short replies a caller gives to a question."""

CALLER_REQUESTS = (
    "where is my order",
    "I want to check my order",
    "what is the status of my order",
    "I want to check on order",
    "I need to change the delivery address for order",
    "I want to change my address",
    "I want to cancel order",
    "I want to cancel my order",
    "please cancel it",
    "I don't need it any more",
    "I ordered it by mistake",
    "I changed my mind",
    "I found it cheaper somewhere else",
    "it's taking too long",
    "I'd like text message updates about my orders",
    "I need help with my account",
    "I want to return an item",
    "I want to talk to a person",
    "my name is",
    "my postal code is",
    "my zip code is",
    "my phone number is",
    "my email is",
    "the order number is",
    "it's order",
    "order number",
    "the new address is",
    "suite",
    "apartment",
    "unit",
    "street",
    "avenue",
    "road",
    "boulevard",
    "market street",
    "san francisco california",
    "new york",
    "united states",
    "at example dot com",
)
"""What callers of this agent ask, in their usual words."""

_BEFORE_A_NUMBER = (
    "order",
    "it's order",
    "cancel order",
    "change the delivery address for order",
    "my postal code is",
    "my zip code is",
    "my phone number is",
)
_RUNS = tuple(" ".join(DIGITS[(start + step * 3) % 10] for step in range(6)) for start in range(10))

_NUMBER_WORDS = (
    "oh",
    "ten",
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "sixty",
    "seventy",
    "eighty",
    "ninety",
    "hundred",
    "thousand",
    "double",
)
_ABBREVIATIONS = {
    "st": "street",
    "ave": "avenue",
    "rd": "road",
    "blvd": "boulevard",
    "apt": "apartment",
    "ca": "california",
    "ny": "new york",
    "us": "united states",
}
_ALTERNATIVE = re.compile(r"\(\d+\)$")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?|\d")


def spoken_words(text: str) -> list[str]:
    """`text` as a caller would say it, in lower-case words: digits one by one, the
    usual abbreviations of an address written out."""
    plain = "".join(
        char
        for char in unicodedata.normalize("NFKD", text.lower())
        if not unicodedata.combining(char)
    )
    words: list[str] = []
    for token in _WORD.findall(plain):
        if token.isdigit():
            words.append(DIGITS[int(token)])
        else:
            words.extend(_ABBREVIATIONS.get(token, token).split())
    return words


@cache
def _pronunciations() -> dict[str, tuple[tuple[str, str], ...]]:
    """The recogniser's US-English dictionary (shipped in its wheel): each word's
    entries, as (the word, or `word(2)` for its second pronunciation, and its phones)."""
    path = Path(get_model_path()) / "en-us" / "cmudict-en-us.dict"
    entries: dict[str, list[tuple[str, str]]] = {}
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            entry, _, phones = line.strip().partition(" ")
            if entry and phones:
                word = _ALTERNATIVE.sub("", entry)
                entries.setdefault(word, []).append((entry, phones.strip()))
    return {word: tuple(found) for word, found in entries.items()}


def dictionary_words() -> frozenset[str]:
    """The words the recogniser's dictionary knows."""
    return frozenset(_pronunciations())


async def store_vocabulary(store: Store) -> CallVocabulary:
    """What a call to `store` expects: the usual requests, digits and answers, its
    catalog, and its customers (up to `MOST_CUSTOMERS`)."""
    products = await store.products()
    customers = await store.customers(limit=MOST_CUSTOMERS)

    def build() -> CallVocabulary:
        vocabulary = CallVocabulary()
        vocabulary.add_catalog(products)
        vocabulary.add_customers(customers)
        return vocabulary

    # Thousands of sentences: tenths of a second of CPU the event loop does not wait on.
    return await asyncio.to_thread(build)


class CallVocabulary:
    """The sentences a call expects, and the language model made from them."""

    def __init__(self, sentences: Iterable[str] = ()) -> None:
        self._sentences: list[str] = []
        self.unknown: set[str] = set()
        """Words left out: the recogniser's dictionary cannot say them."""
        self.add(CALLER_REQUESTS)
        self.add(ANSWERS)
        self.add(_NUMBER_WORDS)
        # Every run of three digits, no order preferred: numbers are said a digit at a
        # time, and outweigh the other words between two digits.
        self.add(f"{a} {b} {c}" for a in DIGITS for b in DIGITS for c in DIGITS)
        self.add(f"{request} {digits}" for request in _BEFORE_A_NUMBER for digits in _RUNS)
        self.add(sentences)

    @property
    def sentences(self) -> list[str]:
        return list(self._sentences)

    def add(self, sentences: Iterable[str]) -> None:
        """Adds `sentences` (written as text: digits, abbreviations and all)."""
        known = _pronunciations()
        for sentence in sentences:
            words = spoken_words(sentence)
            kept = [word for word in words if word in known]
            self.unknown.update(word for word in words if word not in known)
            if kept:
                self._sentences.append(" ".join(kept))

    def add_customers(self, customers: Iterable[Customer]) -> None:
        """Each customer's name, postal code and address, as callers say them."""
        for customer in customers:
            self.add([customer.full_name, f"my name is {customer.full_name}"])
            self.add([customer.postal_code, customer.email.replace(".", " dot ")])
            if customer.address is not None:
                self.add_address(customer.address)

    def add_address(self, address: PostalAddress) -> None:
        self.add([address.street, address.unit or "", address.city])

    def add_catalog(self, products: Iterable[Product]) -> None:
        """Each product's name, and each of its options' values ("blue", "crew neck")."""
        for product in products:
            self.add([product.name])
            values = {value for variant in product.variants for value in variant.options.values()}
            self.add(sorted(values))

    def words(self) -> set[str]:
        return {word for sentence in self._sentences for word in sentence.split()}

    def pronunciations(self) -> list[tuple[str, str]]:
        """How each of its words sounds, from the recogniser's dictionary: (the word, or
        `word(2)` for its second pronunciation, and its phones), a word's first
        pronunciation before its others. The recogniser knows these words alone, so it
        is ready in milliseconds, not the seconds the whole dictionary takes."""
        entries = _pronunciations()
        return [entry for word in sorted(self.words()) for entry in entries[word]]

    def arpa(self) -> str:
        """The language model, in the ARPA text format the recogniser reads."""
        model = ArpaBoLM(text="\n".join(self._sentences) + "\n", add_start=True)
        model.compute()
        out_lines: list[str] = []

        class _Lines:
            def write(self, text: str) -> int:
                out_lines.append(text)
                return len(text)

        model.write(_Lines())
        return "".join(out_lines)
