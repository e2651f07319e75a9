"""Concurrency tests: whole calls at once, in one process and over worker processes."""
