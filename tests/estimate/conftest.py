"""Catalog shapes and devices for the pure estimator tests, read straight from knowledge/catalog."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from assistant.estimate.calibrate import device_from_row
from assistant.estimate.shape import from_catalog

KNOWLEDGE = Path(__file__).resolve().parents[2] / "knowledge"


def read_csv(rel: str) -> list[dict]:
    with open(KNOWLEDGE / rel, encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="session")
def shapes():
    return {r["id"]: from_catalog(r) for r in read_csv("catalog/models.csv") if r.get("layers")}


@pytest.fixture(scope="session")
def devices():
    return {r["id"]: device_from_row(r) for r in read_csv("catalog/hardware.csv")}
