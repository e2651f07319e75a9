"""A call that a test kills mid-way: `python -m support.call_until_killed DATABASE_URL`.

Jordan verifies (one event stored at once, one kept: the identity specialist's run),
then asks about Priya's order 200201 (kept: `order_not_found`, the probe an operator
wants to see). No write follows and the call never ends: once the second turn has been
answered, the process prints `TURNS_ANSWERED` and the call's id, then waits to be killed.
"""

from __future__ import annotations

import asyncio
import sys

from customer_service.testing import call_session
from support.conversation import JORDAN, JORDAN_SAYS, check_identity
from support.scripted_llm import Call, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

TURNS_ANSWERED = "TURNS_ANSWERED"
STORED_BY_THEN = ["identity_verified", "delegation", "order_not_found"]
"""The call's audit events, oldest first, once both turns were answered."""


async def call_until_killed(database_url: str) -> None:
    model = ScriptedLLM(
        [
            Call("verify_identity"),
            check_identity(JORDAN),
            relay,
            Call("lookup_order", {"order_id": "200201"}),
            relay,
        ]
    )
    async with call_session(model, database_url=database_url) as session:
        await session.run(user_input=f"Please verify me: {JORDAN_SAYS}.")
        await session.run(user_input="And where is order 200201?")
        print(TURNS_ANSWERED, session.userdata.call_id, flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(call_until_killed(sys.argv[1]))
