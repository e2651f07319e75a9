"""The store's commands: `migrate`, `seed-demo`, `identity-release`, `import-tau2` and
`export-tau2`. They need no LiveKit settings, only DATABASE_URL."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime as dt
import getpass
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError

from customer_service.entry import MISCONFIGURED_EXIT_CODE, VOICE_COMMANDS, command_of
from customer_service.settings import Settings
from customer_service.store import Store, StoreMisconfigured, StoreUnavailable
from customer_service.store.customers import CustomerRow
from customer_service.store.errors import shown_url, store_problem
from customer_service.store.schema import FIRST_REVISION, Upgrade, migrate_database
from customer_service.store.seed import DEMO_CUSTOMERS
from customer_service.store.shared import StoreConfig
from customer_service.store.tau2_data import Tau2ShapeError
from customer_service.store.tau2_records import read_json, write_json

RELEASE_COMMAND = "identity-release"

IMPORT_COMMAND = "import-tau2"
EXPORT_COMMAND = "export-tau2"

STORE_COMMANDS = frozenset(
    {"migrate", "seed-demo", RELEASE_COMMAND, IMPORT_COMMAND, EXPORT_COMMAND}
)
"""Commands that only work on the store (DATABASE_URL)."""

STORE_COMMAND_DESCRIPTIONS = {
    "migrate": "Bring the database at DATABASE_URL to the latest schema.",
    "seed-demo": "Add the demo customers and orders (README) that the store at DATABASE_URL "
    "lacks, and clear the failed identity checks held against the demo customers (audited); "
    "changes nothing else that is there, and adds nothing next to other customers unless "
    "--force.",
    RELEASE_COMMAND: "Release a held account: clear the failed identity checks counted "
    "against it, so its owner can verify by phone again. The audit log keeps what was "
    "cleared and who cleared it.",
    IMPORT_COMMAND: "Load τ²-bench's retail database (its db.json, or db.json.gz) into the "
    "store at DATABASE_URL, in one transaction; refused for a database that holds customers "
    "unless --force.",
    EXPORT_COMMAND: "Write the store at DATABASE_URL as τ²-bench's retail database (JSON; "
    "gzip-compressed when the name ends in .gz).",
}


OPERATOR_MAX_CHARS = 64
"""The longest operator name, and login name, an `identity-release` audit event keeps."""


class UnknownCustomer(Exception):
    """`identity-release` named an account the store does not have."""


class UnusableFile(Exception):
    """`import-tau2` or `export-tau2` cannot read or write the file it was given."""


def store_startup_problem(argv: Sequence[str], settings: Settings) -> str | None:
    """Why the store cannot serve the calls of a voice command (`console`, `dev`, `start`,
    `connect`), as a one-line message for the user, or None (also for other commands).

    Opens the store as every call will (migrating and seeding only where the settings
    say), so a missing driver, an unreachable server or a database that is behind stops
    the command here instead of failing each call. A store with no customers does not
    stop it (customers may be on their way in), but `EMPTY_STORE_NOTICE` goes to stderr.
    `chat` opens its own store and says the same.
    """
    if command_of(argv) not in VOICE_COMMANDS:
        return None
    config = StoreConfig.from_settings(settings)

    async def open_and_close() -> None:
        store = await config.open()
        try:
            if notice := await empty_store_notice(store):
                print(notice, file=sys.stderr)
        finally:
            await store.close()

    try:
        asyncio.run(open_and_close())
    except (StoreUnavailable, StoreMisconfigured) as error:
        return store_problem(error, config.database_url)
    return None


EMPTY_STORE_NOTICE = (
    "The store holds no customers, so no caller can be verified: `make seed-demo` adds the "
    f"demo ones, `python src/agent.py {IMPORT_COMMAND} DB.json` loads τ²-bench's retail "
    "database (benchmarks/tau2/data/db.json.gz)."
)


async def empty_store_notice(store: Store) -> str | None:
    """EMPTY_STORE_NOTICE when `store` holds no customer (a database migrated and never
    filled), else None; None too when it cannot be read, which the call will report.

    Counted on the store's engine: the agent's own reads all go through `Store` methods,
    and none of them counts customers."""
    try:
        async with store.engine.connect() as connection:
            customers = await connection.scalar(select(func.count()).select_from(CustomerRow))
    except (SQLAlchemyError, OSError):
        return None
    return EMPTY_STORE_NOTICE if not customers else None


def run_store_command(argv: list[str], settings: Settings) -> int:
    """`migrate`, `seed-demo`, `identity-release CUSTOMER_ID`, `import-tau2 DB.json` or
    `export-tau2 OUT.json`: prints what it did in one line, or the problem on stderr and
    returns MISCONFIGURED_EXIT_CODE."""
    command = command_of(argv)
    arguments = store_command_parser(command).parse_args(
        argv[argv.index(command) + 1 :] if command else []
    )
    config = StoreConfig.from_settings(settings)
    try:
        if command == "migrate":
            report = migrated(asyncio.run(migrate_database(settings.database_url)))
        elif command == IMPORT_COMMAND:
            report = asyncio.run(_import_tau2(config, arguments.db, force=arguments.force))
        elif command == EXPORT_COMMAND:
            report = asyncio.run(_export_tau2(config, arguments.out))
        elif command == RELEASE_COMMAND:
            report = asyncio.run(
                _release_identity_hold(
                    config, arguments.customer_id.strip(), released_by(arguments.operator)
                )
            )
        else:
            report = asyncio.run(_seed_demo(config, force=arguments.force))
    except (StoreUnavailable, StoreMisconfigured) as error:
        print(store_problem(error, settings.database_url), file=sys.stderr)
        return MISCONFIGURED_EXIT_CODE
    except (UnknownCustomer, UnusableFile) as error:
        print(f"{shown_url(settings.database_url)}: {error}", file=sys.stderr)
        return MISCONFIGURED_EXIT_CODE
    print(f"{shown_url(settings.database_url)}: {report}")
    return 0


def store_command_parser(command: str | None) -> argparse.ArgumentParser:
    """The options of store command `command`, which need none of the settings (its
    `--help` prints them)."""
    parser = argparse.ArgumentParser(
        prog=f"agent.py {command}",
        description=STORE_COMMAND_DESCRIPTIONS.get(command or "", ""),
    )
    if command == "seed-demo":
        parser.add_argument(
            "--force",
            action="store_true",
            help="add them even to a database that holds other customers (their details "
            "are public: for test databases only)",
        )
    if command == IMPORT_COMMAND:
        parser.add_argument("db", metavar="DB.json", type=Path)
        parser.add_argument(
            "--force",
            action="store_true",
            help="load it beside the customers the database holds (records with the data's "
            "ids are replaced)",
        )
    if command == EXPORT_COMMAND:
        parser.add_argument("out", metavar="OUT.json", type=Path)
    if command == RELEASE_COMMAND:
        parser.add_argument("customer_id", metavar="CUSTOMER_ID", help="for example C-1001")
        parser.add_argument(
            "--operator",
            type=operator_name,
            metavar="NAME",
            help=f"who releases it, for the audit log (1 to {OPERATOR_MAX_CHARS} printable "
            "characters); the login name is recorded beside it, and alone without it",
        )
    return parser


def migrated(upgrade: Upgrade) -> str:
    """What `migrate` did, for its one line."""
    if upgrade.adopted:
        then = "" if upgrade.after == FIRST_REVISION else f", then migrated to {upgrade.after}"
        return (
            f"recorded its tables from before migrations at schema revision {FIRST_REVISION}"
            f"{then} (the latest)."
        )
    if upgrade.before == upgrade.after:
        return f"already at the latest schema revision, {upgrade.after}."
    if upgrade.before is None:
        return f"created the store's tables at schema revision {upgrade.after} (the latest)."
    return f"migrated from schema revision {upgrade.before} to {upgrade.after} (the latest)."


async def _seed_demo(config: StoreConfig, *, force: bool) -> str:
    # Opened as calls open it, less their seeding (SEED_DEMO_DATA's), then seeded here.
    store = await dataclasses.replace(config, seed_demo_data=False).open()
    try:
        added = await store.seed_demo_data(force=force)
        released = await _release_demo_holds(store)
    finally:
        await store.close()
    if not added.customers and not added.orders:
        said = "the demo data is already there"
    else:
        said = f"added {added.customers} demo customers and {added.orders} demo orders"
    if released:
        held = ", ".join(released)
        said += f"; cleared the failed identity checks of {held}, kept in the audit log"
    return f"{said}."


DEMO_RELEASE = "seed-demo"
"""Who released a demo customer's hold, in its audit event."""


