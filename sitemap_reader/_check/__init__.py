"""``check``: the code registry, pure lints, findings from a walk, their text, JSON and HTML page.

Above the core and beside the I/O layer: it judges what the core read and never fetches.
"""

from __future__ import annotations
