"""The customer-service agent's command line.

python src/agent.py chat             talk to the agent in this terminal (no server)
python src/agent.py console          speak to it through this machine's audio devices
python src/agent.py dev | start      register with a LiveKit server and take calls
python src/agent.py download-files   fetch the turn-detector model files once
"""

from __future__ import annotations

import sys
import warnings

from customer_service.entry import MISCONFIGURED_EXIT_CODE, command_of, preflight
from customer_service.settings import get_settings

# The turn-detector plugin registers its inference runners when imported, which has to
# happen on the main thread at module level. It also announces its successor
# (livekit.agents.inference.TurnDetector, TURN_DETECTION=local): not news for users.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from livekit.plugins import turn_detector  # noqa: F401


def main(argv: list[str]) -> int:
    command = command_of(argv)
    if command == "chat":
        from customer_service.chat import main as chat_main

        return chat_main(argv[argv.index("chat") + 1 :])
    if command == "download-files":
        # The framework's own downloader (`python -m livekit.agents download-files`):
        # it returns a failing status instead of a traceback when a download fails.
        from livekit.agents.__main__ import main as livekit_agents_main

        return livekit_agents_main(["download-files"])

    problem = preflight(argv, get_settings())
    if problem is not None:
        print(problem, file=sys.stderr)
        return MISCONFIGURED_EXIT_CODE

    from livekit.agents import cli

    from customer_service.log_privacy import install_log_privacy
    from customer_service.server import server

    # Before the framework adds its log handler, so that the handler gets the filter too.
    install_log_privacy(get_settings())

    # `lk agent ...` is LiveKit's newer front end; this one stays the documented entry.
    warnings.filterwarnings("ignore", "the built-in Python CLI is deprecated", DeprecationWarning)
    cli.run_app(server)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
