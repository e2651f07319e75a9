"""A new specialist, built from the contributing guide's steps in a package of its own
(its registration, its offline module, its test module's declarations), is picked up by
every shared suite and table with no other file changed; one that declares too little
fails naming what it lacks."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from customer_service.call.registration import SpecialistRegistration, registrations_in
from customer_service.offline_llm import routing
from customer_service.offline_llm.specialists import OfflineSpecialist, registered, specialists_in
from customer_service.reports.names import Name, names_of
from customer_service.simulation import state
from customer_service.specialists import SPECIALISTS
from support.confirming import Confirming, confirming_cases
from support.own_tests import offline_chats
from support.scenario_store import opened, scenario

SPECIALIST = '''
"""The caller's email on their account: a specialist written as the guide says."""

from __future__ import annotations

from livekit.agents import RunContext
from pydantic import BaseModel, ConfigDict

from customer_service.call.registration import Desk, supervisor_tool
from customer_service.call.specialist import Specialist
from customer_service.call.state import CallState
from customer_service.simulation.expectations import AccountExpectation


class ContactDetailsResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    email: str


class ContactDetailsTask(Specialist[ContactDetailsResult]):
    def __init__(self) -> None:
        super().__init__(instructions="Ask for the new email address.")


ACCOUNTS_EMAILS = AccountExpectation("emails", str, lambda account: account.email, "email")


@supervisor_tool(
    ContactDetailsTask,
    ContactDetailsResult,
    when_to_use="the caller wants the email on their account changed.",
    menu_phrase="change the email on your account",
    writes="contact_details_changed",
    plain_name="Contact details change",
    explains="The email on the account.",
    expects=ACCOUNTS_EMAILS,
)
async def change_contact_details(desk: Desk, context: RunContext[CallState]) -> str:
    """Change the email address on the caller's account."""
    await desk.verified_caller(context.userdata)
    return "Nothing was changed."
'''

OFFLINE_MODULE = """
from customer_service.offline_llm.conversation import Say
from customer_service.offline_llm.specialists import OfflineSpecialist

SPECIALIST = OfflineSpecialist(
    name="contact_details",
    markers=frozenset({"record_email", "confirm_email"}),
    respond=lambda conversation: Say("What's the new email address?"),
    prompt=lambda conversation: "What's the new email address?",
    route=lambda conversation: None,
    route_rank=29,
    menu_rank=27,
)
"""

TEST_MODULE = """
from support.confirming import Confirming
from support.conversation import JORDAN, JORDAN_SAYS, check_identity
from support.own_tests import OfflineChat
from support.scripted_llm import Call


async def email_changed(session: object) -> bool:
    return False


CONFIRMING = Confirming(
    supervisor_tool="change_contact_details",
    confirm=Call("confirm_email"),
    caller=JORDAN,
    lines_to_read_back=("Change my email", JORDAN_SAYS, "jordan@example.org"),
    steps_to_read_back=(
        Call("change_contact_details"),
        check_identity(JORDAN),
        Call("record_email", {"email": "jordan@example.org"}),
    ),
    changed=email_changed,
    nothing_changed="All right, I haven't changed your email.",
    other_than_read_back=("No", Call("confirm_email")),
    account="C-1001",
)
OFFLINE_CHAT = OfflineChat(("Change my email", JORDAN_SAYS, "jordan@example.org", "yes", "bye"))
"""


@dataclass(frozen=True)
class NewSpecialist:
    registration: SpecialistRegistration
    offline: OfflineSpecialist
    tests: Path


def _package(root: Path, name: str, module: str, source: str) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "__init__.py").write_text("", encoding="utf-8")
    (folder / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    return folder


def _build(root: Path, test_module: str) -> NewSpecialist:
    specialists = _package(root, "new_specialists", "contact_details", SPECIALIST)
    offline = _package(root, "new_offline_specialists", "contact_details", OFFLINE_MODULE)
    tests = root / "new_tests"
    tests.mkdir()
    (tests / "test_contact_details.py").write_text(test_module, encoding="utf-8")
    (registration,) = registrations_in("new_specialists", [str(specialists)])
    (played,) = specialists_in("new_offline_specialists", [str(offline)], [registration])
    return NewSpecialist(registration, played, tests)


@pytest.fixture
def new_package_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder importable for this test only: the modules it adds are forgotten after."""
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name.startswith(("new_", "test_contact_details")):
            del sys.modules[name]


def test_a_new_specialist_joins_every_shared_suite_by_being_registered(
    new_package_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    new = _build(new_package_root, TEST_MODULE)
    registrations = (*SPECIALISTS, new.registration)
    assert new.registration.name == "contact_details"
    assert new.registration.name not in {entry.name for entry in SPECIALISTS}

    # The confirmation suites (misbehaving models, a yes with a new request).
    confirming = confirming_cases([new.registration], new.tests)
    assert (confirming.names, confirming.missing) == (["contact_details"], [])
    (case,) = confirming.cases
    assert isinstance(case, Confirming)
    # An account-level change: the suite's test for another customer's account runs it.
    assert (case.supervisor_tool, case.account) == (new.registration.tool_name, "C-1001")
    assert case.said_when_done  # and the yes-with-a-new-request suite runs it
    # The offline model's coverage chat.
    chats = offline_chats([new.registration], new.tests)
    assert chats.names == ["contact_details"]

    # The offline model plays it with the registration's tool and phrase, and the menu
    # says the phrase.
    assert new.offline.supervisor_tool == "change_contact_details"
    monkeypatch.setattr(routing, "registered", lambda: (*registered(), new.offline))
    menu = routing.menu(frozenset({"change_contact_details"}))
    assert "change the email on your account" in menu

    # The report page's plain name.
    assert names_of(registrations)["contact_details_task"] == Name(
        "Contact details change", "The email on the account."
    )


async def test_a_new_specialists_scenario_expectation_grades_a_scenario(
    new_package_root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    new = _build(new_package_root, TEST_MODULE)
    expectations = state.expectations_of((*SPECIALISTS, new.registration))
    assert "emails" in expectations
    monkeypatch.setattr(state, "specialist_expectations", lambda: expectations)
    expects = scenario(expect={"emails": {"C-1001": "jordan@example.org"}})
    scenario_store = await opened(tmp_path, expects)
    try:
        assert await scenario_store.differences() == [
            "customer C-1001: email is jordan.lee@example.com, expected jordan@example.org"
        ]
    finally:
        await scenario_store.close()


def test_a_new_specialist_that_declares_too_little_fails_naming_what_it_lacks(
    new_package_root: Path,
) -> None:
    new = _build(new_package_root, "")
    assert confirming_cases([new.registration], new.tests).missing == [
        "contact_details: test_contact_details.py declares no CONFIRMING"
    ]
    chats = offline_chats([new.registration], new.tests)
    assert chats.missing == ["contact_details: test_contact_details.py declares no OFFLINE_CHAT"]


def test_a_specialist_past_one_file_is_a_folder_found_as_one(new_package_root: Path) -> None:
    # The guide's folder: the task and its registration in `__init__.py`, a seam beside.
    package = new_package_root / "new_folder_specialists"
    folder = package / "contact_details"
    folder.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (folder / "__init__.py").write_text(textwrap.dedent(SPECIALIST), encoding="utf-8")
    (folder / "wording.py").write_text('ASKED = "What is the new email?"\n', encoding="utf-8")
    (registration,) = registrations_in("new_folder_specialists", [str(package)])
    assert (registration.name, registration.tool_name) == (
        "contact_details",
        "change_contact_details",
    )
    assert registration.expects is not None
    assert registration.expects.key == "emails"
