"""Expert skills for Eval-7's non-tool families: the performer's body height (walking under occluders' poles) and
aims at a target inside an opened container (MCS's visibility check after the crosshair names it)."""

from __future__ import annotations


import numpy as np
import pytest

from mcs_plugin.constants import CAPSULE_TOP
from mcs_plugin.experts.boxes import BODY_TOP, Box
from mcs_plugin.experts.goals import AimGoal
from mcs_plugin.experts.poses import Pose
from mcs_plugin.experts.policies import DOOR_MEMO_MOVE, RIM_MARGIN, make_expert, run_expert, to_controller_call
from mcs_plugin.sim.controller import EmbeddedController
from mcs_plugin.experts.policies import visibility_points
from mcs_plugin.sim.observation import REGISTRY_INSET, _visibility_points, shape_points
from sim_scenes import DATA, scene

SHELL_GAME = DATA / "eval7" / "eval_7_interactive_shell_game_0001_01.json"
DOORWAY_ONLY = DATA / "eval7" / "eval_7_interactive_support_relations_0001_11.json"
THROUGH_THE_FRONT = DATA / "eval7" / "eval_7_interactive_support_relations_0001_03.json"
COLLISION = DATA / "eval7" / "eval_7_interactive_collision_0001_03.json"


@pytest.fixture(scope="module")
def controller():
    return EmbeddedController({"metadata": "oracle", "render": False, "reward_mode": "seed"})


def _bar(y: float) -> dict:
    """A 0.1 m thick horizontal structure across the room, its bottom `y` above the floor, 1 m ahead."""
    return {"id": "bar", "type": "cube", "kinematic": True, "structure": True,
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": y + 0.05, "z": 1.0},
                       "scale": {"x": 9.0, "y": 0.1, "z": 0.1}}]}


@pytest.mark.parametrize("bottom, passes", [(1.35, True), (CAPSULE_TOP + 0.02, True), (CAPSULE_TOP - 0.05, False)])
def test_the_body_passes_under_what_is_above_its_capsule(controller, bottom, passes):
    """MCS's capsule ends CAPSULE_TOP over the feet: an occluder's pole 1.35 m up does not stop the performer."""
    controller.start_scene(scene(_bar(bottom)))
    statuses = {controller.step("MoveAhead").return_status for _ in range(15)}
    assert (statuses == {"SUCCESSFUL"}) == passes
    assert BODY_TOP > CAPSULE_TOP and BODY_TOP < 1.35  # the expert plans with the same body


