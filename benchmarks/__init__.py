"""Benchmarks that tell the truth: every flow is checked against the store before its
figures count, and every figure is printed beside its baseline from the same run.

    make bench                                  (the default set, a few minutes on 2 cores)
    .venv/bin/python -m benchmarks --help       (sizes, PostgreSQL, the 1M-order store)
    .venv/bin/python -m benchmarks.roundtrips   (one benchmark alone; each has --help)

Run from the project root. The project is imported as the installed package; the
conversation helpers (`support.scripted_llm`, `support.conversation`) come from
`tests/support`, which is not installed, so `tests/` is put on the import path here,
once, as running `tests/bench_conversation.py` as a script used to do.
"""

from __future__ import annotations

import sys
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parents[1] / "tests"
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))
