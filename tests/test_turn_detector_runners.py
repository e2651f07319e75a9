"""The worker's inference process runs the turn-detector plugin's models only when
TURN_DETECTION uses them: by default (`livekit`) it starts none, so nothing logs the plugin's
missing-file tracebacks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from support.agent_process import AGENT, child_environment

# Loads the entry file as `lk agent` or `python src/agent.py` does, then initialises every
# runner registered for the worker's inference process, as that process does.
INFERENCE_PROCESS = f"""
import logging, runpy, sys
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
sys.path.insert(0, {str(AGENT.parent)!r})
sys.argv = [{str(AGENT)!r}]
runpy.run_path({str(AGENT)!r}, run_name="agent_script")
from livekit.agents.inference_runner import _InferenceRunner
print(" ".join(sorted(_InferenceRunner.registered_runners)))
for method, runner in _InferenceRunner.registered_runners.items():
    try:
        runner().initialize()
    except Exception:
        logging.getLogger("inference").exception("runner %s failed", method)
"""


def inference_process(tmp_path: Path, turn_detection: str) -> subprocess.CompletedProcess[str]:
    env = child_environment(tmp_path) | {"TURN_DETECTION": turn_detection}
    return subprocess.run(
        [sys.executable, "-c", INFERENCE_PROCESS],
        cwd=tmp_path,
        env=env,  # HF_HOME is an empty cache under tmp_path: no model files
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.mark.parametrize("mode", ["livekit", "local", "vad", "stt"])
def test_modes_without_the_plugin_start_none_of_its_models(tmp_path: Path, mode: str) -> None:
    result = inference_process(tmp_path, mode)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
    assert "Traceback" not in result.stderr
    assert "Could not find file" not in result.stderr


def test_the_multilingual_mode_keeps_the_plugins_models(tmp_path: Path) -> None:
    result = inference_process(tmp_path, "multilingual")
    assert result.returncode == 0, result.stderr
    assert "lk_end_of_utterance_multilingual" in result.stdout.split()
    # Without downloaded files its runner fails, which `dev` and `start` check first.
    assert "Could not find file" in result.stderr
