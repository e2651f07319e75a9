"""A product's answer as the caller hears it: the product a caller's words name, what it
comes in, which of its variants are available and at what price, or precisely the
variants a narrower question names."""

from __future__ import annotations

import re
from collections.abc import Sequence

from customer_service.call.payment_methods import spoken_amount
from customer_service.call.speakable import count_word, looks_plural, spoken_list
from customer_service.call.wording import quoted
from customer_service.domain import Product, Variant
from customer_service.spoken.item_words import SIZE_WORDS, names_item, option_key

__all__ = ["MAX_VARIANTS_LISTED", "best_matches", "described", "either"]

MAX_VARIANTS_LISTED = 4
"""Variants said one by one; more are summed up (how many, which available, prices)."""
SIZE = "size"
"""The option a size said as a word ("a large") is about."""


def _words(text: str) -> set[str]:
    """Lower-case words, singular: "Water bottles" and "bottle" share "bottle"."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {word[:-1] if len(word) > 3 and word.endswith("s") else word for word in words}


def _key(value: str) -> str:
    """An option value as compared: "6mm" is "6 mm", "ten" is "10", "large" is "L"."""
    return option_key(value)


def best_matches(words: str, products: Sequence[Product]) -> list[Product]:
    """The products whose names share the most words with `words`; failing that, those
    an everyday word of `words` names ("bike" for a Bicycle, `item_words`); none when
    none do."""
    wanted = _words(words)
    scored = [(len(wanted & _words(product.name)), product) for product in products]
    best = max((score for score, _ in scored), default=0)
    if best == 0:
        return [p for p in products if any(names_item(word, p.name) for word in wanted)]
    return [product for score, product in scored if score == best]


def either(phrases: Sequence[str]) -> str:
    """Alternatives as one phrase: "a, b or c"."""
    return phrases[0] if len(phrases) == 1 else f"{', '.join(phrases[:-1])} or {phrases[-1]}"


def variant_phrase(variant: Variant) -> str:
    return ", ".join(variant.options.values())


def price_phrase(variants: Sequence[Variant]) -> str:
    low, high = min(v.price for v in variants), max(v.price for v in variants)
    return (
        f"at {spoken_amount(low)}"
        if low == high
        else f"from {spoken_amount(low)} to {spoken_amount(high)}"
    )


def summary(product: Product, variants: Sequence[Variant]) -> str:
    """How many of `variants` there are, which are available and at what price."""
    available = [v for v in variants if v.available]
    count = count_word(len(variants))
    if not available:
        return f"None of its {count} variants is available right now."
    missing = [v for v in variants if not v.available]
    if not missing:
        every = {1: "It's", 2: "Both variants are"}.get(len(variants), f"All {count} variants are")
        said = f"{every} available"
    elif len(missing) < MAX_VARIANTS_LISTED:
        gone = spoken_list([quoted(variant_phrase(v)) for v in missing])
        said = f"Of its {count} variants, all but {gone} are available"
    else:
        said = f"{count_word(len(available)).capitalize()} of its {count} variants are available"
    return f"{said}, {price_phrase(available)}."


def variants_said(variants: Sequence[Variant]) -> str:
    """Each variant a narrower question names, precisely."""
    return " ".join(
        f"{quoted(variant_phrase(v))}: "
        + (
            f"available, {spoken_amount(v.price)}."
            if v.available
            else f"not available right now ({spoken_amount(v.price)})."
        )
        for v in variants
    )


def _wanted(product: Product, value: str) -> tuple[str | None, str]:
    """The option an asked value is about (None: any option) and its key: a size said
    as a word ("a large") is about the product's size when it has one."""
    letters = SIZE_WORDS.get(value.strip().lower())
    sizes = {_key(v.options.get(SIZE, "")) for v in product.variants}
    if letters is not None and letters in sizes:
        return SIZE, letters
    return None, _key(value)


def _fits(variant: Variant, wanted: tuple[str | None, str]) -> bool:
    name, key = wanted
    if name is not None:
        return _key(variant.options.get(name, "")) == key
    return key in {_key(option) for option in variant.options.values()}


def described(product: Product, asked: Sequence[str]) -> str:
    """The answer about `product`: its options, then the variants `asked` narrows to."""
    options: dict[str, list[str]] = {}
    for variant in product.variants:
        for name, value in variant.options.items():
            options.setdefault(name, [])
            if value not in options[name]:
                options[name].append(value)
    comes_in = spoken_list(
        [
            f"{quoted(name)} {either([quoted(v) for v in values])}"
            for name, values in options.items()
        ]
    )
    come = "come" if looks_plural(product.name) else "comes"
    lead = (
        f"{quoted(product.name)} {come} in {comes_in}." if options else f"{quoted(product.name)}:"
    )
    wanted = {value: _wanted(product, value) for value in asked}
    unknown = [v for v in asked if not any(_fits(x, wanted[v]) for x in product.variants)]
    if unknown:
        return f"{lead} It doesn't come in {spoken_list([quoted(v) for v in unknown])}."
    chosen = [x for x in product.variants if all(_fits(x, want) for want in wanted.values())]
    if not chosen:
        return f"{lead} There's no variant with all of {spoken_list([quoted(v) for v in asked])}."
    if asked and len(chosen) <= MAX_VARIANTS_LISTED:
        return f"{quoted(product.name)}: {variants_said(chosen)}"
    return f"{lead} {summary(product, chosen)}"
