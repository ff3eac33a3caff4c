"""Shared fixtures."""

from __future__ import annotations

import pytest

from mcs_plugin.sim.controller import EmbeddedController


@pytest.fixture
def sim():
    """An oracle-tier embedded controller without rendering (fast), stopped after the test."""
    controller = EmbeddedController({"metadata": "oracle", "render": False})
    yield controller
    controller.stop_simulation()
