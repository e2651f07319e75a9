"""The identity check made by code, when the caller gives their details with their request.

"This is Jordan Lee, 94107, jordan.lee@example.com. Where is order 100101?" holds what
the default policy checks. Code reads the details from the caller's own words there and
then, as the order lookup reads an order number the caller said, so neither the identity
specialist's turn nor a model request stands between the caller's words and the answer.

The reading knows nothing of any account: one block of the message, the full name first
and then the postal code and the email address in either order, with only punctuation
or a few filler words ("my zip is", "and") between them. A message that holds one such
block is one check, exactly as if the identity specialist's model had sent those three
details (`call.identity_check`): verified, or refused and counted, with the same words.
A list of guesses is therefore one check of the name next to the postal code, and
whether any other word names the account decides nothing. A message read once is never
read again. One that holds no such block (a name spelled out or said last, a phone
number, two email addresses, a word that may take a detail back, another code of the
postal code's shape, such as a new address's) is left to the identity specialist, which
asks or checks as it always does. `email-or-name-zip` calls are left to it too.
"""

from __future__ import annotations

import re

from livekit.agents.llm import ChatContext

from customer_service.call.heard import caller_messages
from customer_service.call.identity_check import MAX_DETAIL_LENGTH, Refused, check_under_lock
from customer_service.call.identity_policy import GivenDetails
from customer_service.call.state import CallState
from customer_service.domain import Customer
from customer_service.normalize import normalize_email
from customer_service.settings import IdentityPolicy

FILLER = frozenset(
    {
        "a", "am", "and", "account", "address", "afternoon", "also", "calling", "code",
        "details", "e-mail", "email", "evening", "good", "hello", "here", "hey", "hi",
        "i", "i'm", "im", "is", "it", "it's", "its", "mail", "morning", "my", "name",
        "name's", "number", "ok", "okay", "on", "post", "postal", "so", "speaking",
        "that's", "the", "then", "there", "this", "uh", "um", "well", "yeah", "yes", "zip",
    }
)  # fmt: skip
"""Words said around one's details that are never part of them."""
CORRECTIONS = frozenset(
    {"actually", "correction", "instead", "mean", "no", "not", "oops", "rather", "sorry", "wait"}
)
"""Words that may take back a detail said in the same message."""
NAME_WORDS = (2, 3)
"""A full name is two or three words; one word is not a full name (the specialist asks),
and a longer run is left to it as well."""
_NAME_WORD = re.compile("[^\\W\\d_]+(?:['\u2019-][^\\W\\d_]+)*")
_CODE_PART = re.compile(r"(?=[A-Za-z0-9-]*\d)[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?")
CODE_PART_LENGTH = 4
"""Longest part of a postal code said in two parts ("SW1A 1AA", "K1A 0B6"): longer
numbers next to each other are two numbers."""
_CLAUSE_END = ",.;:!?"
_QUOTES = "\"'\u201c\u201d\u2018\u2019"
_EDGES = _QUOTES + "()[]" + _CLAUSE_END


async def checked_from_words(
    state: CallState, history: ChatContext
) -> tuple[GivenDetails, Customer | Refused] | None:
    """The details in the caller's latest message and the outcome of their identity
    check, when it holds them as one block and has not been read before; None
    otherwise, with nothing checked."""
    if state.settings.identity_policy is not IdentityPolicy.NAME_ZIP_AND_CONTACT:
        return None
    said = caller_messages(history)
    if not said or said[-1].id in state.identity.messages_read:
        return None
    message = said[-1]
    given = details_in(message.text_content or "")
    if given is None or any(len(detail) > MAX_DETAIL_LENGTH for detail in given.values()):
        return None
    async with state.identity.checking:
        # Decided under the lock, as every check is: the outcome of earlier ones is known.
        if message.id in state.identity.messages_read:
            return None
        state.identity.messages_read.add(message.id)
        verified = state.verified_customer
        return given, verified if verified is not None else await check_under_lock(state, given)