async def _release_demo_holds(store: Store) -> list[str]:
    """Clears the failed identity checks counted against the demo customers, each release
    audited as `identity-release` audits it, so that trying the README's lockout (a wrong
    postal code three times) holds no demo account for the examples after it. Only a
    customer stored as the demo has it; the ids of those it cleared."""
    call_id = f"{DEMO_RELEASE}-{uuid.uuid4().hex[:12]}"
    released = []
    for demo in DEMO_CUSTOMERS:
        stored = await store.get_customer(demo.customer_id)
        if stored is None or stored.email != demo.email:
            continue
        if not await store.identity_failures_since(demo.customer_id, _EVER):
            continue
        await store.release_identity_hold(
            demo.customer_id, call_id=call_id, released_by=DEMO_RELEASE
        )
        released.append(demo.customer_id)
    return released


_EVER = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


async def _import_tau2(config: StoreConfig, path: Path, *, force: bool) -> str:
    try:
        data = read_json(path)
    except (OSError, ValueError, EOFError) as error:
        raise UnusableFile(f"{path} could not be read as JSON ({type(error).__name__}).") from error
    # Opened as calls open it, less their seeding: the benchmark's customers are the data.
    store = await dataclasses.replace(config, seed_demo_data=False).open()
    try:
        imported = await store.import_tau2(data, force=force)
    except Tau2ShapeError as error:
        raise UnusableFile(f"{path} is not τ²-bench's retail database: {error}") from error
    finally:
        await store.close()
    return (
        f"loaded τ²-bench's retail database: {imported.products} products, "
        f"{imported.customers} customers, {imported.orders} orders."
    )


