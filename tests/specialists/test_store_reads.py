"""No wasted reads: an order number the caller already said is read from the store once."""

from __future__ import annotations

from typing import Any

from customer_service.settings import Settings
from customer_service.testing import call_session
from support.conversation import JORDAN, JORDAN_SAYS, check_identity, tool_outputs
from support.scripted_llm import Call, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay


async def test_a_lookup_with_the_number_given_reads_the_order_once(settings: Settings) -> None:
    model = ScriptedLLM(
        [
            Call("lookup_order", {"order_id": "100101"}),
            check_identity(JORDAN),
            relay,
            Call("lookup_order", {"order_id": "100102"}),
            relay,
        ]
    )
    async with call_session(model, settings=settings) as session:
        store = session.userdata.store
        get_order = store.get_order
        reads: list[str] = []

        async def counted(order_id: str) -> Any:
            reads.append(order_id)
            return await get_order(order_id)

        store.get_order = counted  # type: ignore[method-assign]
        await session.run(user_input="Where is my order 100101?")
        await session.run(user_input=JORDAN_SAYS)
        await session.run(user_input="And 100102?")
        assert reads == ["100101", "100102"]
        assert [o.is_error for o in tool_outputs(session, "lookup_order")] == [False, False]
    assert not model.overran
