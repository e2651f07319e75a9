"""τ²-bench's retail tasks done through the agent: each task's gold writes made by a
scripted model through the supervisor's and the specialists' own tools, with the
caller's yes to every read-back, leave the records τ²-bench's tools leave.

The store is τ²-bench's database, imported; identity is the benchmark's rule
(`IDENTITY_POLICY=email-or-name-zip`). Everything between the model's choices and the
store runs as in a call: the supervisor's policy, the specialists' checks, the
confirmations read in code. A task whose gold calls the tools cannot express is named
with its reason in `NOT_EXPRESSIBLE`, and the test fails if that list is wrong either way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from benchmarks.tau2.agent_side import text_agent
from benchmarks.tau2.grading import differing_records
from benchmarks.tau2.replay import changed_records
from benchmarks.tau2.stores import FreshStores
from benchmarks.tau2.users import is_stop

from customer_service.settings import IdentityPolicy, Settings
from support.databases import new_database

from .expected import DB, EXPECTED, TASKS, comparable, corrected
from .gold_agent import NotExpressible, gold_pair

NOT_EXPRESSIBLE: dict[str, str] = {}
"""Task id: why the agent's tools cannot make its gold calls."""
CHUNKS = 4


async def records_after_the_call(
    stores: FreshStores, settings: Settings, task: dict[str, Any]
) -> dict[str, Any]:
    try:
        model, user = gold_pair(DB, task)
    except ValueError:  # no write: nothing changes
        return changed_records(DB, DB)
    async with stores.fresh() as store:
        async with text_agent(model, store, settings) as agent:
            said = agent.greeting()
            while not is_stop(line := await user.reply(said)):
                said = (await agent.answer(line)).said
        return changed_records(DB, await store.export_tau2())


@pytest.mark.parametrize("chunk", range(CHUNKS))
async def test_every_task_the_tools_can_express_leaves_tau2_benchs_records(
    chunk: int, store_backend: str, tmp_path: Path, settings: Settings
) -> None:
    settings = settings.model_copy(update={"identity_policy": IdentityPolicy.EMAIL_OR_NAME_ZIP})
    tasks = TASKS[chunk::CHUNKS]
    differing: dict[str, Any] = {}
    unexpressible: dict[str, str] = {}
    async with (
        new_database(store_backend, tmp_path) as url,
        FreshStores(DB, None if store_backend == "sqlite" else url) as stores,
    ):
        for task in tasks:
            try:
                ours = await records_after_the_call(stores, settings, task)
            except NotExpressible as reason:
                unexpressible[task["id"]] = str(reason)
                continue
            expected = corrected(task, EXPECTED[task["id"]])
            differs = differing_records(comparable(ours), comparable(expected))
            if differs:
                differing[task["id"]] = differs
    assert differing == {}
    ids = {task["id"] for task in tasks}
    assert unexpressible == {key: NOT_EXPRESSIBLE[key] for key in NOT_EXPRESSIBLE if key in ids}
