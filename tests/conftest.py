"""Shared fixtures: where the repository and the published suite live."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
OOPSLA = SHARED / "data" / "oopsla21"


@pytest.fixture(scope="session")
def oopsla_dir() -> Path:
    """The OOPSLA'21 suite beside the checkout; CI lays ../shared out too."""
    assert OOPSLA.is_dir(), f"the published suite is missing: {OOPSLA}"
    return OOPSLA


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO
