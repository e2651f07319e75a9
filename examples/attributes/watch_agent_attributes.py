"""Prints the customer-service agent's attributes in a room, and every change to them.

The agent publishes the call's progress as its participant attributes (see
`customer_service.telephony.attributes`): which specialist is at work, whether the caller
has been verified, and the order last read out. This script joins the room as a hidden
participant that publishes nothing, so neither the agent nor the caller notices it, and
prints one line per change:

    python examples/attributes/watch_agent_attributes.py --room ROOM

It reads LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET like the agent does (the
environment, then `.env.local` and `.env`), or takes `--url`, `--api-key`, `--api-secret`.
`lk room list` shows the rooms; a phone call's room name starts with `call-`, the room
prefix in `examples/sip/dispatch-rule.json`. A web frontend reads the same thing with its
LiveKit client SDK: the agent participant's `attributes`, and the room's
`ParticipantAttributesChanged` event.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Mapping, Sequence

from livekit import api, rtc

from customer_service.settings import load_env_files
from customer_service.telephony.attributes import ORDER_ID, SPECIALIST, VERIFIED

AGENT_STATE = "lk.agent.state"
"""Published by the LiveKit framework itself: initializing, listening, thinking, speaking."""

SHOWN = (SPECIALIST, VERIFIED, ORDER_ID, AGENT_STATE)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Print the customer-service agent's participant attributes as they change."
    )
    parser.add_argument("--room", required=True, help="the room to watch (see `lk room list`)")
    parser.add_argument("--url", default=os.environ.get("LIVEKIT_URL", ""), help="LIVEKIT_URL")
    parser.add_argument(
        "--api-key", default=os.environ.get("LIVEKIT_API_KEY", ""), help="LIVEKIT_API_KEY"
    )
    parser.add_argument(
        "--api-secret", default=os.environ.get("LIVEKIT_API_SECRET", ""), help="LIVEKIT_API_SECRET"
    )
    parser.add_argument(
        "--identity", default="attribute-watcher", help="this watcher's participant identity"
    )
    return parser.parse_args(argv)


def watcher_token(args: argparse.Namespace) -> str:
    """A token for a hidden participant that may join `args.room` and do nothing else."""
    grants = api.VideoGrants(
        room_join=True,
        room=args.room,
        hidden=True,
        can_publish=False,
        can_publish_data=False,
        can_subscribe=False,
    )
    return (
        api.AccessToken(args.api_key, args.api_secret)
        .with_identity(args.identity)
        .with_grants(grants)
        .to_jwt()
    )


def is_agent(participant: rtc.Participant) -> bool:
    return participant.kind == rtc.ParticipantKind.PARTICIPANT_KIND_AGENT


def describe(identity: str, attributes: Mapping[str, str]) -> str:
    """One line: the agent's identity, then each attribute of interest (`-` when unset)."""
    values = " ".join(f"{key}={attributes.get(key) or '-'}" for key in SHOWN)
    return f"{identity}: {values}"


async def watch(args: argparse.Namespace) -> int:
    room = rtc.Room()
    finished = asyncio.Event()

    @room.on("participant_connected")
    def joined(participant: rtc.RemoteParticipant) -> None:
        if is_agent(participant):
            print(describe(participant.identity, participant.attributes), flush=True)

    @room.on("participant_attributes_changed")
    def changed(changed: dict[str, str], participant: rtc.Participant) -> None:
        if is_agent(participant):
            print(describe(participant.identity, participant.attributes), flush=True)

    @room.on("participant_disconnected")
    def left(participant: rtc.RemoteParticipant) -> None:
        if is_agent(participant):
            print(f"{participant.identity} left the room", flush=True)

    @room.on("disconnected")
    def disconnected(reason: rtc.DisconnectReason.ValueType) -> None:
        finished.set()

    loop = asyncio.get_running_loop()
    for stop in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(stop, finished.set)

    try:
        await room.connect(args.url, watcher_token(args), rtc.RoomOptions(auto_subscribe=False))
    except rtc.ConnectError as error:
        print(f"Cannot join {args.room} at {args.url}: {error}", file=sys.stderr)
        return 1
    agents = [p for p in room.remote_participants.values() if is_agent(p)]
    if not agents:
        print(f"No agent in {args.room} yet; waiting (Ctrl+C to stop).", flush=True)
    for agent in agents:
        print(describe(agent.identity, agent.attributes), flush=True)
    await finished.wait()
    await room.disconnect()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    load_env_files()
    args = parse_args(argv)
    missing = [
        name
        for name, value in (
            ("LIVEKIT_URL", args.url),
            ("LIVEKIT_API_KEY", args.api_key),
            ("LIVEKIT_API_SECRET", args.api_secret),
        )
        if not value
    ]
    if missing:
        print(f"{', '.join(missing)} not set (environment or options).", file=sys.stderr)
        return 2
    return asyncio.run(watch(args))


if __name__ == "__main__":
    sys.exit(main())
