"""Identity verification: the gate in front of every order detail and every change."""

from __future__ import annotations

import enum
from collections.abc import Coroutine
from functools import partial
from textwrap import dedent
from typing import Any

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import ChatContext, FunctionTool, ToolFlag
from livekit.agents.types import NOT_GIVEN, NotGivenOr
from pydantic import BaseModel, ConfigDict

from customer_service.call import audit
from customer_service.call.delegation import ResultRejected, delegate, validated_with_retries
from customer_service.call.empty_replies import answers_the_caller
from customer_service.call.fixed_sentences import fixed
from customer_service.call.guard import guarded
from customer_service.call.identity_hold import Hold, hold_on
from customer_service.call.identity_policy import (
    DETAILS_TOO_LONG_EMAIL_OR_NAME_ZIP,
    EMAIL_OR_NAME_ZIP_INSTRUCTIONS,
    MISSING_EMAIL_OR_NAME_ZIP,
    NO_DETAILS_WAY_OUT,
    OPENING_QUESTION_EMAIL_OR_NAME_ZIP,
    GivenDetails,
    check_tool,
    count_failed_check,
    line_is_held,
    matching_account,
    offers_contact_detail,
    offers_details_for,
    verified_by,
    without_new_values,
)
from customer_service.call.phrase_cache import say
from customer_service.call.registration import Desk, supervisor_tool
from customer_service.call.run_check_write import well_formed
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallerLine, CallState
from customer_service.call.wording import OFFER_HUMAN, PERSONA, quoted
from customer_service.domain import Customer
from customer_service.privacy import mask_name
from customer_service.settings import IdentityPolicy
from customer_service.simulation.expectations import EVER, AccountTally
from customer_service.telephony.caller_id import (
    CALLING_NUMBER_INSTRUCTIONS,
    CALLING_NUMBER_NOT_CONFIRMED,
    CallingNumberConfirmation,
)

OPENING_QUESTION = fixed(
    "Before I can help with that, I need to verify your identity. Please tell me your "
    "full name, the postal code on your account, and the phone number or email address "
    "on the account."
)
OPENING_QUESTION_ON_A_PHONE = fixed(
    "Before I can help with that, I need to verify your identity. Please tell me your "
    "full name and the postal code on your account."
)
"""The opening on a phone line that presented a number, then `CALLING_NUMBER_QUESTION` on
its own: the number may stand in for the phone factor once the caller confirms it."""

IDENTITY_INSTRUCTIONS = PERSONA + dedent(
    f"""
    Your only job now is to verify the caller's identity. You need three things: their
    full name, the postal code on the account, and the phone number or email address on
    the account. Use any the caller has already said in this conversation and ask only
    for what is still missing. When you have all three, call check_identity with them
    exactly as the caller said them, without asking for them again; a correction ("no
    wait, I mean 94107") replaces only the detail it corrects. If the check fails, say what
    the tool says; when the caller corrects one detail, check again with it and the others
    they gave. If the caller cannot or will not give them, call give_up; if they neither
    give them nor say so after you asked twice, do not ask a third time: say
    "{NO_DETAILS_WAY_OUT}" Never guess a value, never say which detail was wrong, and
    never talk about orders here.
    """
)

VERIFICATION_LOCKED = (
    "I'm sorry, I can't verify your identity on this call after too many unsuccessful "
    "attempts. If your details are right, you can call again tomorrow or from the phone "
    f"number on your account. {OFFER_HUMAN}"
)
"""Said to every caller whose checks lock the call, so that it can say what a customer
whose account is held can do without telling anyone the account is held
(`customer_service.call.identity_hold`)."""
VERIFICATION_DECLINED = (
    "That's fine. I can't share or change anything on an account without verifying the "
    "caller, but I'm happy to help with anything else."
)
MAX_DETAIL_LENGTH = 200
"""Longest name, postal code, phone or email accepted; longer is refused before it
reaches the store, the audit log or a log line."""
DETAILS_TOO_LONG = (
    "That's more than I can take for one detail. Please tell me just your full name, the "
    "postal code, and the phone number or email address on the account."
)
CHECK_ALREADY_DONE = "Your identity check is already finished."
MISSING_DETAILS = (
    "I need all three details to verify you: your full name, the postal code on the "
    "account, and the phone number or email address on the account."
)


def mismatch_message(attempts_left: int) -> str:
    # One wording for every wrong factor, for unknown accounts and for every check that
    # comes close to a held account, right or wrong, so a caller cannot probe which
    # detail was wrong, whether an account exists, or whether it is held; true in each.
    attempt_word = "attempt" if attempts_left == 1 else "attempts"
    return (
        "I'm sorry, I can't verify you with those details. Please check them and tell me "
        f"again. You have {attempts_left} {attempt_word} left."
    )


class IdentityOutcome(enum.StrEnum):
    VERIFIED = "verified"
    LOCKED = "locked"
    """Too many failed checks: verification is closed for the rest of the call."""
    GAVE_UP = "gave_up"


class IdentityResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    outcome: IdentityOutcome
    customer_id: str | None = None
    full_name: str | None = None


