"""No wasted reads: an order the caller asks about is read from the store once, in the
transaction that records its disclosure; a request with no number reads the caller's
recent orders once more, to see whether it names one or whether they have only one."""

from __future__ import annotations

from pathlib import Path

from customer_service.settings import Settings
from customer_service.testing import call_session, open_demo_store, sqlite_url
from customer_service.testing.database_work import DatabaseWork, recording
from support.conversation import JORDAN, JORDAN_SAYS, tool_outputs, verifying_for
from support.scripted_llm import Call, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

ORDER_READ = "SELECT orders.order_id, orders.customer_id,"


def order_reads(seen: DatabaseWork) -> list[list[str]]:
    """Each transaction that read an order, as its statements."""
    return [statements for statements in seen.committed if ORDER_READ in statements]


async def test_each_lookup_reads_its_order_once_with_its_disclosure(
    settings: Settings, tmp_path: Path
) -> None:
    model = ScriptedLLM(
        [
            *verifying_for("lookup_order", "100101", JORDAN),
            relay,
            # No number this time: the order-lookup specialist asks for it.
            Call("lookup_order"),
            Call("lookup", {"order_id": "100102"}),
            relay,
        ]
    )
    async with await open_demo_store(sqlite_url(tmp_path / "store.sqlite3")) as store:
        with recording(store.engine) as seen:
            async with call_session(model, settings=settings, store=store.for_call()) as session:
                await session.run(user_input="Where is my order 100101?")
                await session.run(user_input=JORDAN_SAYS)
                await session.run(user_input="And another order, please.")
                await session.run(user_input="It's 100102.")
                outputs = tool_outputs(session, "lookup_order")
                assert [output.is_error for output in outputs] == [False, False]
                assert session.userdata.disclosed_order_ids == ["100101", "100102"]

        reads = order_reads(seen)
        disclosing = [
            statements for statements in reads if "INSERT INTO audit_events" in statements
        ]
        assert len(disclosing) == 2
        for statements in disclosing:
            # The read and the disclosure record are one transaction.
            assert statements.count(ORDER_READ) == 1
        # "And another order": one read of the caller's recent orders, nothing said of them.
        assert len(reads) == 3
    assert not model.overran
