"""The XML reader: a document from first byte to last (prolog, fast scanner, bounded expat),
the urlset/sitemapindex state machine, extensions and field validation.
"""

from __future__ import annotations
