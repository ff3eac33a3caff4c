"""Embedded simulator: movement, collision, reach, targeting and every action's return statuses."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mcs_plugin.mcs import Action
from mcs_plugin.sim.controller import EmbeddedController
from tests.sim_scenes import ball, chest, obj, run, scene, wall


# -- movement and collision -----------------------------------------------------------------------
def test_moves_are_tenth_of_a_metre_along_heading(sim):
    sim.start_scene(scene(yaw=90))
    out = sim.step("MoveAhead")
    assert out.return_status == "SUCCESSFUL"
    assert out.position["x"] == pytest.approx(0.1) and out.position["z"] == pytest.approx(0.0)
    out = sim.step("MoveLeft")  # facing +x, left is +z
    assert out.position["z"] == pytest.approx(0.1)
    out = sim.step("MoveBack")  # positions are 32-bit floats, as in Unity: back to 0 within float error
    assert out.position["x"] == pytest.approx(0.0, abs=1e-6)
    out = sim.step("MoveRight")
    assert out.position["z"] == pytest.approx(0.0, abs=1e-6)


def test_walking_into_room_wall_stops_at_capsule_radius(sim):
    """MCS IT 004: in a 10 m room the performer stops at z = 4.7 and then is OBSTRUCTED."""
    sim.start_scene(scene())
    statuses = [sim.step("MoveAhead").return_status for _ in range(50)]
    out = sim.last_output
    assert statuses[46] == "SUCCESSFUL" and statuses[47] == "OBSTRUCTED"
    assert out.position["z"] == pytest.approx(4.7, abs=1e-4)  # 47 steps of 0.1 in 32-bit floats, as Unity
    assert out.step_number == 50


def test_interior_wall_and_object_obstruct(sim):
    sim.start_scene(scene(wall(z=1.0)))
    statuses = [sim.step("MoveAhead").return_status for _ in range(10)]
    assert "OBSTRUCTED" in statuses
    assert sim.last_output.position["z"] + 0.25 <= 0.95 + 1e-6  # capsule stays outside the wall face


def test_rotation_wraps_and_look_limit(sim):
    sim.start_scene(scene())
    assert sim.step("RotateLeft").rotation == pytest.approx(350.0)
    for _ in range(9):
        out = sim.step("LookDown")
    assert out.head_tilt == pytest.approx(90.0) and out.return_status == "SUCCESSFUL"
    out = sim.step("LookDown")
    assert out.return_status == "CANNOT_ROTATE" and out.head_tilt == pytest.approx(90.0)
    out = sim.step("LookUp")
    assert out.head_tilt == pytest.approx(80.0)


def test_rotate_look_with_inline_and_invalid_params(sim):
    sim.start_scene(scene())
    out = sim.step("RotateLook,rotation=30,horizon=20")
    assert out.rotation == pytest.approx(30.0) and out.head_tilt == pytest.approx(20.0)
    out = sim.step("RotateLook", rotation=400, horizon=10)
    assert out.return_status == "SUCCESSFUL_WITH_INVALID_PARAMETERS"
    assert out.rotation == pytest.approx(30.0) and out.head_tilt == pytest.approx(30.0)


def test_poses_change_camera_height_and_transitions(sim):
    out = sim.start_scene(scene())
    assert out.pose == "STANDING" and out.camera_height == pytest.approx(0.762)
    out = sim.step("Crawl")
    assert out.pose == "CRAWLING" and out.camera_height == pytest.approx(0.381)
    out = sim.step("LieDown")
    assert out.pose == "LYING" and out.camera_height == pytest.approx(0.1)
    assert sim.step("Stand").return_status == "WRONG_POSE"
    sim.step("Crawl")
    out = sim.step("Stand")
    assert out.return_status == "SUCCESSFUL" and out.pose == "STANDING"


def test_standing_up_under_a_low_obstacle_is_obstructed(sim):
    low_table = {"id": "slab", "type": "cube", "kinematic": True, "structure": True,
                 "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.8, "z": 0}, "scale": {"x": 2, "y": 0.1, "z": 2}}]}
    sim.start_scene(scene(low_table, start=(0, -3)))
    sim.step("Crawl")
    statuses = [sim.step("MoveAhead").return_status for _ in range(30)]
    assert "OBSTRUCTED" not in statuses  # crawling fits under the slab
    assert sim.step("Stand").return_status == "OBSTRUCTED"


# -- reach and targeting --------------------------------------------------------------------------
def test_pickup_within_reach_and_held_placement(sim):
    """MCS IT 005: a 0.5 m ball whose surface is 1.00 m away can be picked up; it is then held ahead."""
    sim.start_scene(scene(ball(z=1.14)))
    out = sim.step("PickupObject", objectId="ball")
    assert out.return_status == "SUCCESSFUL" and out.resolved_object == "ball"
    held = obj(out, "ball")
    assert held.held and held.visible
    assert held.position["z"] == pytest.approx(0.49, abs=0.01)
    assert held.distance_in_world == pytest.approx(0.591, abs=0.01)


def test_a_picked_up_object_turns_to_face_the_way_the_performer_does(sim):
    """MCS IT 151, 166, 167: whatever an object's rotation was, held it reports the performer's rotation."""
    turned = ball(x=0.45, z=0.78, diameter=0.3)  # straight ahead of a performer facing 30 degrees
    turned["shows"][0]["rotation"] = {"x": 0, "y": 80, "z": 0}
    sim.start_scene(scene(turned, yaw=30, tilt=30))
    out = sim.step("PickupObject", objectId="ball")
    assert out.return_status == "SUCCESSFUL"
    assert obj(out, "ball").rotation["y"] == pytest.approx(30, abs=0.5)
    assert obj(sim.step("RotateRight"), "ball").rotation["y"] == pytest.approx(40, abs=0.5)


def test_pickup_out_of_reach(sim):
    """MCS IT 006: the same ball 0.11 m further is OUT_OF_REACH."""
    sim.start_scene(scene(ball(z=1.25)))
    assert sim.step("PickupObject", objectId="ball").return_status == "OUT_OF_REACH"


def test_image_coordinates_resolve_by_ray(sim):
    sim.start_scene(scene(ball(z=0.9, diameter=0.3), tilt=30))
    out = sim.step("PickupObject", objectImageCoordsX=300, objectImageCoordsY=200)
    assert out.return_status == "SUCCESSFUL" and out.resolved_object == "ball"


def test_image_coordinates_on_floor_and_walls(sim):
    sim.start_scene(scene(tilt=60))
    out = sim.step("PickupObject", objectImageCoordsX=300, objectImageCoordsY=200)
    assert out.resolved_object == "floor" and out.return_status == "NOT_PICKUPABLE"
    sim.start_scene(scene(start=(0, 4.5)))
    out = sim.step("PushObject", objectImageCoordsX=300, objectImageCoordsY=200)
    assert out.resolved_object == "wall_front" and out.return_status == "NOT_MOVEABLE"


def test_floor_with_holes_is_targeted_as_one_metre_tiles(sim):
    """MCS IT 164: with holes, lava or floor textures the floor is 1 m tiles `floor<N>`, numbered row by row from the
    -x, -z corner of a grid one tile wider than the room on each side (13 per row in a 10 m room)."""
    sim.start_scene(scene(start=(-0.5, 4.6), yaw=90, tilt=60, holes=[{"x": 1, "z": 1}]))
    out = sim.step("PickupObject", objectImageCoordsX=300, objectImageCoordsY=200)  # the tile at x 0, z 5
    assert out.resolved_object == "floor149" and out.return_status == "NOT_PICKUPABLE"
    out = sim.step("MoveObject", objectId="floor149")
    assert out.resolved_object == "floor149" and out.return_status == "NOT_MOVEABLE"
    out = sim.step("PushObject", objectId="floor110")  # the tile at x 0, z 2: 2.6 m away
    assert out.resolved_object == "floor110" and out.return_status == "OUT_OF_REACH"
    assert sim.step("PushObject", objectId="floor999").return_status == "NOT_OBJECT"
    sim.start_scene(scene(start=(-0.5, 4.6), yaw=90, tilt=60))  # no holes: one floor object
    assert sim.step("MoveObject", objectImageCoordsX=300, objectImageCoordsY=200).resolved_object == "floor"
    assert sim.step("MoveObject", objectId="floor149").return_status == "NOT_OBJECT"


def test_object_direction_targeting(sim):
    sim.start_scene(scene(ball(z=0.9, diameter=0.3)))
    direction = obj(sim.last_output, "ball").direction
    out = sim.step("PickupObject", objectDirectionX=direction["x"], objectDirectionY=direction["y"],
                   objectDirectionZ=direction["z"])
    assert out.return_status == "SUCCESSFUL" and out.resolved_object == "ball"


def test_status_precedence(sim):
    sim.start_scene(scene(ball(z=1.14), ball("far", x=0.6, z=3), ball("behind", z=-2),
                          ball("near_behind", x=0.5, z=-0.6, diameter=0.2)))
    assert sim.step("PickupObject", objectId="nope").return_status == "NOT_OBJECT"
    # MCS (IT 007, 158): an unseen object beyond reach is OUT_OF_REACH; within reach, NOT_VISIBLE.
    assert sim.step("PickupObject", objectId="behind").return_status == "OUT_OF_REACH"
    assert sim.step("PickupObject", objectId="near_behind").return_status == "NOT_VISIBLE"
    assert sim.step("PickupObject", objectId="far").return_status == "OUT_OF_REACH"
    assert sim.step("OpenObject", objectId="ball").return_status == "NOT_OPENABLE"
    assert sim.step("InteractWithAgent", objectId="ball").return_status == "NOT_AGENT"


def test_occluded_object_is_not_visible(sim):
    sim.start_scene(scene(ball(z=0.8, diameter=0.2), wall(z=0.5, width=3.0)))
    assert not obj(sim.last_output, "ball").visible
    assert sim.step("PickupObject", objectId="ball").return_status == "NOT_VISIBLE"


# -- holding, putting, dropping, throwing ---------------------------------------------------------
def test_hand_capacity_follows_config():
    scn = scene(ball("a", x=-0.2, z=0.8, diameter=0.2), ball("b", x=0.2, z=0.8, diameter=0.2), tilt=30)
    one = EmbeddedController({"metadata": "oracle", "render": False})
    one.start_scene(scn)
    assert one.step("PickupObject", objectId="a").return_status == "SUCCESSFUL"
    assert one.step("PickupObject", objectId="b").return_status == "HAND_IS_FULL"
    many = EmbeddedController({"metadata": "oracle", "render": False, "max_held_objects": 0})
    many.start_scene(scn)
    many.step("PickupObject", objectId="a")
    assert many.step("PickupObject", objectId="b").return_status == "SUCCESSFUL"


def test_drop_falls_to_floor(sim):
    sim.start_scene(scene(ball(z=0.8, diameter=0.2), tilt=30))
    assert sim.step("PickupObject", objectId="ball").return_status == "SUCCESSFUL"
    assert sim.step("DropObject").return_status == "SUCCESSFUL"
    for _ in range(20):
        out = sim.step("Pass")
    dropped = obj(out, "ball")
    assert not dropped.held
    assert dropped.position["y"] == pytest.approx(0.1, abs=0.02)


def test_drop_and_put_without_holding(sim):
    sim.start_scene(scene(chest(z=1.0)))
    assert sim.step("DropObject").return_status == "NOT_HELD"
    assert sim.step("PutObject", receptacleObjectId="chest").return_status == "NOT_HELD"
    assert sim.step("ThrowObject").return_status == "NOT_HELD"


def test_put_into_open_container_and_obstructed_when_closed(sim):
    sim.start_scene(scene(ball(z=0.7, diameter=0.15), chest(z=1.1), tilt=40))
    assert sim.step("PickupObject", objectId="ball").return_status == "SUCCESSFUL"
    assert sim.step("PutObject", receptacleObjectId="chest").return_status == "OBSTRUCTED"
    assert sim.step("OpenObject", objectId="chest").return_status == "SUCCESSFUL"
    out = sim.step("PutObject", receptacleObjectId="chest")
    assert out.return_status == "SUCCESSFUL" and out.resolved_receptacle == "chest"
    placed = obj(out, "ball")
    chest_meta = obj(out, "chest")
    assert not placed.held
    assert abs(placed.position["z"] - chest_meta.position["z"]) < 0.3


def test_put_into_open_container_beyond_arms_length_goes_to_its_centre(sim):
    """MCS IT 028, 070: an opened chest whose centre is 1.2 m away still takes the object, at its centre, let go
    0.05 m above its floor (it lands during the next step)."""
    sim.start_scene(scene(ball(z=0.8, diameter=0.2), chest(z=1.2), tilt=20))
    assert sim.step("PickupObject", objectId="ball").return_status == "SUCCESSFUL"
    assert sim.step("OpenObject", objectId="chest").return_status == "SUCCESSFUL"
    out = sim.step("PutObject", receptacleObjectId="chest")
    assert out.return_status == "SUCCESSFUL"
    placed = obj(out, "ball").position
    assert (placed["x"], placed["z"]) == pytest.approx((0.0, 1.2), abs=0.01)
    landed = obj(sim.step("Pass"), "ball").position
    assert 0.02 < placed["y"] - landed["y"] < 0.06


def changing_table(z: float = 1.0, scale: float = 1.0) -> dict:
    """MCS's changing table facing the performer (rotated 180 degrees)."""
    return {"id": "table", "type": "changing_table",
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": z}, "rotation": {"x": 0, "y": 180, "z": 0},
                       "scale": {"x": scale, "y": scale, "z": scale}}]}


