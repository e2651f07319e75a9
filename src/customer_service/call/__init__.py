"""What every call shares: its state, the specialist base, delegation with its bounds and
its one retry-then-colleague loop, the tool guard, audit, escalation, transcripts, the
reading of a caller's yes or no, and the call-wide wording."""
