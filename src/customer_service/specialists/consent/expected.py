"""What a scenario can expect of the consent answers a call stores (`expect.consents`):
the answers it names must be the ones stored during the call, no more."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, TypeAdapter

from customer_service.store import Store

__all__ = ["CONSENTS_STORED", "ConsentsStored", "StoredConsent"]


class StoredConsent(BaseModel):
    """A stored consent answer, or one a scenario expects to be stored."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    topic: str
    granted: bool
    customer_id: str | None = None
    """Whose answer it is; in an expectation left out, any owner (or none) matches."""

    def matches(self, stored: StoredConsent) -> bool:
        """Whether `stored` is this expected answer (of any owner, when it names none)."""
        return (self.topic, self.granted) == (stored.topic, stored.granted) and (
            self.customer_id is None or self.customer_id == stored.customer_id
        )

    def described(self) -> str:
        answer = "yes" if self.granted else "no"
        owner = f" of {self.customer_id}" if self.customer_id else ""
        return f"{self.topic} consent ({answer}){owner}"


_ANSWERS = TypeAdapter(tuple[StoredConsent, ...])


@dataclass(frozen=True)
class ConsentsStored:
    """The scenario expectation of the answers stored (`ScenarioExpectation`)."""

    key: str = "consents"

    def parse(self, raw: object) -> tuple[StoredConsent, ...]:
        return _ANSWERS.validate_python(raw)

    async def read(self, store: Store) -> tuple[StoredConsent, ...]:
        return tuple(
            StoredConsent(
                topic=str(event.detail["topic"]),
                granted=bool(event.detail["granted"]),
                customer_id=event.customer_id,
            )
            for event in await store.audit_events(kind="consent_recorded")
        )

    def differences(self, expected: object | None, start: object, end: object) -> list[str]:
        wanted_answers = expected if isinstance(expected, tuple) else ()
        before = start if isinstance(start, tuple) else ()
        stored: list[StoredConsent] = list(end[len(before) :] if isinstance(end, tuple) else ())
        missing: list[StoredConsent] = []
        for wanted in wanted_answers:
            match = next((got for got in stored if wanted.matches(got)), None)
            if match is None:
                missing.append(wanted)
            else:
                stored.remove(match)
        problems = [f"no {consent.described()} was stored" for consent in missing]
        extra = Counter(consent.described() for consent in stored)
        problems += [f"an unexpected {described} was stored" for described in sorted(extra)]
        return problems


CONSENTS_STORED = ConsentsStored()
"""A scenario's `consents`: the answers the call must store."""