def test_a_ball_put_in_an_opened_changing_table_drawer_is_seen_over_its_front(sim):
    """MCS IT 082: the bottom drawer (floor 0.09 m up, front 0.33 m high, sliding out 0.31 m) takes the ball, which
    is seen and picked up again after the drawer was closed and reopened."""
    sim.start_scene(scene(ball(z=0.3, diameter=0.05), changing_table(), tilt=50))
    assert sim.step("PickupObject", objectId="ball").return_status == "SUCCESSFUL"
    sim.step("LookUp")
    drawer = "table_drawer_bottom"
    assert sim.step("OpenObject", objectId=drawer).return_status == "SUCCESSFUL"
    assert sim.step("PutObject", receptacleObjectId=drawer).return_status == "SUCCESSFUL"
    assert sim.step("CloseObject", objectId=drawer).return_status == "SUCCESSFUL"
    assert sim.step("OpenObject", objectId=drawer).return_status == "SUCCESSFUL"
    in_drawer = obj(run(sim, 2)[-1], "ball")  # resting on the drawer's floor, not fallen through it
    assert in_drawer.visible and in_drawer.position["y"] == pytest.approx(0.09 + 0.025, abs=0.01)
    assert sim.step("PickupObject", objectId="ball").return_status == "SUCCESSFUL"


