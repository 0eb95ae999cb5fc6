"""Incremental state: the store contract, its SQLite store, and the walk's incremental plan."""

from __future__ import annotations
