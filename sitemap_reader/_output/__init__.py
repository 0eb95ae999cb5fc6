"""What records become: JSON lines, CSV and text; Arrow tables, Parquet and DataFrames."""

from __future__ import annotations