def test_the_experts_visibility_points_are_the_simulators(controller):
    """The expert predicts what MCS sees with the simulator's own rule: a ball's points in the world (its 18
    registry points, 1 cm inside its sphere) match those the simulator casts rays to."""
    output = controller.start_scene(scene({"id": "ball", "type": "soccer_ball", "mass": 1, "pickupable": True,
                                           "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.11, "z": 1.0}}]}))
    world = controller.world
    points, owners, _ = _visibility_points(world)
    simulated = points[owners == world.objects.index(world.by_id["ball"])][:, [0, 2, 1]]  # MCS axes
    predicted = visibility_points(next(o for o in output.object_list if o.uuid == "ball"))
    assert len(simulated) == len(predicted) == 18
    assert np.allclose(np.sort(simulated, axis=0), np.sort(predicted, axis=0), atol=1e-6)
    assert np.allclose(np.linalg.norm(predicted - predicted.mean(axis=0), axis=1), 0.11 - REGISTRY_INSET, atol=1e-4)


def _shell_aim(points: np.ndarray | None) -> AimGoal:
    """An aim at a 0.22 m ball lying in an opened 0.4 m container whose lid stands up behind it (+z), as in the
    Eval-7 shell game, with the ball's visibility points `points` (offsets from its centre; None: crosshair only)."""
    ball = Box(np.array([0.0, 0.13, 0.0]), np.eye(3), np.full(3, 0.11))
    container = Box(np.array([0.0, 0.2, 0.0]), np.eye(3), np.full(3, 0.2))
    lid = Box(np.array([0.0, 0.6, 0.22]), np.eye(3), np.array([0.2, 0.2, 0.02]))
    return AimGoal(ball.scaled(0.5), [lid], reach=0.95, image_size=(600, 400),
                   open_tops=[(container, container.top + RIM_MARGIN)],
                   points=None if points is None else ball.center + points)


def test_an_aim_into_an_opened_container_needs_a_visibility_point_in_sight():
    """Seen from a corner on the lid's side, the crosshair ray passes beside the raised lid and over the corner of
    the walls; the aim stands only if one of the ball's visibility points is in sight too (MCS answers NOT_VISIBLE
    otherwise): a point at the ball's bottom, below the walls, is not. The ball's registry points (18, as the
    simulator places them) include one over the walls there, and from an open side close by; the crosshair keeps
    RIM_MARGIN over the walls: not from 0.64 m. (With the generic sphere points, 14, the corner pose saw none.)"""
    ball_points = shape_points("ball", (0.22, 0.22, 0.22))
    beside_lid = Pose(-0.44, 0.48, 140.0)
    assert [a[0] for a in _shell_aim(None).aims(beside_lid)] == [40.0]
    assert _shell_aim(np.array([[0.0, -0.1, 0.0]])).aims(beside_lid) == []
    assert [a[0] for a in _shell_aim(ball_points).aims(beside_lid)] == [40.0]
    open_side = Pose(0.0, -0.48, 0.0)
    assert [a[0] for a in _shell_aim(ball_points).aims(open_side)] == [50.0]
    assert _shell_aim(ball_points).aims(Pose(0.0, -0.64, 0.0)) == []


def test_expert_opens_the_door_when_only_its_doorway_sees_the_target(controller):
    """The only poses that see the target stand in a closed doorway: the closed door hides the target from them as
    well as standing there, so the expert looks for a door that would give it goal poses, and opens it."""
    expert = make_expert("retrieval")
    run = run_expert(str(DOORWAY_ONLY), controller=controller, max_steps=80, expert=expert)
    assert run.ended == "step limit", run.ended
    assert [door for door, _ in expert._doors.values()] == ["door_d13c64a7-f8bf-403f-a1bd-a8ebff3d99f2"]


def test_expert_takes_the_target_through_a_support_containers_open_front(controller):
    """The support-relations container stays on the far platform with its top 2 m up, above the camera: no pose
    sees into it over its walls, so the last, wall-less aim is the one that holds, and the target is taken through
    the container's open front from the doorway."""
    run = run_expert(str(THROUGH_THE_FRONT), controller=controller, record_actions=True)
    assert run.success, run.ended
    assert "OpenObject" in run.actions and run.actions[-2] == "PickupObject"


def test_a_door_noted_for_a_target_is_forgotten_once_the_target_rolls_away(controller):
    """Collision: the door noted in the way to the target during the preview (on the target's starting side) is not
    opened for it once the struck target has rolled away (it ends on the other side, behind the other door)."""
    expert = make_expert("retrieval")
    output = controller.start_scene(str(COLLISION))
    width, height = output.camera_aspect_ratio
    while not expert._doors:  # the preview: the expert notes the door before the throw
        action, params = to_controller_call(*expert.next_action(output), width, height)
        output = controller.step(action, **params)
    (kind, (door, _)), = expert._doors.items()
    assert expert._remembered_door(output, kind).uuid == door
    target = lambda out: next(o for o in out.object_list if o.uuid == kind[1])  # noqa: E731
    start = np.array([target(output).position[k] for k in "xz"])
    while np.hypot(*(np.array([target(output).position[k] for k in "xz"]) - start)) <= DOOR_MEMO_MOVE:
        output = controller.step("Pass")
    assert expert._remembered_door(output, kind) is None
    assert kind not in expert._doors


@pytest.mark.slow
def test_expert_waits_for_the_struck_target_to_rest_and_fetches_it(controller):
    """End to end: the target rolls for ~430 steps after the collision; the expert waits, then goes round the
    other door and picks it up."""
    run = run_expert(str(COLLISION), controller=controller)
    assert run.success, run.ended


@pytest.mark.slow
def test_expert_picks_the_ball_out_of_the_shell_game_container(controller):
    """End to end: the expert follows the shuffled container, opens it and picks up the ball inside."""
    run = run_expert(str(SHELL_GAME), controller=controller)
    assert run.success, run.ended
