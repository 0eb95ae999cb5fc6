"""Tests of network and disk: HTTP against loopback servers, state files, the walk, workers."""
