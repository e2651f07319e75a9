"""τ²-bench's retail domain against this agent's store.

    python -m benchmarks.tau2 replay --out OUT.json   each task's gold tool calls through
                                                      the store's own operations
    python -m benchmarks.tau2 coverage                which tasks' writes the store performs

The benchmark's database and tasks are vendored in `data/` (MIT, see `data/SOURCE.md`);
`--db` and `--tasks` point at other copies.
"""
