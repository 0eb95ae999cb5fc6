"""The bottom layer: records, configuration, errors, sources and the small helpers every layer shares.

It imports nothing else of the package.
"""

from __future__ import annotations
