"""Eval-7 task families: family names from file names, the shared goal rules, task classes, and the expert's
skills on real Eval-7 scenes (copied into tests/data; origins in tests/data/*/ORIGIN.md and scenes/INDEX.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mcs_plugin.experts import cli as expert_cli
from mcs_plugin.experts.boxes import Box
from mcs_plugin.experts.graph import NavigationGraph
from mcs_plugin.experts.policies import ExpertRun, make_expert, run_expert, scripted_action
from mcs_plugin.experts.tools import (
    CLEAR_MARGIN, enclosing_tool, floor_map, plan_clearing_moves, plan_freeing_moves, plan_placing_moves,
    plan_tool_moves, stranded,
)
from mcs_plugin.mcs import GoalMetadata
from mcs_plugin.mcs.goals import (
    Extent, pickups_needed, progress_target, relation_name, retrieval_achieved, sequence_remaining, transferral_holds,
)
from mcs_plugin.sim.controller import EmbeddedController
from mcs_plugin.tasks import TASK_CLASSES, ImitationTask, MultiRetrievalTask
from sim_scenes import DATA

SCENES = DATA / "scenes"
EVAL7 = DATA / "eval7"


@pytest.fixture(scope="module")
def controller():
    return EmbeddedController({"metadata": "oracle", "render": False, "reward_mode": "seed"})


# -- families ------------------------------------------------------------------------------------------------------
def test_family_of_parses_mcs_evaluation_file_names():
    assert expert_cli.family_of("x/eval_7_interactive_spatial_reference_0001_01.json") == "spatial_reference"
    assert expert_cli.family_of("eval_7_interactive_holes_0012_23.json") == "holes"
    assert expert_cli.family_of("eval_7_passive_physics_gravity_support_0001_03.json") == \
        "passive_physics_gravity_support"
    assert expert_cli.family_of("retrieval_goal_example_with_soccer_ball.json") == "other"


def test_by_family_counts_solved_skipped_and_mean_steps():
    runs = [ExpertRun("a/eval_7_interactive_holes_0001_01.json", "retrieval", True, 10, "End"),
            ExpertRun("a/eval_7_interactive_holes_0001_03.json", "retrieval", True, 20, "End"),
            ExpertRun("a/eval_7_interactive_holes_0001_05.json", "retrieval", False, 3, "gave up: x"),
            ExpertRun("a/eval_7_interactive_lava_0001_01.json", "retrieval", False, 3, "gave up: x")]
    result = {"runs": runs, "skipped": [("a/eval_7_passive_agents_approach_0001_01.json", "no expert")]}
    families = expert_cli.by_family(result)
    assert families["holes"] == {"scenes": 3, "solved": 2, "skipped": 0, "mean_steps": 15.0}
    assert families["lava"] == {"scenes": 1, "solved": 0, "skipped": 0, "mean_steps": None}
    assert families["passive_agents_approach"]["skipped"] == 1
    table = expert_cli.format_family_report(families)
    assert "holes" in table and table.splitlines()[-1].split()[:3] == ["all", "5", "2"]


def test_cli_by_family_json(capsys):
    scene = SCENES / "eval_7_interactive_imitation_0001_01.json"
    assert expert_cli.main([str(scene), "--by-family", "--json", "--no-progress"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == {"imitation": {"scenes": 1, "solved": 1, "skipped": 0, "mean_steps": data["imitation"]["mean_steps"]}}
    assert data["imitation"]["mean_steps"] > 55  # the preview phase (55 steps) is played through


# -- goal rules ----------------------------------------------------------------------------------------------------
def test_relation_name_reads_every_spelling():
    assert relation_name(["t1", "next_to", "t2"]) == "next_to"
    assert relation_name(["on top of"]) == "on_top_of"
    assert relation_name("next to") == "next_to"
    assert relation_name(["t1", "beside", "t2"]) == ""


def test_transferral_rule():
    table = Extent((0.0, 0.0), (1.0, 1.0), 0.0, 0.8)
    beside = Extent((1.05, 0.2), (1.25, 0.4), 0.0, 0.2)
    far = Extent((1.2, 0.2), (1.4, 0.4), 0.0, 0.2)
    on = Extent((0.4, 0.4), (0.6, 0.6), 0.78, 0.98)
    assert transferral_holds("next_to", beside, table) and not transferral_holds("next_to", far, table)
    assert transferral_holds("on_top_of", on, table) and not transferral_holds("on_top_of", beside, table)
    assert not transferral_holds("", beside, table)


def test_retrieval_rules_and_progress_target():
    goal = GoalMetadata(category="multi retrieval", metadata={"targets": [{"id": "a"}, {"id": "b"}, {"id": "c"}]})
    assert pickups_needed(goal) == 3
    assert not retrieval_achieved(goal, {"a", "b"}) and retrieval_achieved(goal, {"c", "b", "a", "x"})
    goal.metadata["pickup_number"] = 2
    assert retrieval_achieved(goal, {"c", "a"})
    assert progress_target(goal, held={"a"}, picked={"a"}) == "b"
    imitation = GoalMetadata(category="imitation", metadata={"target": {"id": "ball"}},
                             triggered_by_target_sequence=["c1", "c2"])
    assert sequence_remaining(imitation, {"c2"}) == ["c1", "c2"]
    assert progress_target(imitation, held=set(), opened={"c1"}) == "c2"
    assert progress_target(imitation, held=set(), opened={"c1", "c2"}) == "ball"
    transferral = GoalMetadata(category="transferral", metadata={"target_1": {"id": "t1"}, "target_2": {"id": "t2"}})
    assert progress_target(transferral, held=set()) == "t1" and progress_target(transferral, held={"t1"}) == "t2"


def test_every_goal_category_of_eval7_has_a_task_class():
    assert TASK_CLASSES["imitation"] is ImitationTask
    assert TASK_CLASSES["multi retrieval"] is MultiRetrievalTask
    for category in ("retrieval", "intuitive physics", "agents", "passive"):
        assert category in TASK_CLASSES


# -- the expert on real scenes -------------------------------------------------------------------------------------
def test_expert_plays_the_scenes_scripted_actions(controller):
    output = controller.start_scene(str(SCENES / "eval_7_interactive_spatial_reorientation_0001_01.json"))
    expert = make_expert(output.goal.category)
    assert scripted_action(output) == ("RotateRight", {})  # the scene turns the performer round first
    assert expert.next_action(output) == ("RotateRight", {})
    controller.end_scene()


def test_a_platform_over_lava_is_safe(controller):
    output = controller.start_scene(str(SCENES / "eval_7_interactive_collision_0001_01.json"))
    assert output.position["y"] > 1.0 and output.steps_on_lava == 0  # the performer starts on a platform above lava
    output = controller.step("Pass")
    assert output.steps_on_lava == 0 and output.action_list != [("EndScene", {})]
    controller.end_scene()


def test_expert_steps_off_a_platform_and_opens_the_chest(controller):
    run = run_expert(str(EVAL7 / "eval_7_interactive_spatial_reference_0001_01.json"), controller=controller,
                     record_actions=True)
    assert run.success and run.ended == "End", run.ended
    assert "OpenObject" in run.actions and run.steps < 120


def test_expert_asks_the_agent_for_its_object(controller):
    run = run_expert(str(SCENES / "eval_7_interactive_agent_identification_0001_01.json"), controller=controller,
                     record_actions=True)
    assert run.success, run.ended
    asked = run.actions.index("InteractWithAgent")
    assert run.actions[asked + 1] == "Pass" and run.actions[-2] == "PickupObject"


def test_expert_repeats_the_demonstrated_sequence(controller):
    run = run_expert(str(SCENES / "eval_7_interactive_imitation_0001_01.json"), controller=controller,
                     record_actions=True)
    assert run.success, run.ended
    assert run.actions[:54] == ["Pass"] * 54 and run.actions[54] == "EndHabituation"
    assert run.actions.index("OpenObject") < run.actions.index("PickupObject")


def test_expert_opens_a_door_and_takes_the_target_out_of_an_open_container(controller):
    run = run_expert(str(EVAL7 / "eval_7_interactive_support_relations_0001_01.json"), controller=controller,
                     record_actions=True)
    assert run.success, run.ended
    assert run.actions[:75] == ["Pass"] * 75 and "OpenObject" in run.actions and run.actions[-2] == "PickupObject"


# -- the tool skill ------------------------------------------------------------------------------------------------
def _tool_plans(controller, scene):
    """The tool skill's plans at a scene's start (None when the target is not stranded)."""
    output = controller.start_scene(str(scene))
    target = next(o for o in output.object_list if o.uuid == output.goal.target_ids()[0])
    graph = NavigationGraph.from_metadata(output, grid=0.2)  # coarse: the planner reads its obstacles and room only
    floor = floor_map(output, target, graph)
    plans = plan_tool_moves(output, target, graph, floor, set()) if stranded(floor, target) else None
    controller.end_scene()
    return plans


def test_tool_plan_pushes_a_bar_that_shoves_the_target_off_its_island(controller):
    plans = _tool_plans(controller, EVAL7 / "eval_7_interactive_symmetric_tool_0001_07.json")
    assert plans, "the target is stranded and a bar lies in line with it"
    plan = plans[0]
    assert plan.straight == 1 and plan.direction[0] > 0.99  # pushed along the bar (+x), into the target
    assert 2.0 < plan.contact < 2.5  # the bar's end is 2.4 m from the target's near side
    assert plan.travel > plan.contact + 2.7  # and the target comes out past the pool's edge (2.7 m on)


def test_tool_plan_drags_the_target_back_with_a_hooked_tool(controller):
    plans = _tool_plans(controller, SCENES / "eval_7_interactive_asymmetric_tool_0001_01.json")
    assert plans  # the lava band runs from wall to wall behind the target: only toward the performer's side works
    assert all(p.direction[1] < 0.0 for p in plans) and plans[0].direction[1] < -0.95


def test_tool_plan_moves_a_hooked_tool_off_a_target_inside_its_box(controller):
    output = controller.start_scene(str(EVAL7 / "eval_7_interactive_asymmetric_tool_0001_03.json"))
    target = next(o for o in output.object_list if o.uuid == output.goal.target_ids()[0])
    graph = NavigationGraph.from_metadata(output, grid=0.2)
    floor = floor_map(output, target, graph)
    tool = enclosing_tool(output, target)
    assert not stranded(floor, target) and tool is not None  # no lava about, but the hook's box holds the target
    plans = plan_clearing_moves(output, target, tool, graph, floor, set())
    controller.end_scene()
    assert plans
    box, t = Box.from_metadata(tool), (target.position["x"], target.position["z"])
    for plan in plans[:5]:  # each moves the box (grown by the margin) off the target, within the room
        moved = (t[0] - plan.travel * plan.direction[0], box.center[1], t[1] - plan.travel * plan.direction[1])
        assert not box.contains(moved, margin=CLEAR_MARGIN) and plan.contact == plan.travel
    assert any(abs(p.direction[0]) > 0.99 for p in plans)  # sideways too, out of the hook's open side
    assert all(p.direction[1] < 0.9 for p in plans)  # never toward +z: the room's wall is 1 m beyond the crossbar


def test_tool_plan_shoves_a_hook_out_of_its_pool_with_the_bar(controller):
    # Secondary tool: the 7 m hook that could reach the target lies 1.5 m inside a pool of lava, the 3 m bar on the
    # floor beside it, in line with the hook's shaft; the target sits 3.5 m inside its own pool.
    output = controller.start_scene(str(EVAL7 / "eval_7_interactive_secondary_tool_0001_03.json"))
    target = next(o for o in output.object_list if o.uuid == output.goal.target_ids()[0])
    graph = NavigationGraph.from_metadata(output, grid=0.2)
    floor = floor_map(output, target, graph)
    args = (output, target, graph, floor, set())
    direct, placing, freeing = plan_tool_moves(*args), plan_placing_moves(*args), plan_freeing_moves(*args)
    controller.end_scene()
    assert stranded(floor, target) and not direct and not placing  # the bar is too short, the hook out of reach
    plan = freeing[0]
    assert plan.tool == "tool_359c75ca-b2cf-4d66-93d6-130c81e51e46"  # the bar
    assert plan.shoves == "tool_09fa6190-5888-4ff9-8af4-b5a02730c8d1" and plan.placing  # moves the hook, then ends
    assert plan.direction[1] < -0.99 and plan.straight == 1  # pushed south, along the bar, into the shaft's end
    assert 5.4 < plan.contact < 5.7  # from the bar's end (z 9.5) to the shaft's (z 4)
    assert plan.travel >= plan.contact + 1.5 - 1e-6  # its crossbar (z -3) reaches the pool's edge (z -4.5), in reach


def test_tool_plan_brings_the_bar_across_the_room_before_the_shove(controller):
    # Secondary tool: the target sits 1.5 m inside a 3 x 3 m ring of lava, 20 m from the 3 m bar; no tool is in line.
    output = controller.start_scene(str(EVAL7 / "eval_7_interactive_secondary_tool_0001_05.json"))
    target = next(o for o in output.object_list if o.uuid == output.goal.target_ids()[0])
    graph = NavigationGraph.from_metadata(output, grid=0.2)
    floor = floor_map(output, target, graph)
    direct, placing = plan_tool_moves(output, target, graph, floor, set()), plan_placing_moves(
        output, target, graph, floor, set())
    controller.end_scene()
    assert stranded(floor, target) and not direct and placing
    plan = placing[0]
    assert plan.tool == "tool_359c75ca-b2cf-4d66-93d6-130c81e51e46" and plan.placing  # the bar, brought into place
    assert plan.contact == plan.travel and plan.travel > 12.0  # across the room, meeting nothing on the way
    end = np.array([-2.0, 9.0]) + plan.travel * np.array(plan.direction)  # the bar's centre where it ends
    assert np.hypot(*(end - np.array([11.0, -7.0]))) < 4.0  # near the target (its end within 2 m)


def test_tool_choice_takes_the_tool_that_reaches(controller):
    plans = _tool_plans(controller, EVAL7 / "eval_7_interactive_tool_choice_0001_01.json")
    assert plans and {p.tool for p in plans} == {"tool_232d07c2-4926-4e40-bbb7-2377aa42c675"}  # the 9 m bar


def test_expert_pushes_the_bar_until_it_can_pick_the_target_up(controller):
    # The symmetric-tool scene's island, pool, bar and target, moved into a 14 x 8 m room so that the run is quick.
    scene = json.loads((EVAL7 / "eval_7_interactive_symmetric_tool_0001_07.json").read_text())
    scene["roomDimensions"] = {"x": 14.0, "y": 3.0, "z": 8.0}
    scene["performerStart"] = {"position": {"x": 5.0, "y": 0.0, "z": 3.0}, "rotation": {"x": 0, "y": 270.0, "z": 0}}
    scene["lava"] = [{"x": x, "z": z} for x in range(5) for z in range(-2, 3) if (x, z) != (2, 0)]
    for obj in scene["objects"]:
        obj["shows"][0]["position"].update({"x": -3.1 if obj["type"].startswith("tool") else 2.0, "z": 0.0})
    run = run_expert(scene, controller=controller, record_actions=True)
    assert run.success, run.ended
    assert run.actions.count("MoveObject") > 40 and run.actions[-2] == "PickupObject"


@pytest.mark.slow
def test_expert_drags_the_target_out_with_a_hooked_tool_and_slides_the_tool_off(controller):
    run = run_expert(str(SCENES / "eval_7_interactive_asymmetric_tool_0001_01.json"), controller=controller,
                     record_actions=True)
    assert run.success, run.ended
    moves = [a for a in run.actions if a in ("MoveObject", "MoveBack", "MoveRight")]
    assert moves.count("MoveObject") > 30 and "MoveBack" in moves and "MoveRight" in moves  # pulled, then slid


@pytest.mark.slow
def test_expert_moves_the_hooked_tool_off_the_target_and_picks_it_up(controller):
    run = run_expert(str(EVAL7 / "eval_7_interactive_asymmetric_tool_0001_03.json"), controller=controller,
                     record_actions=True)
    assert run.success, run.ended
    assert "MoveObject" in run.actions and run.actions[-2] == "PickupObject"


@pytest.mark.slow
def test_expert_brings_the_bar_across_the_room_and_shoves_the_target_out(controller):
    run = run_expert(str(EVAL7 / "eval_7_interactive_secondary_tool_0001_05.json"), controller=controller,
                     record_actions=True)
    assert run.success, run.ended
    assert run.actions.count("MoveObject") > 150 and run.actions[-2] == "PickupObject"  # 18 m, then the shove


@pytest.mark.slow
def test_expert_walks_up_a_ramp_to_the_agent_on_its_platform(controller):
    run = run_expert(str(EVAL7 / "eval_7_interactive_ramps_0001_01.json"), controller=controller, record_actions=True)
    assert run.success and run.ended == "End", run.ended
    assert "InteractWithAgent" in run.actions
