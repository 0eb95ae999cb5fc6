"""Tests of the sans-IO core: the parser on every format, charsets, splits, the walk's judgements."""
