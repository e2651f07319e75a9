"""A caller who changes topic inside a specialist, end to end on the offline model: the
specialist stops with nothing saved, is not counted as failing, and the supervisor
takes the new request."""

from __future__ import annotations

from customer_service.call.wording import ANYTHING_ELSE, BOUND_APOLOGY, WELCOME
from customer_service.offline_llm import OfflineLLM
from customer_service.settings import RecordingConsent, Settings
from customer_service.specialists.consent import CONSENT_WORDING, ConsentTopic
from customer_service.specialists.identity import OPENING_QUESTION as IDENTITY_QUESTION
from customer_service.store import Store
from customer_service.testing import call_session
from support.conversation import agent_lines
from support.demo_addresses import MARKET_STREET_SUITE_5
from support.offline_chat import GOODBYE, JORDAN, chat, demo_order, stored_order

SMS = ConsentTopic.ORDER_UPDATES_SMS
RECORDING = ConsentTopic.CALL_RECORDING
RECORDING_QUESTION = CONSENT_WORDING[RECORDING].question
CANCEL_QUESTION = (
    "Order 1 0 0, 1 0 2 contains a Ceramic pour-over coffee set. Why would you like to cancel "
    "it: because you no longer need it, or because it was ordered by mistake?"
)


async def test_leaving_a_specialist_again_and_again_is_no_failure(
    demo_database_url: str,
) -> None:
    said = (
        await chat(
            demo_database_url,
            "please cancel order 100102",
            JORDAN,
            "hmm, where's order 100101 then",
            "ok, cancel order 100102",
            "no wait, what's the status of order 100101",
            "I want to cancel an order after all",
            "100102",
        )
    ).agent
    # Two runs left for another request are not two failures in a row: the third starts.
    assert said[-1] == CANCEL_QUESTION
    assert BOUND_APOLOGY not in said
    assert sum(line.startswith("Order 1 0 0, 1 0 1, placed on") for line in said) == 2
    assert (await stored_order(demo_database_url, "100102")).status == (demo_order("100102").status)
    async with await Store.open(demo_database_url) as store:
        runs = await store.audit_events(kind="delegation")
    outcomes = [
        event.detail["outcome"]
        for event in runs
        if event.detail["specialist"] == "cancellation_task"
    ]
    assert outcomes == ["left", "left"]


async def test_a_new_request_instead_of_answering_the_text_offer(demo_database_url: str) -> None:
    said = (
        await chat(
            demo_database_url,
            "I need to change the delivery address for order 100102",
            JORDAN,
            "1 Market Street, Suite 5, San Francisco, CA 94105",
            "yes",
            "actually, is order 100101 on its way? the tracking please",
            "that's all, bye",
        )
    ).agent
    assert said[-4] == CONSENT_WORDING[SMS].question
    assert said[-3].startswith("Order 1 0 0, 1 0 1, placed on")
    assert said[-2:] == [ANYTHING_ELSE, GOODBYE]
    assert (await stored_order(demo_database_url, "100102")).shipping_address == (
        MARKET_STREET_SUITE_5
    )
    async with await Store.open(demo_database_url) as store:
        assert await store.latest_consent(topic=SMS, customer_id="C-1001") is None


async def test_a_request_instead_of_answering_the_recording_question(settings: Settings) -> None:
    asking = settings.model_copy(update={"recording_consent": RecordingConsent.ASK})
    async with call_session(OfflineLLM(), settings=asking) as session:
        await session.run(user_input="cancel order 100102 please")
        said = agent_lines(session)
        # The request is taken at once; the call is not recorded without a yes.
        assert said[0] == f"{WELCOME} {RECORDING_QUESTION}"
        assert said[-1] == IDENTITY_QUESTION
        state = session.userdata
        assert state.recording is False
        assert await state.store.latest_consent(topic=RECORDING, call_id=state.call_id) is None