async def _export_tau2(config: StoreConfig, path: Path) -> str:
    store = await dataclasses.replace(config, seed_demo_data=False).open()
    try:
        data = await store.export_tau2()
    finally:
        await store.close()
    try:
        write_json(path, data)
    except OSError as error:
        raise UnusableFile(f"{path} could not be written ({error.strerror or error}).") from error
    return (
        f"wrote {len(data['products'])} products, {len(data['users'])} customers and "
        f"{len(data['orders'])} orders to {path} in τ²-bench's shape."
    )


async def _release_identity_hold(config: StoreConfig, customer_id: str, operator: str) -> str:
    # Opened as calls open it, less their seeding: a release never adds customers.
    store = await dataclasses.replace(config, seed_demo_data=False).open()
    try:
        release = await store.release_identity_hold(
            customer_id,
            call_id=f"{RELEASE_COMMAND}-{uuid.uuid4().hex[:12]}",
            released_by=operator,
        )
    finally:
        await store.close()
    if release is None:
        raise UnknownCustomer(f"no customer has the id {customer_id!r}; nothing was released.")
    if release.last_failed_at is None:
        return f"{customer_id} had no failed identity checks to clear; the release is recorded."
    checks = "check" if release.failures == 1 else "checks"
    return (
        f"released {customer_id}: cleared {release.failures} failed identity {checks} (the "
        f"latest at {release.last_failed_at:%Y-%m-%d %H:%M} UTC), kept in the audit log; "
        "the customer can verify by phone again."
    )


def operator_name(given: str) -> str:
    """`--operator NAME` as the audit log keeps it: its spaces collapsed, refused when it
    is empty, longer than OPERATOR_MAX_CHARS or holds a character that does not print
    (a line break or a terminal escape would forge or hide lines where it is read)."""
    name = given.strip()
    if not name.isprintable():
        name = ""
    name = " ".join(name.split())
    if not 0 < len(name) <= OPERATOR_MAX_CHARS:
        raise argparse.ArgumentTypeError(f"1 to {OPERATOR_MAX_CHARS} printable characters")
    return name


def login_name() -> str:
    """The login name the command runs under (LOGNAME, USER, ... or the password
    database), each character that does not print as '?', cut to OPERATOR_MAX_CHARS: the
    environment may hold anything."""
    try:
        login = getpass.getuser()
    except (OSError, KeyError):  # no login name and no passwd entry (some containers)
        return "unknown"
    shown = "".join(char if char.isprintable() else "?" for char in login).strip()
    return shown[:OPERATOR_MAX_CHARS] or "unknown"


def released_by(operator: str | None) -> str:
    """Who released a hold, for its audit event: the operator named and the login name,
    or the login name alone when none was named."""
    login = login_name()
    return login if operator is None else f"{operator} (login {login})"