def details_in(message: str) -> GivenDetails | None:
    """The full name, postal code and email address the message gives as one block, as
    said; None when it holds no such block, or more than one email address."""
    tokens = message.split()
    at_signs = [index for index, token in enumerate(tokens) if "@" in token]
    if len(at_signs) != 1:
        return None
    if any(_bare(token).lower() in CORRECTIONS for token in tokens):
        return None  # which of the details said is meant is the model's to read
    email_at = at_signs[0]
    email = normalize_email(_bare(tokens[email_at]))
    if email is None:
        return None
    before_email = _past_filler(tokens, email_at - 1, step=-1)
    code_span = _code_ending_at(tokens, before_email)
    if code_span is not None:
        name_ends = _past_filler(tokens, code_span[0] - 1, step=-1)  # name, code, email
    else:
        name_ends = before_email  # name, email, code
        code_span = _code_starting_at(tokens, _past_filler(tokens, email_at + 1, step=1))
    name = _name_ending_at(tokens, name_ends)
    if code_span is None or name is None:
        return None
    first, last = code_span
    code = " ".join(_bare(token) for token in tokens[first : last + 1])
    elsewhere = tokens[:first] + tokens[last + 1 :]
    if any(_shape(_bare(token)) == _shape(code) for token in elsewhere):
        return None  # another code of its shape: a correction, or a guess
    return GivenDetails(full_name=name, postal_code=code, contact=email)


def _shape(text: str) -> str:
    """Letters as "a", digits as "9", the rest dropped: "SW1A 1AA" -> "aa9a9aa"."""
    return re.sub(r"[^a9]", "", re.sub(r"\d", "9", re.sub(r"[^\W\d_]", "a", text)))


def _bare(token: str) -> str:
    return token.strip(_EDGES)


def _is_filler(token: str) -> bool:
    return _bare(token).lower() in FILLER


def _ends_clause(token: str) -> bool:
    return token.rstrip(_QUOTES + ")").endswith(tuple(_CLAUSE_END))


def _past_filler(tokens: list[str], index: int, *, step: int) -> int:
    while 0 <= index < len(tokens) and _is_filler(tokens[index]):
        index += step
    return index


def _is_code_part(token: str) -> bool:
    return _CODE_PART.fullmatch(_bare(token)) is not None


def _code_ending_at(tokens: list[str], last: int) -> tuple[int, int] | None:
    """The postal code (one or two words, "SW1A 1AA") whose last word is `last`."""
    if not 0 <= last < len(tokens) or not _is_code_part(tokens[last]):
        return None
    first = last - 1
    joined = first >= 0 and _one_code(tokens[first], tokens[last])
    return (first if joined else last, last)


def _code_starting_at(tokens: list[str], first: int) -> tuple[int, int] | None:
    if not 0 <= first < len(tokens) or not _is_code_part(tokens[first]):
        return None
    last = first + 1
    joined = last < len(tokens) and _one_code(tokens[first], tokens[last])
    return (first, last if joined else first)


def _one_code(first: str, second: str) -> bool:
    """Whether two words are one postal code said in two parts."""
    parts = (_bare(first), _bare(second))
    return not _ends_clause(first) and all(
        _is_code_part(part) and len(part) <= CODE_PART_LENGTH for part in parts
    )


def _name_ending_at(tokens: list[str], last: int) -> str | None:
    """The full name whose last word is `last`: the name words before it, back to a
    comma or full stop, a filler word or the message's start. At the start, only two
    words ("Howdy Jordan Lee" could be a greeting and a name)."""
    words: list[str] = []
    index = last
    while 0 <= index < len(tokens):
        token = tokens[index]
        if _is_filler(token) or _NAME_WORD.fullmatch(_bare(token)) is None:
            break
        if words and _ends_clause(token):
            break  # the comma or full stop after it parts it from the name
        words.insert(0, _bare(token))
        index -= 1
        if len(words) > max(NAME_WORDS):
            return None
    if len(words) not in NAME_WORDS:
        return None
    if index < 0:
        return " ".join(words) if len(words) == min(NAME_WORDS) else None
    before = tokens[index]
    return " ".join(words) if _ends_clause(before) or _is_filler(before) else None
