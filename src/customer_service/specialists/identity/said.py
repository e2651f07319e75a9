"""Details the caller said in one line, found by code and checked with no model request.

A caller who gives everything a check needs in one breath ("Jordan Lee, 94107,
jordan.lee@example.com"), up front or when asked, need not wait for the model to read
the details back out of their words as a tool call: that round trip stood between the
caller's last word and the answer. Code looks for one account whose details are all in
the line: a postal code said as a number, a name said word for word, and, as the
policy asks, the email address or phone number given as the caller's own. When the line
holds them, the check runs on them at once (`VerifyIdentityTask`); when it holds
anything less or anything else (a name split over two lines, a correction, two contact
details, a postal code of another shape), the model reads the line as before.

Nothing found here is taken on trust: the details go through the one identity check
(`IdentityCheck._check`) with its limits, holds and counting. Only details that would
verify are checked this way: a line that names no account, or an account or a line that
is held, or a call whose verification is locked, is left to the model's reading, whose
check counts as always. So no guess is free, and no misread word counts against anyone.
"""

from __future__ import annotations

import datetime as dt
import re

from livekit.agents import ModelSettings, RunContext, function_tool, llm

from customer_service.call.code_steps import code_step, for_the_model, step_call
from customer_service.call.empty_replies import Reply
from customer_service.call.guard import guarded
from customer_service.call.heard import caller_messages
from customer_service.call.identity_hold import Hold, hold_on
from customer_service.call.identity_policy import GivenDetails, contacts_given, line_is_held
from customer_service.call.state import CallState
from customer_service.domain import Customer
from customer_service.normalize import (
    emails_match,
    name_key,
    numbers_from_speech,
    phones_match,
    postal_codes_match,
)
from customer_service.settings import IdentityPolicy
from customer_service.specialists.identity.check import IdentityCheck
from customer_service.store import IdentityCandidate, StoreUnavailable

__all__ = ["CHECK_DETAILS_SAID", "DetailsSaidCheck", "details_said"]

CHECK_DETAILS_SAID = "check_details_said"

CHECKS = frozenset({"check_identity", "check_details_said", "use_calling_number"})
"""The identity task's checks: a line followed by one's outcome is answered."""
MAX_LINE_LENGTH = 400
"""Longer lines are left to the model: a line of details is said in a breath."""
MAX_NAME_WORDS = 5
MAX_EMAIL_WORDS = 8
"""Words of a spoken email tried before what looks like one ("jordan dot lee at ...")."""
MAX_POSTAL_CODES = 2
"""Numbers shaped like a postal code looked up per line: each is one read."""
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")
_ZIP_LENGTHS = (5, 9)
"""A US ZIP code or ZIP+4; a postal code of another shape is left to the model."""


async def details_said(state: CallState, history: llm.ChatContext) -> GivenDetails | None:
    """The details of the one account the caller's latest line in `history` names under
    the call's policy, as they said them; None when the line is answered already (a reply
    or a check came after it), or names no account, or more than one."""
    line = _unanswered_line(history)
    if line is None or len(line) > MAX_LINE_LENGTH or state.identity.locked:
        return None
    contacts = contacts_given(line)
    policy = state.settings.identity_policy
    # One contact detail at most: which of two is meant is the model's to read.
    if len(contacts) > 1 or (policy is IdentityPolicy.NAME_ZIP_AND_CONTACT and not contacts):
        return None
    if not contacts and _contact_said_before(history):
        # Under email-or-name-zip every detail given must be the account's, and the
        # caller gave an email earlier: which of them counts is the model's to read.
        return None
    codes = [n for n in numbers_from_speech(line) if len(n) in _ZIP_LENGTHS][:MAX_POSTAL_CODES]
    since = state.clock.now() - dt.timedelta(hours=state.settings.identity_account_window_h)
    found: dict[str, tuple[GivenDetails, IdentityCandidate]] = {}
    for code in codes:
        for candidate in await state.store.identity_candidates(code, since):
            given = _given_for(candidate, line, code, contacts)
            if given is not None:
                found[candidate.customer.customer_id] = (given, candidate)
    if len(found) != 1:
        return None
    [(given, candidate)] = found.values()
    # A held account or line is the model's to check: its check counts, and says what
    # any mismatch says.
    if hold_on(candidate, state.settings, state.line) is Hold.HELD or await line_is_held(state):
        return None
    return given


