"""Tests for sitemap-reader."""

from __future__ import annotations
