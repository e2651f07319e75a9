"""Identity verification: the gate in front of every order detail and every change.

The task collects what the call's `IDENTITY_POLICY` checks and checks it in code
(`call/identity_policy.py`): a failed check is counted against the call and the accounts
it came close to, and enough of them lock verification for the rest of the call. Every
other specialist that needs a verified caller runs this one first (`verified_customer`).

Here the task, its delegation and the registration; `wording.py` what the caller hears
(the opening questions, the refusals, one mismatch for every wrong detail); `check.py`
the check with its limits and counting; `said.py` details said in one line, checked by
code with no model request; `calling_number.py` the number a phone line presented, once
the caller confirms it; `result.py` the result and its check.
"""

from __future__ import annotations

from textwrap import dedent

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import ChatContext, ToolFlag
from livekit.agents.types import NOT_GIVEN, NotGivenOr

from customer_service.call.delegation import delegate, validated_with_retries
from customer_service.call.empty_replies import answers_the_caller
from customer_service.call.fixed_sentences import fixed
from customer_service.call.guard import guarded
from customer_service.call.identity_policy import (
    EMAIL_OR_NAME_ZIP_INSTRUCTIONS,
    MISSING_EMAIL_OR_NAME_ZIP,
    NO_DETAILS_WAY_OUT,
    OPENING_QUESTION_EMAIL_OR_NAME_ZIP,
    GivenDetails,
    check_tool,
    offers_contact_detail,
    offers_details_for,
    without_new_values,
)
from customer_service.call.phrase_cache import say
from customer_service.call.registration import Desk, supervisor_tool
from customer_service.call.state import CallerLine, CallState
from customer_service.call.wording import PERSONA, quoted
from customer_service.domain import Customer
from customer_service.settings import IdentityPolicy
from customer_service.simulation.expectations import EVER, AccountTally
from customer_service.specialists.identity.calling_number import CallingNumberCheck
from customer_service.specialists.identity.check import MAX_DETAIL_LENGTH as MAX_DETAIL_LENGTH
from customer_service.specialists.identity.result import (
    IdentityOutcome,
    IdentityResult,
    validated_identity,
)
from customer_service.specialists.identity.said import CHECK_DETAILS_SAID as CHECK_DETAILS_SAID
from customer_service.specialists.identity.said import DetailsSaidCheck
from customer_service.specialists.identity.wording import DETAILS_TOO_LONG as DETAILS_TOO_LONG
from customer_service.specialists.identity.wording import OPENING_QUESTION as OPENING_QUESTION
from customer_service.specialists.identity.wording import (
    OPENING_QUESTION_ON_A_PHONE as OPENING_QUESTION_ON_A_PHONE,
)
from customer_service.specialists.identity.wording import (
    VERIFICATION_DECLINED as VERIFICATION_DECLINED,
)
from customer_service.specialists.identity.wording import VERIFICATION_LOCKED as VERIFICATION_LOCKED
from customer_service.specialists.identity.wording import mismatch_message as mismatch_message
from customer_service.telephony.caller_id import (
    CALLING_NUMBER_INSTRUCTIONS,
    CallingNumberConfirmation,
)

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


class VerifyIdentityTask(DetailsSaidCheck, CallingNumberCheck):
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

    @function_tool(flags=ToolFlag.IGNORE_ON_ENTER)
    @guarded(count_repeats=False)
    async def give_up(self, context: RunContext[CallState]) -> None:
        """Call when the caller cannot or will not give the details, or wants to stop."""
        self.finish(IdentityResult(outcome=IdentityOutcome.GAVE_UP))


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