def _unanswered_line(history: llm.ChatContext) -> str | None:
    """The caller's latest words, unless a reply or a check of the details followed."""
    for item in reversed(history.items):
        if isinstance(item, llm.ChatMessage):
            return (item.text_content or "") if item.role == "user" else None
        if isinstance(item, llm.FunctionCallOutput) and item.name in CHECKS:
            return None
    return None


def _contact_said_before(history: llm.ChatContext) -> bool:
    return any(contacts_given(m.text_content or "") for m in caller_messages(history)[:-1])


def _given_for(
    candidate: IdentityCandidate, line: str, code: str, contacts: list[tuple[int, str]]
) -> GivenDetails | None:
    customer = candidate.customer
    if not postal_codes_match(code, customer.postal_code, customer.country):
        return None
    contact = ""
    if contacts:
        said = _contact_of(customer, line, *contacts[0])
        if said is None:
            # A contact detail that is not this account's: the model reads what was meant.
            return None
        contact, start = said
        # A name is said as a name, never read out of "jordan.lee@example.com".
        line = line[:start] + " " * len(contact) + line[start + len(contact) :]
    name = _name_in(line, customer.full_name)
    if name is None:
        return None
    return GivenDetails(full_name=name, postal_code=code, contact=contact)


def _contact_of(customer: Customer, line: str, start: int, detail: str) -> tuple[str, int] | None:
    """The contact detail said at `start` as the caller said it, with where it starts,
    when it is the customer's. A spoken email's first words may come before what looks
    like one ("jordan dot" before "lee at example dot com"): they are tried too."""
    if phones_match(detail, customer.phone, customer.country):
        return detail, start
    end = start + len(detail)
    before = list(_WORD.finditer(line[:start]))
    for first in [start, *(word.start() for word in reversed(before[-MAX_EMAIL_WORDS:]))]:
        if emails_match(line[first:end], customer.email):
            return line[first:end], first
    return None


def _name_in(line: str, full_name: str) -> str | None:
    """`full_name` as the caller said it in `line`: consecutive words whose letters are
    the name's (`names_match`), else None."""
    key = name_key(full_name)
    words = list(_WORD.finditer(line))
    for size in range(1, MAX_NAME_WORDS + 1):
        for start in range(len(words) - size + 1):
            said = line[words[start].start() : words[start + size - 1].end()]
            if name_key(said) == key:
                return said
    return None


class DetailsSaidCheck(IdentityCheck):
    """The identity task's part that checks details said in one line, by code."""

    async def llm_node(
        self, chat_ctx: llm.ChatContext, tools: list[llm.Tool], model_settings: ModelSettings
    ) -> Reply:
        # Every detail of one account said in the caller's latest line is checked at
        # once: the model's reading of them was a round trip before the answer.
        given = None if self.done() else await self._details_said(chat_ctx)
        if given is not None:
            yield step_call(
                CHECK_DETAILS_SAID,
                full_name=given.full_name,
                postal_code=given.postal_code,
                phone_or_email=given.contact,
            )
            return
        chat_ctx, tools = for_the_model(chat_ctx, tools)
        async for chunk in super().llm_node(chat_ctx, tools, model_settings):
            yield chunk

    async def _details_said(self, chat_ctx: llm.ChatContext) -> GivenDetails | None:
        try:
            return await details_said(self.session.userdata, chat_ctx)
        except StoreUnavailable:
            # The model's check meets the outage too, and says so in words of its own.
            return None

    @function_tool()
    @code_step
    @guarded(count_repeats=False)
    async def check_details_said(
        self, context: RunContext[CallState], full_name: str, postal_code: str, phone_or_email: str
    ) -> None:
        """Never offered to the model: the details `llm_node` found in the caller's line,
        checked once their turn is in the history."""
        await self._check(context.userdata, GivenDetails(full_name, postal_code, phone_or_email))