class VerifyIdentityTask(Specialist[IdentityResult]):
    """Collects what the call's `IDENTITY_POLICY` checks (name, postal code and phone or
    email; or the email, or the name and postal code) and checks it against the store."""

    still_there_question = fixed(
        "To verify you, I need your full name, your postal code, and the phone number or "
        "email address on your account."
    )

    def __init__(
        self,
        *,
        chat_ctx: NotGivenOr[ChatContext] = NOT_GIVEN,
        line: CallerLine | None = None,
        policy: IdentityPolicy = IdentityPolicy.NAME_ZIP_AND_CONTACT,
    ) -> None:
        self._policy = policy
        by_email = policy is IdentityPolicy.EMAIL_OR_NAME_ZIP
        # The number a phone line presented is a hint only the caller can confirm; the
        # model never sees it, so it can neither say it nor put it anywhere else. It
        # stands in for a phone number, which email-or-name-zip does not ask for.
        on_phone = line is not None and line.is_phone and not by_email
        self._calling_number = line.caller_number if line is not None and on_phone else None
        hint = self._calling_number is not None
        if by_email:
            self.still_there_question = MISSING_EMAIL_OR_NAME_ZIP
        super().__init__(
            instructions=EMAIL_OR_NAME_ZIP_INSTRUCTIONS
            if by_email
            else IDENTITY_INSTRUCTIONS + (CALLING_NUMBER_INSTRUCTIONS if hint else ""),
            chat_ctx=chat_ctx,
            tools=[
                check_tool(policy, self._given),
                *([self._calling_number_tool()] if hint else []),
            ],
        )
        self._calling_number_question = CallingNumberConfirmation(self)
        self._reading_given_details = False
        """The opening asked the model to read details given before it started."""

    async def opening(self) -> None:
        state: CallState = self.session.userdata
        given = offers_details_for(self._policy, self.chat_ctx)
        if state.identity.failed_checks == 0 and given:
            # The caller already gave details: one round trip for the model to check them
            # (or ask only for what is missing), and no caller turn. Not after a failed
            # check: the details in the history may be the ones it refused. The check is
            # a wait no answer outruns: its filler comes at once.
            self._reading_given_details = True
            self.session.generate_reply()
            return
        # A fixed question instead of a generated one saves a round trip of silence.
        if self._policy is IdentityPolicy.EMAIL_OR_NAME_ZIP:
            say(self.session, OPENING_QUESTION_EMAIL_OR_NAME_ZIP)
        elif self._calling_number is None:
            say(self.session, OPENING_QUESTION)
        else:
            say(self.session, OPENING_QUESTION_ON_A_PHONE)
            self._calling_number_question.ask()

    def filler_at_once(self, chat_ctx: ChatContext) -> bool:
        # Details just given will be checked: the thanks need not wait for the model to
        # read them and write out the check's arguments.
        reading, self._reading_given_details = self._reading_given_details, False
        giving = answers_the_caller(chat_ctx) and offers_contact_detail(chat_ctx, latest=True)
        return reading or giving

    # Its own cap (failed checks lock verification) is the stricter bound here.
    @guarded(count_repeats=False)
    async def _given(self, context: RunContext[CallState], given: GivenDetails) -> None:
        await self._check(context.userdata, without_new_values(given, self.chat_ctx))

    def _calling_number_tool(
        self,
    ) -> FunctionTool[[RunContext[CallState], str, str], Coroutine[Any, Any, None]]:
        @function_tool(name="use_calling_number")
        async def use_calling_number(
            context: RunContext[CallState], full_name: str, postal_code: str
        ) -> None:
            """Check the caller's name and postal code with the number they are calling
            from. Call when they said it is the number on their account.

            Args:
                full_name: The caller's first and last name, as they said it.
                postal_code: The postal or ZIP code on the account, as they said it.
            """
            await self._use_calling_number(context, full_name, postal_code)

        return use_calling_number

    # Checks go through `_check`, whose cap is the stricter bound, as for check_identity.
    @guarded(count_repeats=False)
    async def _use_calling_number(
        self, context: RunContext[CallState], full_name: str, postal_code: str
    ) -> None:
        question = self._calling_number_question
        confirmed = question.outcome()
        if self._calling_number is None or confirmed is False:
            # Not a check: nothing is counted, and the caller gives a phone or email.
            raise ToolError(CALLING_NUMBER_NOT_CONFIRMED)
        if confirmed is None:
            # Not heard, not answered, or a yes to something else: ask it on its own.
            question.ask()
            return
        given = GivenDetails(full_name, postal_code, self._calling_number)
        await self._check(context.userdata, given, calling_number=True)

    async def _check(
        self, state: CallState, given: GivenDetails, *, calling_number: bool = False
    ) -> None:
        """Every identity check, whichever tool asked for it: the same limits, the same
        counting per call and per account, the same words for every mismatch."""
        by_email = self._policy is IdentityPolicy.EMAIL_OR_NAME_ZIP
        if any(len(detail) > MAX_DETAIL_LENGTH for detail in given.values()):
            raise ToolError(DETAILS_TOO_LONG_EMAIL_OR_NAME_ZIP if by_email else DETAILS_TOO_LONG)
        if not given.enough_for(self._policy):
            raise ToolError(MISSING_EMAIL_OR_NAME_ZIP if by_email else MISSING_DETAILS)
        async with state.identity.checking:
            # Decided under the lock: the outcome of every earlier check is known here.
            if self.done():
                raise ToolError(CHECK_ALREADY_DONE)
            if state.identity.locked:
                self.finish(IdentityResult(outcome=IdentityOutcome.LOCKED))
                return
            # Both read whatever was given: the same work for a right guess as a wrong one.
            line_held = await line_is_held(state)
            candidate = await matching_account(state, given)
            hold = None if candidate is None else hold_on(candidate, state.settings, state.line)
            if candidate is None or hold is Hold.HELD or line_held:
                # The right details on a held account or from a held line read, count and
                # are recorded like a wrong guess: nothing tells which guess was right.
                await self._failed(state, given)
                return
            customer = candidate.customer
            by = "calling_number" if calling_number else verified_by(given, customer, self._policy)
            await self._verified(
                state, candidate.customer, by=by, passed_hold=hold is Hold.PASSED_BY_LINE
            )

    async def _verified(
        self, state: CallState, customer: Customer, *, by: str, passed_hold: bool
    ) -> None:
        # Recorded first: a verification that cannot be recorded does not happen.
        # A hold passed is named, for the operator who later reads why it let them in.
        passed = {"passed_hold": "line_is_phone_on_file"} if passed_hold else {}
        await audit.record(
            state, "identity_verified", customer_id=customer.customer_id, by=by, **passed
        )
        state.mark_verified(customer)
        self.finish(
            IdentityResult(
                outcome=IdentityOutcome.VERIFIED,
                customer_id=customer.customer_id,
                full_name=customer.full_name,
            )
        )

    async def _failed(self, state: CallState, given: GivenDetails) -> None:
        state.record_failed_identity_check()
        failed = audit.note(
            state,
            "identity_failed",
            attempts_left=state.identity_attempts_left,
            name_given=mask_name(given.full_name),
        )

        # Against the accounts the policy says it came close to and the caller's line:
        # guesses at one account add up across calls whichever detail is wrong, while
        # one known detail counts against nobody (`customer_service.call.identity_policy`).
        await audit.store_with(state, [failed], partial(count_failed_check, state, given))
        if state.identity.locked:
            self.finish(IdentityResult(outcome=IdentityOutcome.LOCKED))
            return
        raise ToolError(mismatch_message(state.identity_attempts_left))

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False)
    async def give_up(self, context: RunContext[CallState]) -> None:
        """Call when the caller cannot or will not give the details, or wants to stop."""
        self.finish(IdentityResult(outcome=IdentityOutcome.GAVE_UP))


