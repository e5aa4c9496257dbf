"""The test suite's own port picker: under pytest-xdist the processes draw from disjoint slices."""

from __future__ import annotations

import pytest

from tests.support.ports import port_slice


def test_each_xdist_process_has_its_own_slice_of_the_range(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    slices = []
    for worker in ("gw0", "gw1"):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        slices.append(port_slice(20000, 32768))
    assert slices == [(20000, 26384), (26384, 32768)]


def test_one_process_takes_the_whole_range(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    assert port_slice(20000, 32768) == (20000, 32768)
