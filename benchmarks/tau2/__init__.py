"""τ²-bench's retail domain against this agent.

    python -m benchmarks.tau2 run [--split train|test|base] [--trials K] ...
                                                      the tasks played against the agent
                                                      by τ²-bench's user, graded, pass^k
                                                      (`--help`; `--offline` needs no keys)
    python -m benchmarks.tau2 replay --out OUT.json   each task's gold tool calls through
                                                      the store's own operations
    python -m benchmarks.tau2 coverage                which tasks' writes the store performs

The benchmark's database and tasks are vendored in `data/` (MIT, see `data/SOURCE.md`);
`--db` and `--tasks` point at other copies.
"""