def validated_identity(result: object, state: CallState) -> Customer | IdentityOutcome:
    """The verified customer, or the non-verified outcome, after checking the result
    agrees with call state (which only `check_identity` itself can set)."""
    identity = well_formed(IdentityResult, result, what="identity")
    customer = state.verified_customer
    if identity.outcome is IdentityOutcome.VERIFIED:
        if customer is None or customer.customer_id != identity.customer_id:
            raise ResultRejected("identity result claims a verification call state lacks")
        return customer
    if identity.outcome is IdentityOutcome.LOCKED and not state.identity.locked:
        raise ResultRejected("identity result claims a lock call state lacks")
    return identity.outcome


async def verified_customer(state: CallState, history: ChatContext) -> Customer:
    """The verified caller; runs the identity specialist first when there is none, and
    raises a speakable `ToolError` when the caller cannot be verified."""
    if state.identity.locked:
        raise ToolError(VERIFICATION_LOCKED)
    if state.verified_customer is not None:
        return state.verified_customer

    async def verify() -> Customer | IdentityOutcome:
        result = await delegate(
            state,
            VerifyIdentityTask(
                chat_ctx=history, line=state.line, policy=state.settings.identity_policy
            ),
            is_failure=lambda identity: identity.outcome is not IdentityOutcome.VERIFIED,
        )
        return validated_identity(result, state)

    outcome = await validated_with_retries(state, verify, what="identity")
    if isinstance(outcome, Customer):
        return outcome
    if outcome is IdentityOutcome.LOCKED:
        raise ToolError(VERIFICATION_LOCKED)
    raise ToolError(VERIFICATION_DECLINED)


@supervisor_tool(
    VerifyIdentityTask,
    IdentityResult,
    when_to_use=(
        "the caller wants something done on their account and nothing else fits. Other "
        "tools verify the caller themselves when needed."
    ),
    plain_name="Identity check",
    explains="Checks who the caller is: only a verified caller's account is read or changed.",
    expects=AccountTally(
        "identity_failures",
        lambda store, customer_id: store.identity_failures_since(customer_id, EVER),
        "failed identity checks recorded",
    ),
)
async def verify_identity(desk: Desk, context: RunContext[CallState]) -> str:
    """Verify the caller's identity. Use only when no other tool fits the request."""
    customer = await verified_customer(context.userdata, desk.recent_history())
    return f"Thank you, {quoted(customer.full_name)}, you are verified."
