"""Shared fixtures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mcs_plugin.sim.controller import EmbeddedController


@pytest.fixture
def sim():
    """An oracle-tier embedded controller without rendering (fast), stopped after the test."""
    controller = EmbeddedController({"metadata": "oracle", "render": False})
    yield controller
    controller.stop_simulation()


DOCTORED_STEPS = (5, 6, 7)  # steps whose recorded performer position_x doctored_corpus moves 0.5 m


@pytest.fixture
def doctored_corpus(tmp_path):
    """A one-test corpus: the recorded 001.empty_room_movement, its oracle outputs with the performer's position_x
    moved 0.5 m at DOCTORED_STEPS, so that it fails exactly there."""
    source = Path(__file__).parent / "data" / "conformance"
    name = "001.empty_room_movement"
    for path in (source / "data").glob(f"{name}.*"):
        shutil.copy(path, tmp_path / path.name)
    shutil.copy(source / "config_oracle.ini", tmp_path / "config_oracle.ini")
    outputs_path = tmp_path / f"{name}.oracle.outputs.json"
    outputs = json.loads(outputs_path.read_text(encoding="utf-8-sig"))
    for step in DOCTORED_STEPS:
        outputs[step]["position_x"] += 0.5
    outputs_path.write_text(json.dumps(outputs))
    return tmp_path
