"""`python src/agent.py download-files`: the turn-detector model files, fetched by the
framework's own downloader once the model hub can be reached.

Left alone, the downloader retries every file with growing pauses when the hub cannot
be reached: about a hundred lines over a hundred seconds before it gives up.
"""

from __future__ import annotations

import sys

import huggingface_hub.constants

from customer_service.entry import REACHABILITY_TIMEOUT_S, host_and_port, request_failure
from customer_service.pipeline import DOWNLOAD_FILES_COMMAND

DOWNLOAD_FAILED_EXIT_CODE = 1
"""The framework's downloader's status when a download fails."""


def model_hub_problem(*, timeout: float = REACHABILITY_TIMEOUT_S) -> str | None:
    """Why the model hub cannot be reached from here, as one line for the user, or None
    when a connection opens (or the hub client is told to stay offline, HF_HUB_OFFLINE,
    which it reports itself)."""
    if huggingface_hub.constants.HF_HUB_OFFLINE:
        return None
    endpoint = huggingface_hub.constants.ENDPOINT
    target = host_and_port(endpoint)
    if target is None:
        return None  # an HF_ENDPOINT this check cannot follow: the downloader will tell
    failure = request_failure(*target, timeout)
    if failure is None:
        return None
    return (
        f"The model host {endpoint} cannot be reached{failure}, so the turn-detector model "
        f"files cannot be downloaded. Run `{DOWNLOAD_FILES_COMMAND}` again with internet "
        "access, or set TURN_DETECTION=local, vad or stt, which need no download."
    )


def download_files() -> int:
    """Fetches every plugin's files with the framework's downloader (which returns a
    failing status, not a traceback, when a download fails); one line and
    DOWNLOAD_FAILED_EXIT_CODE at once when the model hub cannot be reached."""
    problem = model_hub_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return DOWNLOAD_FAILED_EXIT_CODE
    from livekit.agents.__main__ import main as livekit_agents_main

    return livekit_agents_main(["download-files"])
