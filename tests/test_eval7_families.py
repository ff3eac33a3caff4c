"""The oracle expert solves a real Eval-7 scene of every interactive family, end to end on the embedded simulator
(oracle metadata, no rendering). Slow: 2-60 s a scene, about 4 minutes in all (`make test-all`)."""

from __future__ import annotations

import pytest

from mcs_plugin.experts.policies import run_expert
from mcs_plugin.scenes.families import EVAL7_INTERACTIVE_FAMILIES, family_of
from mcs_plugin.sim.controller import EmbeddedController
from sim_scenes import DATA

#: One real scene per family (files copied unmodified from MCS 0.7.4's Eval-7 scenes: tests/data/scenes/INDEX.md,
#: tests/data/eval7/ORIGIN.md), each solved by the expert in `benchmarks/RESULTS.md`'s sweep.
FAMILY_SCENES = {family_of(path): path for path in [
    *(DATA / "scenes" / f"eval_7_interactive_{family}_0001_01.json" for family in (
        "agent_identification", "arithmetic", "asymmetric_tool", "collision", "containers", "holes", "imitation",
        "knowledgeable_agents", "lava", "moving_target_prediction", "number_comparison", "obstacles", "occluders",
        "ramps", "set_rotation", "shell_game", "solidity", "spatial_elimination", "spatial_reorientation",
        "support_relations", "symmetric_tool")),
    *(DATA / "eval7" / name for name in (
        "eval_7_interactive_object_permanence_0001_01.json", "eval_7_interactive_occluded_trajectory_0001_01.json",
        "eval_7_interactive_secondary_tool_0001_07.json", "eval_7_interactive_spatial_reference_0001_01.json",
        "eval_7_interactive_tool_choice_0001_01.json")),
]}


def test_every_interactive_family_has_a_scene():
    """The table above covers each of the 26 families with a file that exists."""
    assert sorted(FAMILY_SCENES) == sorted(EVAL7_INTERACTIVE_FAMILIES)
    assert all(path.is_file() for path in FAMILY_SCENES.values())


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(FAMILY_SCENES))
def test_the_expert_solves_a_scene_of_the_family(family):
    """The family's skill end to end: retrieval to the pickup (multi retrieval, imitation: to the goal's end)."""
    controller = EmbeddedController({"metadata": "oracle", "render": False, "reward_mode": "seed"})
    run = run_expert(str(FAMILY_SCENES[family]), controller=controller)
    assert run.success, f"{FAMILY_SCENES[family].name}: {run.ended} after {run.steps} steps"
