"""The specialists: one focused sub-conversation per file, each ending in a typed result.

Each file holds a specialist's instructions, tools, result, the check of that result
and the write it leads to, and ends with its registration: the supervisor tool that
runs it (`customer_service.call.registration.supervisor_tool`). `SPECIALISTS` is every
file's registration, found by looking through this package; the supervisor's tools and
instructions and this package's exports (each task with its result) are built from it.
"""

from customer_service.call.registration import SpecialistRegistration, registrations_in

SPECIALISTS: tuple[SpecialistRegistration, ...] = registrations_in(__name__, __path__)

_exports = {kind.__name__: kind for entry in SPECIALISTS for kind in (entry.task, entry.result)}
globals().update(_exports)
__all__ = ["SPECIALISTS", *sorted(_exports)]
