"""The package's logger, ``sitemap_reader``, for every module that logs.

A library prints nothing unless the application configures logging (the standard library's
convention): the package logger gets a ``NullHandler``, here, where the first module that logs
takes its logger, rather than in the package's ``__init__``: ``import sitemap_reader`` (and
``sitemap-reader --version``) need not load ``logging``. Records come only from the modules
that take their logger here. docs/library.md, "Logging", says what is logged.
"""

from __future__ import annotations

import logging

PACKAGE = "sitemap_reader"

logging.getLogger(PACKAGE).addHandler(logging.NullHandler())


def logger(name: str = PACKAGE) -> logging.Logger:
    """The logger ``name`` (a module's ``__name__``, under the package's), or the package's."""
    return logging.getLogger(name)