def test_a_turned_drawer_takes_along_only_what_lies_in_it(sim):
    """What a drawer carries as it slides is found in the drawer's own axes: a ball beside a changing table turned
    135 degrees, inside the room-aligned box around the bottom drawer but outside the drawer itself, stays put."""
    table = {"id": "table", "type": "changing_table",
             "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 1}, "rotation": {"x": 0, "y": 135, "z": 0}}]}
    sim.start_scene(scene(table, ball(x=2.0, z=2.0, diameter=0.05)))
    world = sim.world
    drawer, loose = world.by_id["table_drawer_bottom"], world.by_id["ball"]
    aligned_low, aligned_high = world.geoms_box(drawer)
    own_low, own_high = world.geoms_box(drawer, in_own_frame=True)
    spot = np.array([aligned_high[0] - 0.05, aligned_high[1] - 0.05, (aligned_low[2] + aligned_high[2]) / 2])
    local = world.body_mat(drawer).T @ (spot - world.body_pos(drawer))
    assert np.all((spot >= aligned_low) & (spot <= aligned_high))  # in the room-aligned box
    assert not np.all((local >= own_low) & (local <= own_high))  # but not in the drawer
    world.set_pose(loose, spot, np.eye(3))
    world.forward()
    world.set_open(drawer, True)
    assert world.center(loose)[:2] == pytest.approx(spot[:2], abs=1e-6)


def test_the_changing_tables_shelves_are_boards_of_the_table(sim):
    """MCS IT 154: the image centre on the table's top shelf picks the table itself; the shelves are still listed as
    its child components."""
    sim.start_scene(scene(changing_table(z=0.5, scale=0.75), tilt=30))
    out = sim.step("MoveObject", objectImageCoordsX=300, objectImageCoordsY=200)
    assert out.resolved_object == "table" and out.return_status == "NOT_MOVEABLE"
    assert all(obj(out, f"table_{name}") is not None for name in ("shelf_top", "shelf_middle", "shelf_bottom"))


def test_light_object_inside_the_body_at_the_start_is_pushed_out_ahead(sim):
    """MCS IT 082, 163: a small ball starting inside the body ends with its centre 0.254 m from the body's axis."""
    sim.start_scene(scene(ball(z=0.2, diameter=0.05), tilt=50))
    assert obj(sim.last_output, "ball").position["z"] == pytest.approx(0.254, abs=0.005)
    assert sim.step("PickupObject", objectId="ball").return_status == "SUCCESSFUL"


def test_put_on_non_receptacle(sim):
    sim.start_scene(scene(ball("a", x=-0.2, z=0.8, diameter=0.2), ball("b", x=0.2, z=0.8, diameter=0.2), tilt=30))
    sim.step("PickupObject", objectId="a")
    assert sim.step("PutObject", receptacleObjectId="b").return_status == "NOT_RECEPTACLE"


def test_throw_moves_object_away(sim):
    sim.start_scene(scene(ball(z=0.8, diameter=0.2), tilt=30))
    assert sim.step("PickupObject", objectId="ball").return_status == "SUCCESSFUL"
    sim.step("LookUp")
    sim.step("LookUp")
    sim.step("LookUp")
    assert sim.step("ThrowObject", force=1.0).return_status == "SUCCESSFUL"
    for _ in range(10):
        out = sim.step("Pass")
    assert obj(out, "ball").position["z"] > 1.5


# -- pushing, opening -----------------------------------------------------------------------------
def test_push_and_pull_move_light_objects(sim):
    sim.start_scene(scene(ball(z=0.8, diameter=0.3), tilt=20))
    z0 = obj(sim.last_output, "ball").position["z"]
    assert sim.step("PushObject", objectId="ball", force=1.0).return_status == "SUCCESSFUL"
    for _ in range(3):
        out = sim.step("Pass")
    assert obj(out, "ball").position["z"] > z0 + 0.05


def test_push_static_is_not_moveable(sim):
    sim.start_scene(scene(chest(z=1.0), tilt=30))
    assert sim.step("PushObject", objectId="chest").return_status == "NOT_MOVEABLE"


def test_open_close_statuses_and_locked(sim):
    sim.start_scene(scene(chest(z=1.0), chest("locked", x=0.9, z=1.0, locked=True), tilt=30))
    assert sim.step("CloseObject", objectId="chest").return_status == "IS_CLOSED_COMPLETELY"
    out = sim.step("OpenObject", objectId="chest")
    assert out.return_status == "SUCCESSFUL" and obj(out, "chest").is_open
    assert sim.step("OpenObject", objectId="chest").return_status == "IS_OPENED_COMPLETELY"
    assert sim.step("CloseObject", objectId="chest").return_status == "SUCCESSFUL"
    assert sim.step("OpenObject", objectId="locked").return_status == "IS_LOCKED"


@pytest.mark.parametrize("restriction", ["restrictOpenObjects", "restrictOpenDoors"])
def test_only_one_object_or_door_may_ever_be_opened(sim, restriction):
    """MCS IT 106, 179: with restrictOpenObjects a second openable stays IS_LOCKED (the first can be reopened);
    restrictOpenDoors restricts doors only, so a second chest opens."""
    sim.start_scene(scene(chest(x=-0.45, z=1.0), chest("other", x=0.45, z=1.0), tilt=30, **{restriction: True}))
    assert sim.step("OpenObject", objectId="chest").return_status == "SUCCESSFUL"
    assert sim.step("CloseObject", objectId="chest").return_status == "SUCCESSFUL"
    expected = "IS_LOCKED" if restriction == "restrictOpenObjects" else "SUCCESSFUL"
    assert sim.step("OpenObject", objectId="other").return_status == expected
    assert sim.step("OpenObject", objectId="chest").return_status in ("SUCCESSFUL", "IS_OPENED_COMPLETELY")


def test_object_inside_closed_container_is_hidden_until_opened(sim):
    inside = ball("toy", z=0.0, diameter=0.15, locationParent="chest")
    inside["shows"][0]["position"] = {"x": 0, "y": 0.12, "z": 0}
    # Looking from the chest's front (+z): from behind, its opened lid stands between the camera and the toy.
    sim.start_scene(scene(chest(z=1.0), inside, start=(0, 1.55), yaw=180, tilt=50))
    assert not obj(sim.last_output, "toy").visible
    out = sim.step("OpenObject", objectId="chest")
    assert obj(out, "toy").visible
    assert sim.step("PickupObject", objectId="toy").return_status == "SUCCESSFUL"


# -- parameters and action lists ------------------------------------------------------------------
@pytest.mark.parametrize("params", [{"force": 2}, {"force": "hard"}, {"objectImageCoordsX": 700, "objectImageCoordsY": 10}])
def test_bad_parameters_raise_value_error(sim, params):
    sim.start_scene(scene(ball()))
    with pytest.raises(ValueError):
        sim.step("PushObject", objectId="ball", **params)
    assert sim.last_output.step_number == 0  # nothing was lost: the bad call did not advance the scene


def test_missing_target_raises(sim):
    sim.start_scene(scene(ball()))
    with pytest.raises(ValueError, match="objectId"):
        sim.step("PickupObject")


def test_unknown_action_raises(sim):
    sim.start_scene(scene())
    with pytest.raises(ValueError, match="unknown action"):
        sim.step("Fly")


def test_restricted_action_list_and_last_step(sim):
    goal = {"category": "retrieval", "metadata": {"target": {"id": "ball"}}, "last_step": 2,
            "action_list": [["Pass"], ["RotateLook,rotation=10"]]}
    sim.start_scene(scene(ball(), goal=goal))
    with pytest.raises(ValueError):
        sim.step("MoveAhead")
    assert sim.step("Pass").return_status == "SUCCESSFUL"
    with pytest.raises(ValueError):
        sim.step("RotateLook", rotation=20)
    assert sim.step("RotateLook,rotation=10").rotation == pytest.approx(10.0)
    assert sim.step("Pass") is None


def test_end_habituation_teleports_and_counts_trials():
    goal = {"category": "intuitive physics", "habituation_total": 2, "last_step": 4,
            "action_list": [["Pass"], ["EndHabituation,xPosition=1,zPosition=-2,yRotation=90"], ["Pass"], ["Pass"]]}
    sim = EmbeddedController({"metadata": "oracle", "size": 120})
    out = sim.start_scene(scene(goal=goal))
    assert out.habituation_trial == 1
    sim.step("Pass")
    out = sim.step("EndHabituation")
    assert out.habituation_trial == 2
    assert out.position["x"] == pytest.approx(1.0) and out.position["z"] == pytest.approx(-2.0)
    assert out.rotation == pytest.approx(90.0)
    assert not np.asarray(out.image_list[0]).any()  # a black frame
    assert sim.step("Pass").habituation_trial == 2


def test_end_habituation_teleports_only_with_both_coordinates():
    """MCS's Python sends a teleport position only when both xPosition and zPosition are given
    (Parameter._get_teleport_position): with xPosition alone the performer stays where it is and only turns."""
    goal = {"category": "intuitive physics", "habituation_total": 2, "last_step": 3,
            "action_list": [["EndHabituation,xPosition=1,yRotation=90"], ["Pass"], ["Pass"]]}
    sim = EmbeddedController({"metadata": "oracle", "render": False})
    sim.start_scene(scene(goal=goal, start=(0.5, -1.0)))
    out = sim.step("EndHabituation")
    assert (out.position["x"], out.position["z"], out.rotation) == pytest.approx((0.5, -1.0, 90.0))


# -- reward --------------------------------------------------------------------------------------
def test_retrieval_reward_seed_and_mcs074():
    goal = {"category": "retrieval", "metadata": {"target": {"id": "ball"}}}
    seed = EmbeddedController({"metadata": "oracle", "render": False})
    seed.start_scene(scene(ball(z=1.14), goal=goal))
    assert seed.step("Pass").reward == 0.0
    assert seed.step("PickupObject", objectId="ball").reward == 1.0
    mcs = EmbeddedController({"metadata": "oracle", "render": False, "reward_mode": "mcs074"})
    mcs.start_scene(scene(ball(z=1.14), goal=goal))
    assert mcs.step("Pass").reward == pytest.approx(-0.001)
    assert mcs.step("PickupObject", objectId="ball").reward == pytest.approx(0.999)


def test_traversal_reward(sim):
    goal = {"category": "traversal", "metadata": {"target": {"id": "ball"}}}
    sim.start_scene(scene(ball(z=2.5), goal=goal))
    rewards = [sim.step("MoveAhead").reward for _ in range(15)]
    assert rewards[0] == 0.0 and rewards[-1] == 1.0


def test_lava_counts_steps_and_haptics():
    sim = EmbeddedController({"metadata": "oracle", "render": False, "steps_allowed_in_lava": 0})
    sim.start_scene(scene(lava=[{"x": 0, "z": 1}]))
    out = sim.last_output
    while not out.haptic_feedback["on_lava"]:
        assert out.steps_on_lava == 0 and len(out.action_list) > 1
        out = sim.step("MoveAhead")
    assert out.position["z"] == pytest.approx(0.5, abs=0.051)
    assert out.haptic_feedback["on_lava"] and out.steps_on_lava == 1
    assert out.action_list == [("EndScene", {})]
    assert out.lava == [(-0.5, 0.5, 0.5, 1.5)]


def test_end_scene_records_choice():
    sim = EmbeddedController({"metadata": "oracle", "render": False})
    sim.start_scene(scene(goal={"category": "intuitive physics", "answer": {"choice": "plausible"}}))
    record = sim.end_scene("plausible", 0.8)
    assert record["correct"] is True and record["confidence"] == 0.8
    with pytest.raises(RuntimeError):
        sim.end_scene()
    with pytest.raises(RuntimeError):
        sim.step("Pass")


def test_every_action_enum_member_is_handled(sim):
    sim.start_scene(scene(ball(z=1.14)))
    internal = {Action.END_SCENE, Action.INITIALIZE}
    missing = [a.value for a in Action if a not in internal and not sim._runner.supports(a.value)]
    assert missing == []


def test_move_object_and_rotate_object(sim):
    box = {"id": "box", "type": "cube", "moveable": True, "mass": 1,
           "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.15, "z": 0.9}, "scale": {"x": 0.3, "y": 0.3, "z": 0.3}}]}
    sim.start_scene(scene(box, tilt=30))
    z0 = obj(sim.last_output, "box").position["z"]
    out = sim.step("MoveObject", objectId="box", straight=1)
    assert out.return_status == "SUCCESSFUL" and obj(out, "box").position["z"] == pytest.approx(z0 + 0.1, abs=0.02)
    out = sim.step("RotateObject", objectId="box", clockwise=True)
    assert out.return_status == "SUCCESSFUL"
    assert obj(out, "box").rotation["y"] == pytest.approx(5.0, abs=1.0)
    assert math.isfinite(obj(out, "box").position["y"])


@pytest.mark.parametrize("relationship", ["on_top_of", "on top of"])
def test_transferral_on_top_of_either_spelling(relationship):
    base = {"id": "base", "type": "cube", "kinematic": True,
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.1, "z": 2}, "scale": {"x": 0.6, "y": 0.2, "z": 0.6}}]}
    top = ball("top", z=2.0, diameter=0.2)
    top["shows"][0]["position"]["y"] = 0.3
    goal = {"category": "transferral",
            "metadata": {"target_1": {"id": "top"}, "target_2": {"id": "base"}, "relationship": ["target_1", relationship, "target_2"]}}
    controller = EmbeddedController({"metadata": "oracle", "render": False})
    controller.start_scene(scene(base, top, goal=goal))
    assert controller.step("Pass").reward == 1.0
