"""Tests of the bottom layer: records, the public surface, problem kinds, sources, glue."""
