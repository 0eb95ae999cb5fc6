"""Tests of the facade: the blocking wrappers, leaving an iteration early."""
