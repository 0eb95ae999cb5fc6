"""The walk's judgements, pure: jobs, scope, whether a child may be read, lastmod trust."""

from __future__ import annotations
