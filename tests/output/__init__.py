"""Tests of the outputs: JSON lines, Arrow and Parquet, the SOURCE column."""
