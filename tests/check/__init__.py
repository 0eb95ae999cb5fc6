"""Tests of check: its codes from loopback sites, the command, the report page in Chromium."""
