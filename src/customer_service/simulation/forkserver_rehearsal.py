"""Side-effect module: rehearsal calls where job processes are forked from.

`server.PRELOADED_MODULES` lists it, so the forkserver (Linux) imports it once, after the
agent's own modules and before the framework freezes what it loaded; every job process
then starts with the rehearsal's first-use work done (`simulation.rehearsal`). Nothing
else imports it.
"""

from customer_service.simulation.rehearsal import Rehearsal, rehearse

REHEARSAL: Rehearsal = rehearse()
"""What the rehearsal in this process did."""
