"""Simulation scenarios: `scenarios.yaml` read and checked (`scenarios`), the store state
a scenario starts from and must leave (`state`), the grade of a simulated call on
LiveKit Cloud (`grading.on_simulation_end`), and the offline replay of every scenario
with the offline model (`replay`, `make scenarios`); the rehearsal calls the forkserver
plays so job processes start with a first call's lazy work done (`rehearsal`)."""
