"""The product questions specialist: looks products up by the caller's words.

The catalog's product names (and a verified caller's ordered ones) are read from the
task's instructions, as the model reads them; option values are the words a caller asks
about a colour or a measure with.
"""

from __future__ import annotations

import re

from customer_service.call.answers import Phrases, normalise, polarity
from customer_service.offline_llm.conversation import CallTool, Conversation, Reply, Say
from customer_service.offline_llm.routing import names_an_order
from customer_service.offline_llm.specialist_replies import leave, transfer
from customer_service.offline_llm.specialists import OfflineSpecialist
from customer_service.specialists.product_questions import WHICH_PRODUCT
from customer_service.spoken.item_words import SIZE_WORDS
from customer_service.spoken.numbers import numerals

__all__ = ["SPECIALIST"]

_ASKS = Phrases(
    [
        "come in",
        "comes in",
        "colour",
        "color",
        "available in",
        "in stock",
        "do you have",
        "do you sell",
        "how much",
        "price",
        "cost",
        "what size",
        "option",
        "variant",
    ],
    plurals=True,
)
# Inside another specialist, only a question that names a product is a change of topic:
# "what does that cost?" there asks about what it is doing.
_NAMES_A_PRODUCT = Phrases(
    [
        "come in",
        "comes in",
        "available in",
        "do you have the",
        "do you sell",
        "how much is the",
        "how much are the",
        "how much does the",
        "price of the",
        "what colours",
        "what colors",
        "what sizes",
    ]
)
_ORDERED = Phrases(["i ordered", "i bought", "i got", "i purchased", "i have on order"])
_DONE = Phrases(
    ["that's all", "that's it", "that is all", "no more questions", "nothing else", "no thanks"]
)
_COLOURS = Phrases(
    [
        "black",
        "white",
        "grey",
        "gray",
        "silver",
        "gold",
        "red",
        "orange",
        "yellow",
        "green",
        "blue",
        "purple",
        "pink",
        "brown",
        "beige",
        "navy",
    ]
)
_SIZE = re.compile(r"\bsize (\d+(?:\.\d+)?|x{0,2}[sml]|xl)\b")
_SELL = re.compile(
    r"\b(?:do you|you guys|does the store)\s+(?:sell|carry|stock|have)\s+(?:any\s+)?"
    r"(?:the\s+|a\s+|an\s+)?([a-z][a-z -]*?)\s*(?:\?|$)"
)
_MEASURE = re.compile(r"\b\d+(?:\.\d+)? ?(?:mm|cm|m|ml|l|oz|inch|inches)\b")
_QUOTED = re.compile(r'"([^"]+)"')
_COMMON = frozenset({"the", "and", "for", "with", "one", "you", "does", "what", "how", "much"})


def _names(conversation: Conversation, lead: str) -> list[str]:
    """The quoted product names on the instructions' line that starts with `lead`."""
    for text in conversation.instructions.splitlines():
        if text.strip().startswith(lead):
            return _QUOTED.findall(text)
    return []


def _words(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    singular = {word[:-1] if len(word) > 3 and word.endswith("s") else word for word in words}
    return {word for word in singular if len(word) > 2 and word not in _COMMON}


def _product_in(line: str, names: list[str]) -> str | None:
    """The name sharing the most words with the caller's line; the shared words when
    several tie (the tool then asks which one)."""
    said = _words(line)
    scored = [(len(said & _words(name)), name) for name in names]
    best = max((score for score, _ in scored), default=0)
    tied = [name for score, name in scored if score == best and best > 0]
    if len(tied) == 1:
        return tied[0]
    return " ".join(sorted(said & _words(tied[0]))) if tied else None


def _options_in(said: str) -> list[str]:
    """The option values the caller asks about: colours, measures, a size said as a
    number ("a size ten") or a word ("in a large")."""
    written = numerals(said)
    colours = [word for word in re.findall(r"[a-z]+", said) if _COLOURS.found_in(word)]
    sizes = [found.group(1) for found in _SIZE.finditer(written)]
    words = [word for word in SIZE_WORDS if re.search(rf"\b{word}\b", said)]
    worded = [word for word in words if not any(word in other for other in words if other != word)]
    return [*colours, *_MEASURE.findall(written), *sizes, *worded]


def _thing_asked_for(said: str) -> str | None:
    """What a caller asks whether we sell ("do you sell kayaks"), when it is no product
    of the catalog: the tool then says so."""
    found = _SELL.search(said)
    return found.group(1).strip() if found else None


def respond(conversation: Conversation) -> Reply:
    if (handed_over := transfer(conversation)) is not None:
        return handed_over
    line = conversation.last_caller_line or ""
    said = normalise(line)
    if _DONE.found_in(said) or polarity(line) is False:
        return CallTool("questions_answered")
    if (left := leave(conversation, own="answer_product_questions")) is not None:
        return left
    ordered = _ORDERED.found_in(said)
    names = (_names(conversation, "The caller ordered:") if ordered else []) or _names(
        conversation, "Our catalog:"
    )
    product = _product_in(line, names)
    earlier = conversation.last_arguments("describe_product")
    if product is None and earlier is None:
        # Asked before the caller was verified: the question they asked then.
        asked = [_product_in(text, names) for text in conversation.caller_lines()]
        product = next((name for name in reversed(asked) if name), None)
        ordered = ordered or any(
            _ORDERED.found_in(normalise(text)) for text in conversation.caller_lines()
        )
    options = _options_in(said)
    if product is None and earlier is not None and options:
        # "And in green?": the product asked about last.
        product, ordered = str(earlier.get("product")), bool(earlier.get("ordered"))
    if product is None and earlier is None and (thing := _thing_asked_for(said)) is not None:
        product = thing  # not in the catalog: the tool says so
    if product is None:
        return Say(WHICH_PRODUCT)
    return CallTool(
        "describe_product", {"product": product, "options": options, "ordered": ordered}
    )


def _asks_about_products(line: str) -> bool:
    return _ASKS.found_in(normalise(line)) and not names_an_order(line)


def _asks_about_a_product(line: str) -> bool:
    return _NAMES_A_PRODUCT.found_in(normalise(line)) and not names_an_order(line)


def route(conversation: Conversation) -> Reply | None:
    line = conversation.last_caller_line or ""
    if not _asks_about_products(line):
        return None
    if _ORDERED.found_in(normalise(line)):
        return CallTool("answer_product_questions", {"about_their_orders": True})
    return CallTool("answer_product_questions")


SPECIALIST = OfflineSpecialist(
    name="product_questions",
    markers=frozenset({"describe_product"}),
    respond=respond,
    prompt=lambda _conversation: WHICH_PRODUCT,
    route=route,
    # After the address changes (28, 30), before order lookup (40).
    route_rank=38,
    menu_rank=60,
    asks_for=_asks_about_a_product,
)
