"""Tests of the command line: every command, its edges, help pins, signals, start-up."""
