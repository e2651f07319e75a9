"""`examples/`: the SIP files docs/operating.md's phone walk-through feeds to `lk sip ... create`,
and the script that reads the agent's attributes."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from livekit import api
from livekit.protocol import sip

from customer_service.settings import PROJECT_ROOT
from customer_service.telephony.attributes import ORDER_ID, SPECIALIST, VERIFIED
from support.agent_process import child_environment

EXAMPLES = PROJECT_ROOT / "examples"
SIP = EXAMPLES / "sip"
WATCHER = EXAMPLES / "attributes" / "watch_agent_attributes.py"
OPERATING = (PROJECT_ROOT / "docs" / "operating.md").read_text()
"""The operator's document, whose phone walk-through feeds these files to `lk sip`."""

# Each file and the request `lk sip <kind> create FILE` reads it as.
SIP_REQUESTS: dict[str, type[Message]] = {
    "inbound-trunk.json": sip.CreateSIPInboundTrunkRequest,
    "dispatch-rule.json": sip.CreateSIPDispatchRuleRequest,
    "outbound-trunk.json": sip.CreateSIPOutboundTrunkRequest,
}
CREATE_COMMANDS = {
    "inbound-trunk.json": "lk sip inbound create examples/sip/inbound-trunk.json",
    "dispatch-rule.json": "lk sip dispatch create examples/sip/dispatch-rule.json",
    "outbound-trunk.json": "lk sip outbound create examples/sip/outbound-trunk.json",
}


def request(name: str) -> Any:
    """The file parsed strictly (an unknown field fails) into its API request."""
    return json_format.Parse((SIP / name).read_text(), SIP_REQUESTS[name]())


@pytest.mark.parametrize("name", sorted(SIP_REQUESTS))
def test_each_sip_file_is_the_request_its_create_command_reads(name: str) -> None:
    assert isinstance(json.loads((SIP / name).read_text()), dict)
    request(name)
    assert CREATE_COMMANDS[name] in OPERATING


def test_sip_folder_holds_the_three_files_and_nothing_else() -> None:
    assert {path.name for path in SIP.iterdir()} == set(SIP_REQUESTS)


def test_inbound_trunk_takes_calls_to_a_phone_number() -> None:
    trunk = request("inbound-trunk.json").trunk
    assert trunk.name
    assert len(trunk.numbers) == 1
    assert re.fullmatch(r"\+\d{8,15}", trunk.numbers[0])
    assert trunk.numbers[0] in OPERATING


def test_dispatch_rule_gives_each_call_a_room_with_the_agent_named_in_the_walk_through() -> None:
    rule = request("dispatch-rule.json").dispatch_rule
    # Callee dispatch names the room after the number called, the business's, never the
    # caller's (individual dispatch would); the random suffix makes a room per call.
    assert rule.rule.WhichOneof("rule") == "dispatch_rule_callee"
    callee = rule.rule.dispatch_rule_callee
    assert callee.randomize
    assert not callee.pin
    prefix = callee.room_prefix
    assert prefix
    # The caller's number still reaches the agent, as the participant's attribute
    # (caller ID checks use it); hiding it would drop that too.
    assert not rule.hide_phone_number
    [dispatch] = rule.room_config.agents
    # The walk-through tells the user to set AGENT_NAME to this very name.
    assert f"AGENT_NAME={dispatch.agent_name}" in OPERATING
    assert f"`{prefix}`" in OPERATING
    # No trunk filter: the rule matches the inbound trunk whatever ID it gets.
    assert list(rule.trunk_ids) == []


def test_outbound_trunk_has_what_a_warm_transfer_dials_through() -> None:
    trunk = request("outbound-trunk.json").trunk
    assert trunk.address
    assert len(trunk.numbers) == 1
    assert trunk.auth_username
    assert trunk.auth_password
    for setting in ("SIP_OUTBOUND_TRUNK_ID", "TRANSFER_NUMBER"):
        assert setting in OPERATING


# The attribute watcher


def load_watcher() -> ModuleType:
    spec = importlib.util.spec_from_file_location("watch_agent_attributes", WATCHER)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_watcher_shows_the_attributes_the_agent_publishes() -> None:
    watcher = load_watcher()
    assert {SPECIALIST, VERIFIED, ORDER_ID} <= set(watcher.SHOWN)
    line = watcher.describe("agent-AJ_1", {SPECIALIST: "order_lookup", VERIFIED: "true"})
    assert line == (
        "agent-AJ_1: cs.specialist=order_lookup cs.verified=true cs.order_id=- lk.agent.state=-"
    )


def test_watcher_takes_its_room_and_credentials_from_the_command_line() -> None:
    args = load_watcher().parse_args(
        ["--room", "call-1", "--url", "ws://localhost:7880", "--api-key", "k", "--api-secret", "s"]
    )
    assert (args.room, args.url, args.api_key, args.api_secret) == (
        "call-1",
        "ws://localhost:7880",
        "k",
        "s",
    )


def test_watcher_token_joins_its_room_hidden_and_publishes_nothing() -> None:
    watcher = load_watcher()
    args = watcher.parse_args(["--room", "call-1", "--api-key", "APIkey", "--api-secret", "s" * 32])
    claims = api.TokenVerifier("APIkey", "s" * 32).verify(watcher.watcher_token(args))
    grants = claims.video
    assert grants is not None
    assert (grants.room, grants.room_join, grants.hidden) == ("call-1", True, True)
    assert not grants.can_publish
    assert not grants.can_publish_data


def test_watcher_help_runs_offline(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(WATCHER), "--help"],
        cwd=tmp_path,
        env=child_environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "--room" in result.stdout


def test_watcher_without_credentials_says_which_are_missing(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(WATCHER), "--room", "call-1"],
        cwd=tmp_path,
        env=child_environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert "LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET not set" in result.stderr
