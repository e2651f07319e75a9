"""Exit statuses shared by the command line's entry and its commands."""

INTERRUPTED_EXIT_CODE = 130
"""The status shells give a command that Ctrl-C ended (128 + SIGINT)."""
