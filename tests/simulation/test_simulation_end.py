"""A simulated call on LiveKit Cloud, run in process: the entrypoint under the framework's
fake job context, dispatched by the simulator with a scenario of `scenarios.yaml`, and
graded by `on_simulation_end` as the framework calls it when the simulation ends."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from google.protobuf import json_format
from livekit.agents import JobContext, simulation
from livekit.agents.testing import fake_job_context
from livekit.agents.types import ATTRIBUTE_SIMULATOR_DISPATCH

from customer_service import server
from customer_service.call.state import CallState
from customer_service.domain import OrderStatus
from customer_service.settings import get_settings
from customer_service.simulation.grading import on_simulation_end
from customer_service.simulation.scenarios import Scenario, load_scenarios
from support.offline_chat import JORDAN


@pytest.fixture
def offline_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A fresh machine without keys: the offline model, the default store in a data
    folder of this test's own (which a simulated call must never touch)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MODEL_PROVIDER", "offline")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    get_settings.cache_clear()
    yield tmp_path / "data"
    get_settings.cache_clear()


def scenario_labelled(label: str) -> Scenario:
    [found] = [s for s in load_scenarios().scenarios if s.label == label]
    return found


@asynccontextmanager
async def simulated_call(scenario: simulation.Scenario) -> AsyncIterator[JobContext]:
    """The entrypoint's call for a job the simulator dispatched with `scenario`."""
    dispatch = simulation.SimulationDispatch(
        simulation_run_id="SR_test", job_id="SJ_test", scenario=scenario
    )
    with fake_job_context(job_id="job-sim") as ctx:
        ctx.job.attributes[ATTRIBUTE_SIMULATOR_DISPATCH] = json_format.MessageToJson(dispatch)
        ctx.proc.userdata[server.VAD_KEY] = None
        await server.entrypoint(ctx)
        try:
            yield ctx
        finally:
            await ctx.primary_session.aclose()
            for shutdown_callback in ctx._shutdown_callbacks:
                await shutdown_callback("simulation over")


async def graded(ctx: JobContext) -> simulation.SimulationVerdict | None:
    context = ctx.simulation_context()
    assert context is not None
    await on_simulation_end(context)
    return context.user_verdict


def data_folder_exists(folder: Path) -> bool:
    return folder.exists()


CANCEL = "Cancel an order that has not shipped"


async def test_a_simulated_call_that_leaves_the_expected_state_is_not_vetoed(
    offline_environment: Path,
) -> None:
    async with simulated_call(scenario_labelled(CANCEL).to_livekit()) as ctx:
        session = ctx.primary_session
        state = session.userdata
        assert isinstance(state, CallState)
        for line in ["I want to cancel order 100102", JORDAN, "I ordered it by mistake", "yes"]:
            await session.run(user_input=line)
        order = await state.store.get_order("100102")
        assert order is not None
        assert order.status is OrderStatus.CANCELLED
        assert await graded(ctx) is None
    # The scenario's store was a scratch one: the machine's default store never opened.
    assert not data_folder_exists(offline_environment)


async def test_a_simulated_call_that_leaves_another_state_is_failed_with_the_reason(
    offline_environment: Path,
) -> None:
    async with simulated_call(scenario_labelled(CANCEL).to_livekit()) as ctx:
        session = ctx.primary_session
        for line in ["I want to cancel order 100102", JORDAN, "no, keep it"]:
            await session.run(user_input=line)
        verdict = await graded(ctx)
    assert verdict == simulation.SimulationVerdict(
        success=False,
        reason=(
            "order 100102: status is pending, expected cancelled; order 100102: cancel_reason "
            "is None, expected ordered by mistake"
        ),
    )


async def test_a_scenario_that_is_not_ours_is_left_to_the_simulators_verdict(
    offline_environment: Path,
) -> None:
    generated = simulation.Scenario(
        label="Generated", instructions="Ask for order 100101.", agent_expectations="Helps."
    )
    async with simulated_call(generated) as ctx:
        session = ctx.primary_session
        state = session.userdata
        assert isinstance(state, CallState)
        assert await state.store.get_customer("C-1001") is not None  # the demo store
        await session.run(user_input="I want to cancel order 100102")
        assert await graded(ctx) is None


async def test_a_store_outage_scenario_fails_the_simulated_calls_store(
    offline_environment: Path,
) -> None:
    async with simulated_call(scenario_labelled("The store is down").to_livekit()) as ctx:
        session = ctx.primary_session
        for line in ["Where is my order 100101?", JORDAN]:
            await session.run(user_input=line)
        assert "1Z999AA10123456784" not in str(session.history.to_dict())
        assert await graded(ctx) is None


async def test_a_job_shut_down_before_the_simulation_ends_is_graded_as_the_call_left_it(
    offline_environment: Path,
) -> None:
    async with simulated_call(scenario_labelled(CANCEL).to_livekit()) as ctx:
        session = ctx.primary_session
        for line in ["I want to cancel order 100102", JORDAN, "no, keep it"]:
            await session.run(user_input=line)
    # The job's shutdown ran first: its scratch store is closed and removed.
    verdict = await graded(ctx)
    assert verdict == simulation.SimulationVerdict(
        success=False,
        reason=(
            "order 100102: status is pending, expected cancelled; order 100102: cancel_reason "
            "is None, expected ordered by mistake"
        ),
    )


async def test_a_scenario_whose_userdata_cannot_be_read_fails_saying_why(
    offline_environment: Path,
) -> None:
    broken = simulation.Scenario(
        label="Broken",
        instructions="Ask for order 100101.",
        agent_expectations="Helps.",
        userdata='{"expect": {"orders": {"100101": {"status": "lost"}}}}',
    )
    async with simulated_call(broken) as ctx:
        state = ctx.primary_session.userdata
        assert isinstance(state, CallState)
        assert await state.store.get_order("100101") is not None  # the call still runs
        verdict = await graded(ctx)
    assert verdict is not None
    assert verdict.reason.startswith("the scenario's userdata cannot be read: ")
    assert "expect.orders.100101.status" in verdict.reason
