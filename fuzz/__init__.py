"""The fuzzing campaign of the sans-IO parser (see fuzz/README.md).

``harness`` holds the invariants and the mutator, shared by the atheris campaign
(``python -m fuzz.campaign``) and the short seeded run of the test suite (tests/project/test_fuzz.py).
"""

from __future__ import annotations
