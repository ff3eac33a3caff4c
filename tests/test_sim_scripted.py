"""Embedded simulator: scripted scene features, structures, goal rewards, passive scenes and simulation agents."""

from __future__ import annotations

import math

import pytest

from mcs_plugin.sim.controller import EmbeddedController
from tests.sim_scenes import ball, chest, obj, run, scene

RED = "AI2-THOR/Materials/Plastics/OrangePlastic"
BLUE = "AI2-THOR/Materials/Plastics/BlueRubber"




def block(object_id: str = "block", x: float = 0.0, y: float = 0.15, z: float = 2.0, size: float = 0.3, **flags) -> dict:
    """A cube (kinematic unless flags say otherwise)."""
    flags.setdefault("kinematic", True)
    return {"id": object_id, "type": "cube", "mass": 1, "materials": [RED],
            "shows": [{"stepBegin": 0, "position": {"x": x, "y": y, "z": z}, "scale": {"x": size, "y": size, "z": size}}],
            **flags}


# -- moves, rotates, teleports, shows, hides ----------------------------------------------------------
def test_moves_add_their_vector_every_step_in_range_and_repeat(sim):
    moving = block(moves=[{"stepBegin": 1, "stepEnd": 3, "vector": {"x": 0.1, "y": 0, "z": 0}, "repeat": True,
                           "stepWait": 2}])
    sim.start_scene(scene(moving))
    xs = [obj(out, "block").position["x"] for out in run(sim, 10)]
    # steps 1-3 move, 4 waits, 5-7 move, 8 waits, 9-10 move (period = stepEnd - stepBegin + stepWait)
    assert xs == pytest.approx([0.1, 0.2, 0.3, 0.3, 0.4, 0.5, 0.6, 0.6, 0.7, 0.8], abs=1e-4)


def test_moves_are_in_the_objects_own_axes_unless_global(sim):
    local = block("local", x=-1, moves=[{"stepBegin": 1, "stepEnd": 1, "vector": {"x": 0, "y": 0, "z": 0.5}}])
    local["shows"][0]["rotation"] = {"x": 0, "y": 90, "z": 0}
    world = block("world", x=1, moves=[{"stepBegin": 1, "stepEnd": 1, "vector": {"x": 0, "y": 0, "z": 0.5},
                                        "globalSpace": True}])
    world["shows"][0]["rotation"] = {"x": 0, "y": 90, "z": 0}
    sim.start_scene(scene(local, world))
    out = sim.step("Pass")
    assert obj(out, "local").position["x"] == pytest.approx(-0.5, abs=1e-4)  # its +z is the world's +x
    assert obj(out, "world").position["z"] == pytest.approx(2.5, abs=1e-4)


def test_rotates_turn_every_step_in_range(sim):
    sim.start_scene(scene(block(rotates=[{"stepBegin": 2, "stepEnd": 4, "vector": {"x": 0, "y": 15, "z": 0}}])))
    yaws = [round(obj(out, "block").rotation["y"]) % 360 for out in run(sim, 6)]
    assert yaws == [0, 15, 30, 45, 45, 45]


def test_teleports_shows_and_hides(sim):
    late = ball("late", x=1, z=2, shows=[{"stepBegin": 3, "position": {"x": 1, "y": 0.25, "z": 2},
                                             "scale": {"x": 0.5, "y": 0.5, "z": 0.5}}])
    jumper = block("jumper", teleports=[{"stepBegin": 2, "position": {"x": -1, "y": 0.15, "z": 3},
                                         "rotation": {"x": 0, "y": 45, "z": 0}}])
    gone = block("gone", x=1.5, hides=[{"stepBegin": 2}])
    sim.start_scene(scene(late, jumper, gone))
    assert obj(sim.last_output, "late") is None and obj(sim.last_output, "gone") is not None
    outs = run(sim, 4)
    assert obj(outs[0], "jumper").position["x"] == pytest.approx(0.0)
    jumped = obj(outs[1], "jumper")
    assert (jumped.position["x"], jumped.position["z"]) == pytest.approx((-1.0, 3.0), abs=1e-4)
    assert round(jumped.rotation["y"]) == 45
    assert obj(outs[0], "gone") is not None and obj(outs[1], "gone") is None and obj(outs[3], "gone") is None
    assert obj(outs[1], "late") is None and obj(outs[2], "late") is not None


# -- forces, torques, physics toggles, ghosts, shrouds ------------------------------------------------
def test_forces_and_impulses_accelerate_physical_objects(sim):
    pushed = ball("pushed", x=-1, z=2, diameter=0.3, forces=[{"stepBegin": 1, "stepEnd": 5, "vector": {"x": 0, "y": 0, "z": 60}}])
    kicked = ball("kicked", x=1, z=2, diameter=0.3, forces=[{"stepBegin": 1, "stepEnd": 1, "impulse": True,
                                                               "vector": {"x": 0, "y": 0, "z": 2}}])
    sim.start_scene(scene(pushed, kicked))
    outs = run(sim, 10)
    assert obj(outs[-1], "pushed").position["z"] > 2.2  # 60 N * 0.01 s / 1 kg per step for 5 steps: 3 m/s
    assert obj(outs[-1], "kicked").position["z"] > 2.5  # 2 N s / 1 kg = 2 m/s
    assert obj(outs[-1], "pushed").position["x"] == pytest.approx(-1.0, abs=0.01)



def test_a_thrower_tube_lets_a_projectile_that_fits_its_hole_fly_out(sim):
    """MCS's throwers: a tube_wide on its side, 1.25 times as wide as the ball it holds at its centre; an impulse
    along the tube sends the ball out at about its speed (rolling takes a share), not stuck against the walls."""
    tube = {"id": "thrower", "type": "tube_wide", "kinematic": True, "structure": True,
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.275, "z": 2}, "rotation": {"x": 0, "y": 0, "z": 90},
                       "scale": {"x": 0.55, "y": 0.55, "z": 0.55}}]}
    thrown = {"id": "thrown", "type": "soccer_ball", "mass": 2.0, "pickupable": True,
              "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.275, "z": 2}, "scale": {"x": 2, "y": 2, "z": 2}}],
              "forces": [{"stepBegin": 1, "stepEnd": 1, "impulse": True, "relative": True,
                          "vector": {"x": 6.0, "y": 0, "z": 0}}]}
    sim.start_scene(scene(tube, thrown))
    xs = [obj(out, "thrown").position["x"] for out in run(sim, 8)]
    # 6 N s / 2 kg = 3 m/s, 0.15 m per 0.05 s action; 5/7 of it once the ball rolls without slipping
    assert xs[-1] > 0.7, xs


def test_torques_spin_objects(sim):
    spun = block("spun", kinematic=False, physics=True,
                 torques=[{"stepBegin": 1, "stepEnd": 3, "vector": {"x": 0, "y": 5, "z": 0}}])
    sim.start_scene(scene(spun))
    outs = run(sim, 6)
    turned = obj(outs[-1], "spun").rotation["y"]
    assert 5 < turned % 360 < 355


def test_toggle_physics_lets_a_held_up_object_fall(sim):
    floating = block("floating", y=1.0, physics=True, togglePhysics=[{"stepBegin": 3}])
    sim.start_scene(scene(floating))
    heights = [obj(out, "floating").position["y"] for out in run(sim, 20)]
    assert heights[0] == pytest.approx(1.0, abs=1e-4) and heights[1] == pytest.approx(1.0, abs=1e-4)
    assert heights[-1] == pytest.approx(0.15, abs=0.01)


def test_ghosts_hold_still_and_collide_with_nothing(sim):
    ghost = block("ghost", y=1.0, kinematic=False, physics=True, ghosts=[{"stepBegin": 0, "stepEnd": 4}])
    wall_ghost = block("wall_ghost", y=0.5, z=0.5, size=1.0, kinematic=False, physics=True, mass=50,
                       ghosts=[{"stepBegin": 0, "stepEnd": 100}])
    sim.start_scene(scene(ghost, wall_ghost))
    outs = run(sim, 3)
    assert obj(outs[-1], "ghost").position["y"] == pytest.approx(1.0, abs=1e-3)  # held still while a ghost
    assert sim.step("MoveAhead").return_status == "SUCCESSFUL"  # walks into the ghost block
    outs = run(sim, 25)
    assert obj(outs[-1], "ghost").position["y"] == pytest.approx(0.15, abs=0.01)  # falls once solid again


def test_an_object_with_ghosts_is_physical_whenever_it_is_not_a_ghost(sim):
    # MCSMain.UpdateGameObjectOnStep: outside its ghost range an object with `ghosts` is made non-kinematic, even one
    # the scene made kinematic (before the range as after it); a kinematic object without ghosts stays where it is.
    late_ghost = block("late_ghost", x=-1, y=1.0, kinematic=True, ghosts=[{"stepBegin": 30, "stepEnd": 31}])
    ghosted = block("ghosted", x=1, y=1.0, kinematic=True, ghosts=[{"stepBegin": 0, "stepEnd": 3}])
    plain = block("plain", y=1.0, kinematic=True)
    sim.start_scene(scene(late_ghost, ghosted, plain))
    outs = run(sim, 2)
    assert obj(outs[-1], "ghosted").position["y"] == pytest.approx(1.0, abs=1e-3)  # a ghost holds still
    outs = run(sim, 20)
    assert obj(outs[-1], "late_ghost").position["y"] == pytest.approx(0.15, abs=0.01)  # falls before its ghost range
    assert obj(outs[-1], "ghosted").position["y"] == pytest.approx(0.15, abs=0.01)  # falls once no longer a ghost
    assert obj(outs[-1], "plain").position["y"] == pytest.approx(1.0, abs=1e-3)


def test_shrouded_objects_are_not_seen_but_still_there(sim):
    shrouded = ball("shrouded", z=1.5, shrouds=[{"stepBegin": 2, "stepEnd": 3}])
    sim.start_scene(scene(shrouded))
    visible = [obj(out, "shrouded").visible for out in run(sim, 5)]
    assert visible == [True, False, False, True, True]


# -- opening, materials, lids, states -----------------------------------------------------------------
def test_open_close_and_change_materials_and_states(sim):
    box = chest(z=1.5, openClose=[{"step": 2, "open": True}, {"step": 4, "open": False}])
    painted = block("painted", x=1, changeMaterials=[{"stepBegin": 2, "materials": [BLUE]}],
                    states=[["a"], ["b"], ["c"]])
    sim.start_scene(scene(box, painted))
    assert obj(sim.last_output, "painted").texture_color_list == ["orange"]
    assert obj(sim.last_output, "painted").state_list == ["a"]
    outs = run(sim, 4)
    assert [obj(out, "chest").is_open for out in outs] == [False, True, True, False]
    assert obj(outs[0], "painted").texture_color_list == ["orange"]
    assert obj(outs[1], "painted").texture_color_list == ["blue"]
    assert [obj(out, "painted").state_list for out in outs] == [["b"], ["c"], [], []]


def _imitation_scene() -> dict:
    """Two chests to open in order (left, then right) and a triggeredBy placer that descends and turns cyan."""
    placer = block("placer", x=0, y=2.5, z=1.5, size=0.1, structure=True, triggeredBy=True,
                   materials=["Custom/Materials/Magenta"],
                   moves=[{"stepBegin": 0, "stepEnd": 1, "vector": {"x": 0, "y": -0.5, "z": 0}}],
                   changeMaterials=[{"stepBegin": 2, "materials": ["Custom/Materials/Cyan"]}])
    left, right = chest("left", x=-0.4, z=0.9), chest("right", x=0.4, z=0.9)
    goal = {"category": "imitation", "triggeredByTargetSequence": ["left", "right"],
            "metadata": {"target": {"id": "placer"}}}
    return scene(left, right, placer, tilt=30, goal=goal)


def test_triggered_by_objects_act_once_the_sequence_is_opened_in_order(sim):
    """MCS IT 172: triggeredBy objects' scripts start, on their own clock, at the step the sequence completes."""
    sim.start_scene(_imitation_scene())
    heights = [obj(sim.step("Pass"), "placer").position["y"] for _ in range(3)]
    assert heights == pytest.approx([2.5] * 3)  # nothing happens before the sequence is complete
    assert sim.step("OpenObject", objectId="left").return_status == "SUCCESSFUL"
    assert obj(sim.last_output, "placer").position["y"] == pytest.approx(2.5)
    outs = [sim.step("OpenObject", objectId="right"), *run(sim, 3)]
    assert [obj(out, "placer").position["y"] for out in outs] == pytest.approx([2.0, 1.5, 1.5, 1.5])
    assert obj(outs[1], "placer").texture_color_list == ["magenta", "purple", "red"]
    assert obj(outs[2], "placer").texture_color_list == ["cyan", "blue", "green"]  # Unity's order (IT 088, 172)
    assert not any(out.triggered_by_sequence_incorrect for out in outs)


def test_opening_a_container_out_of_order_ends_the_scene(sim):
    """MCS IT 172: a wrong container sets triggered_by_sequence_incorrect and leaves only EndScene."""
    sim.start_scene(_imitation_scene())
    out = sim.step("OpenObject", objectId="right")
    assert out.return_status == "SUCCESSFUL" and out.triggered_by_sequence_incorrect
    assert [name for name, _ in out.action_list] == ["EndScene"]
    assert obj(out, "placer").position["y"] == pytest.approx(2.5)


def test_end_habituation_restarts_the_sequence_and_levels_the_camera():
    """MCS IT 172: after EndHabituation the triggered objects are as at the start and the sequence counts anew;
    a teleport that turns the body also levels the camera."""
    data = _imitation_scene()
    data["goal"]["action_list"] = [["Pass"], ["Pass"], ["EndHabituation,xPosition=0,zPosition=0,yRotation=0"]]
    data["objects"][0]["openClose"] = [{"step": 1, "open": True}, {"step": 3, "open": False}]
    data["objects"][1]["openClose"] = [{"step": 2, "open": True}, {"step": 3, "open": False}]
    sim = EmbeddedController({"metadata": "oracle", "render": False})
    sim.start_scene(data)
    sim.step("Pass")
    triggered = sim.step("Pass")  # the scripted openings complete the sequence
    assert obj(triggered, "placer").position["y"] == pytest.approx(2.0)
    out = sim.step("EndHabituation")
    assert out.head_tilt == 0
    assert obj(sim.step("Pass"), "placer").texture_color_list == ["magenta", "purple", "red"]
    out = sim.step("OpenObject", objectId="right")  # a fresh sequence: the right chest is now out of order
    assert out.return_status == "SUCCESSFUL" and out.triggered_by_sequence_incorrect


def test_lid_attachment_fixes_the_lid_to_its_container(sim):
    container = {"id": "container", "type": "separate_container", "receptacle": True, "kinematic": True,
                 "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 1.5}, "scale": {"x": 0.4, "y": 0.4, "z": 0.4}}],
                 "moves": [{"stepBegin": 4, "stepEnd": 5, "vector": {"x": 0.2, "y": 0, "z": 0}, "globalSpace": True}]}
    lid = {"id": "lid", "type": "lid", "lidAttachment": {"stepBegin": 3, "lidAttachmentObjId": "container"},
           "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.6, "z": 1.5}, "scale": {"x": 0.4, "y": 0.4, "z": 0.4}}],
           "moves": [{"stepBegin": 1, "stepEnd": 2, "vector": {"x": 0, "y": -0.1, "z": 0}}]}
    sim.start_scene(scene(container, lid))
    outs = run(sim, 6)
    attached = obj(outs[2], "lid").position
    assert attached["y"] == pytest.approx(0.4, abs=1e-3)  # lowered by its moves, not moved by the attachment
    carried = obj(outs[-1], "lid").position
    assert carried["x"] == pytest.approx(0.4, abs=1e-3) and carried["y"] == pytest.approx(0.4, abs=1e-3)
    assert obj(outs[-1], "container").position["x"] == pytest.approx(0.4, abs=1e-3)


def _lidded_container(**container_flags) -> tuple[dict, dict]:
    """A 0.4 m separate_container at (0, 1.5) with a grey lid lowered onto it at step 2 and attached at step 3."""
    container = {"id": "container", "type": "separate_container", "receptacle": True, "openable": True,
                 "kinematic": True, "salientMaterials": ["metal"],
                 "materials": ["AI2-THOR/Materials/Metals/BrushedIron_AlbedoTransparency"],
                 "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 1.5}, "scale": {"x": 0.4, "y": 0.4, "z": 0.4}}],
                 **container_flags}
    lid = {"id": "lid", "type": "lid", "lidAttachment": {"stepBegin": 3, "lidAttachmentObjId": "container"},
           "materials": ["UnityAssetStore/Wooden_Toys_Bundle/ToyBlocks/meshes/Materials/gray_1x1"],
           "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.6, "z": 1.5}, "scale": {"x": 0.4, "y": 0.4, "z": 0.4}}],
           "moves": [{"stepBegin": 1, "stepEnd": 2, "vector": {"x": 0, "y": -0.1, "z": 0}}]}
    return container, lid


def test_an_attached_lid_swings_up_away_from_the_performer_and_reports_its_colours(sim):
    container, lid = _lidded_container()
    sim.start_scene(scene(container, lid, start=(0.0, 0.6), tilt=30))
    assert obj(sim.last_output, "container").material_list == []  # the prefab reports no salient materials
    outs = run(sim, 3)
    assert obj(outs[-1], "container").texture_color_list == ["black", "grey"]  # its own and the lid's
    opened = sim.step("OpenObject", objectId="lid")
    assert opened.return_status == "SUCCESSFUL"
    up = obj(opened, "lid").position  # turned up about its far (+z) bottom edge: 0.2 up, 0.2 further
    assert (up["x"], up["y"], up["z"]) == pytest.approx((0.0, 0.6, 1.7), abs=1e-3)
    assert sim.step("OpenObject", objectId="container").return_status == "IS_OPENED_COMPLETELY"
    closed = sim.step("CloseObject", objectId="container")
    assert closed.return_status == "SUCCESSFUL"
    down = obj(closed, "lid").position
    assert (down["x"], down["y"], down["z"]) == pytest.approx((0.0, 0.4, 1.5), abs=1e-3)


def test_a_dragged_container_takes_what_is_inside_along(sim):
    container, lid = _lidded_container(moves=[{"stepBegin": 4, "stepEnd": 7, "vector": {"x": 0, "y": 0, "z": -0.25}}])
    inside = ball("inside", z=1.5, diameter=0.2)
    inside["shows"][0]["position"]["y"] = 0.2
    sim.start_scene(scene(container, lid, inside))
    outs = run(sim, 10)
    moved = obj(outs[-1], "inside").position
    assert (moved["x"], moved["z"]) == pytest.approx((0.0, 0.5), abs=0.01)
    assert obj(outs[-1], "lid").position["z"] == pytest.approx(0.5, abs=1e-3)


def test_released_during_its_move_an_object_keeps_the_moves_speed(sim):
    dropped = block("dropped", y=1.0, physics=True, togglePhysics=[{"stepBegin": 2}],
                    moves=[{"stepBegin": 1, "stepEnd": 2, "vector": {"x": 0, "y": -0.1, "z": 0}}])
    sim.start_scene(scene(dropped))
    outs = run(sim, 2)
    # 0.1 m by each move, plus 0.1 m at the move's 2 m/s and a little gravity in the releasing step
    assert obj(outs[0], "dropped").position["y"] == pytest.approx(0.9, abs=1e-3)
    assert obj(outs[1], "dropped").position["y"] == pytest.approx(0.688, abs=0.005)


# -- structures -------------------------------------------------------------------------------------
def test_a_rotating_cog_carries_what_stands_on_it(sim):
    cog = {"id": "cog", "type": "rotating_cog", "structure": True,
           "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.01, "z": 1.0}, "scale": {"x": 4, "y": 1, "z": 4}}],
           "rotates": [{"stepBegin": 1, "stepEnd": 9, "vector": {"x": 0, "y": 10, "z": 0}}]}
    rider = ball("rider", x=1.0, z=1.0, diameter=0.3)
    rider["shows"][0]["position"]["y"] = 0.17
    sim.start_scene(scene(cog, rider))
    outs = run(sim, 9)
    carried = obj(outs[-1], "rider").position
    # a quarter turn clockwise (seen from above) about the cog's centre: (1, 1) -> (0, 0)
    assert (carried["x"], carried["z"]) == pytest.approx((0.0, 0.0), abs=0.02)
    # the performer stands on it too: carried from (0, 0) around to (-1, 1), turned by 90 degrees
    assert (outs[-1].position["x"], outs[-1].position["z"]) == pytest.approx((-1.0, 1.0), abs=0.02)
    assert outs[-1].rotation == pytest.approx(90.0, abs=0.01)


def test_the_performer_boards_and_leaves_a_flat_cog_by_where_it_stood_before_moving(sim):
    """MCS IT 167: a performer whose body touches a thin cog's rim when a move starts is carried through that move;
    one that starts 0.26 m off the rim is not, though it ends the move 0.16 m off it."""
    cog = {"id": "cog", "type": "rotating_cog", "structure": True,
           "shows": [{"stepBegin": 0, "position": {"x": 0.0, "y": 0.01, "z": 2.0}, "scale": {"x": 3, "y": 0.01, "z": 3}}],
           "rotates": [{"stepBegin": 1, "stepEnd": 20, "vector": {"x": 0, "y": 10, "z": 0}}]}
    # the collider's rim is 1.65 m from the centre: starting 0.26 m off it at z = 0.09
    sim.start_scene(scene(cog, start=(0.0, 0.09)))
    first = sim.step("MoveAhead")
    assert (first.position["x"], first.rotation) == pytest.approx((0.0, 0.0), abs=1e-3)
    second = sim.step("MoveAhead")  # starts 0.16 m off the rim: carried 10 degrees about the cog's centre
    assert second.rotation == pytest.approx(10.0, abs=0.01)
    assert math.hypot(second.position["x"], second.position["z"] - 2.0) == pytest.approx(1.71, abs=0.01)


def test_a_scripted_turn_of_a_physical_block_carries_its_stack_on_a_cog(sim):
    cog = {"id": "cog", "type": "rotating_cog", "structure": True,
           "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.01, "z": 2.0}, "scale": {"x": 2, "y": 1, "z": 2}}],
           "rotates": [{"stepBegin": 1, "stepEnd": 4, "vector": {"x": 0, "y": 10, "z": 0}}]}

    def block(object_id: str, y: float, **extra) -> dict:
        return {"id": object_id, "type": "block_blank_wood_cube", **extra,
                "shows": [{"stepBegin": 0, "position": {"x": 0, "y": y, "z": 2.0}}]}

    base = block("base", 0.075)
    turner = block("turner", 0.175, rotates=[{"stepBegin": 1, "stepEnd": 4, "vector": {"x": 0, "y": 33, "z": 0}}])
    top = block("top", 0.275)
    sim.start_scene(scene(turner, top, base, cog))  # the turner is listed before the cog that carries it
    out = run(sim, 4)[-1]
    assert obj(out, "base").rotation["y"] == pytest.approx(40, abs=1)  # the cog's 4 x 10 degrees
    assert obj(out, "turner").rotation["y"] == pytest.approx(172, abs=1)  # its own 4 x 33 on top of that
    assert obj(out, "top").rotation["y"] == pytest.approx(172, abs=1)  # carried rigidly by the turner


def test_walking_up_a_ramp_raises_the_performer(sim):
    ramp = {"id": "ramp", "type": "triangle", "kinematic": True, "structure": True,
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.25, "z": 1.5}, "rotation": {"x": 0, "y": 0, "z": 0},
                       "scale": {"x": 1, "y": 0.5, "z": 1}}]}
    platform = {"id": "platform", "type": "cube", "kinematic": True, "structure": True,
                "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.25, "z": 3}, "scale": {"x": 1, "y": 0.5, "z": 2}}]}
    sim.start_scene(scene(ramp, platform))
    heights = [out.camera_height for out in run(sim, 30, "MoveAhead")]
    assert heights[0] == pytest.approx(0.762, abs=1e-3)
    assert max(heights) == pytest.approx(0.762 + 0.5, abs=0.02)  # on top of the platform


def test_platform_lips_stop_walking_off(sim):
    platform = {"id": "platform", "type": "cube", "kinematic": True, "structure": True,
                "lips": {"front": True, "back": True, "left": True, "right": True},
                "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.25, "z": 0}, "scale": {"x": 2, "y": 0.5, "z": 2}}]}
    sim.start_scene(scene(platform, start=(0.0, 0.0)))
    assert sim.last_output.camera_height == pytest.approx(0.762 + 0.5, abs=0.02)
    outs = run(sim, 12, "MoveAhead")
    assert outs[-1].return_status == "OBSTRUCTED"
    assert outs[-1].position["z"] < 1.0 and outs[-1].camera_height == pytest.approx(0.762 + 0.5, abs=0.02)
    assert {o.uuid for o in outs[-1].structural_object_list} >= {"platform", "platform-front", "platform-back"}


def test_stepping_off_a_platform_edge_drops_and_pushes_the_body_clear(sim):
    platform = {"id": "platform", "type": "cube", "kinematic": True, "structure": True,
                "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.5, "z": 0}, "scale": {"x": 2, "y": 1, "z": 2}}]}
    sim.start_scene(scene(platform, **{"performerStart": {
        "position": {"x": 0, "y": 1, "z": 0.921}, "rotation": {"x": 0, "y": 0}}}))
    on_edge = sim.step("MoveAhead")  # the axis 0.021 m past the edge: the 0.12 m sphere cast meets it
    assert on_edge.camera_height == pytest.approx(1.762, abs=1e-3)
    fallen = sim.step("MoveAhead")  # 0.121 m past: the cast just misses the edge (IT 065), the body falls
    # and is pushed clear of the platform's side
    assert fallen.camera_height == pytest.approx(0.762, abs=1e-3)
    assert fallen.position["z"] == pytest.approx(1.0 + 0.221, abs=2e-3)
    assert sim.step("MoveBack").return_status == "OBSTRUCTED"


def _tilted_slab(length: float) -> dict:
    """A 0.1 m thick slab tilted 25 degrees up toward -z, its centre on the floor at the origin (a ramp)."""
    return {"id": "slab", "type": "cube", "kinematic": True, "structure": True,
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 0}, "rotation": {"x": 65, "y": 180, "z": 0},
                       "scale": {"x": 0.75, "y": length, "z": 0.1}}]}


def test_walking_off_the_top_end_of_a_ramp_slides_the_body_up_and_on(sim):
    sim.start_scene(scene(_tilted_slab(1.0), yaw=180))
    heights = [out.camera_height for out in run(sim, 5, "MoveAhead")]
    assert heights == sorted(heights) and heights[-1] == pytest.approx(0.762 + 0.257, abs=2e-3)  # up to the top edge
    off = sim.step("MoveAhead")  # past the end: down to the floor, then out of the slab's end along its normal
    assert 0.762 < off.camera_height < 0.8
    assert off.position["z"] < -0.65
    assert sim.step("MoveAhead").camera_height == pytest.approx(0.762, abs=1e-3)


def test_a_ramps_side_obstructs_from_the_floor(sim):
    sim.start_scene(scene(_tilted_slab(3.0), start=(-0.6, -0.3), yaw=180))
    assert sim.last_output.camera_height == pytest.approx(0.762, abs=1e-3)
    assert sim.step("MoveLeft").return_status == "OBSTRUCTED"  # toward +x: the slab's side is 0.125 m away there
    assert sim.step("MoveAhead").return_status == "SUCCESSFUL"  # along it, 0.225 m from it


def test_walking_along_a_lip_is_not_obstructed(sim):
    platform = {"id": "platform", "type": "cube", "kinematic": True, "structure": True,
                "lips": {"front": True, "back": True, "left": True, "right": True},
                "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.25, "z": 0}, "scale": {"x": 2, "y": 0.5, "z": 2}}]}
    sim.start_scene(scene(platform, start=(0.0, 0.66), yaw=90))  # the back lip's inner face 0.24 m away
    assert sim.step("MoveAhead").return_status == "SUCCESSFUL"
    assert sim.step("MoveLeft").return_status == "OBSTRUCTED"  # toward it


def test_walking_into_a_hole_drops_the_performer(sim):
    sim.start_scene(scene(holes=[{"x": 0, "z": 1}]))
    out = sim.last_output
    while out.camera_height > 0 and out.position["z"] < 1.5:
        out = sim.step("MoveAhead")
    assert out.camera_height < -2.0  # in the hole, 3 m deep
    assert out.holes == [(0, 1)]


def test_partitioned_floor_is_lava():
    sim = EmbeddedController({"metadata": "oracle", "render": False, "steps_allowed_in_lava": 10})
    out = sim.start_scene(scene(start=(-1.0, 0.0), partitionFloor={"leftHalf": 0.5, "rightHalf": 0.0}))
    assert out.lava == [(-5.0, 5.0, -2.5, -5.0)]
    while not out.haptic_feedback["on_lava"]:
        out = sim.step("MoveLeft")
    assert -2.61 < out.position["x"] <= -2.49 and out.steps_on_lava == 1


# -- rewards per goal category ---------------------------------------------------------------------
def test_multi_retrieval_needs_every_target():
    goal = {"category": "multi retrieval", "metadata": {"targets": [{"id": "a"}, {"id": "b"}]}}
    sim = EmbeddedController({"metadata": "oracle", "render": False})
    sim.start_scene(scene(ball("a", x=-0.2, z=0.8, diameter=0.2), ball("b", x=0.2, z=0.8, diameter=0.2), tilt=30, goal=goal))
    assert sim.step("PickupObject", objectId="a").reward == 0.0
    assert sim.step("PickupObject", objectId="b").return_status == "HAND_IS_FULL"  # one object at a time
    assert sim.step("DropObject").reward == 0.0  # picked up once is enough
    assert sim.step("PickupObject", objectId="b").reward == 1.0


def test_imitation_counts_as_retrieval_of_its_target():
    goal = {"category": "imitation", "metadata": {"target": {"id": "ball"}}}
    sim = EmbeddedController({"metadata": "oracle", "render": False})
    sim.start_scene(scene(ball(z=0.8, diameter=0.2), tilt=30, goal=goal))
    assert sim.step("Pass").reward == 0.0
    assert sim.step("PickupObject", objectId="ball").reward == 1.0


def _transferral(relationship: str) -> dict:
    return {"category": "transferral", "metadata": {"target_1": {"id": "ball"}, "target_2": {"id": "box"},
                                                     "relationship": ["ball", relationship, "box"]}}


def test_transferral_on_top_of():
    sim = EmbeddedController({"metadata": "oracle", "render": False})
    box = block("box", x=0.3, y=0.1, z=0.9, size=0.2, receptacle=True)
    sim.start_scene(scene(ball(x=-0.3, z=0.8, diameter=0.15), box, tilt=30, goal=_transferral("on_top_of")))
    assert sim.step("PickupObject", objectId="ball").reward == 0.0
    out = sim.step("PutObject", receptacleObjectId="box")
    assert out.return_status == "SUCCESSFUL"
    out = run(sim, 10)[-1]
    assert out.reward == 1.0


def test_transferral_next_to():
    sim = EmbeddedController({"metadata": "oracle", "render": False})
    box = block("box", x=0.25, y=0.1, z=0.9, size=0.2)
    sim.start_scene(scene(ball(x=0.0, z=0.6, diameter=0.15), box, tilt=30, goal=_transferral("next_to")))
    assert sim.step("PickupObject", objectId="ball").reward == 0.0
    run(sim, 4, "MoveAhead")
    assert sim.step("DropObject").return_status == "SUCCESSFUL"
    out = run(sim, 10)[-1]
    assert out.reward == 1.0


def test_passive_scenes_never_reward():
    goal = {"metadata": {"target": {"id": "ball"}}, "last_step": 5, "action_list": [["Pass"]] * 5}
    sim = EmbeddedController({"metadata": "oracle", "render": False})
    sim.start_scene(scene(ball(z=0.8), goal={"category": "traversal", **goal}))
    assert sim.step("Pass").reward == 1.0  # the performer stands within reach of the target: a traversal holds
    for category in ("agents", "passive", "intuitive physics"):
        sim.start_scene(scene(ball(z=0.8), goal={"category": category, **goal}))
        rewards = [sim.step("Pass").reward for _ in range(5)]
        assert rewards == [0.0] * 5, category  # the same target, but a passive goal has nothing to achieve
        assert sim.step("Pass") is None  # past last_step


# -- passive flow -------------------------------------------------------------------------------------
def test_passive_flow_habituation_trials_then_choice():
    goal = {"category": "agents", "habituation_total": 2, "last_step": 6,
            "action_list": [["Pass"], ["EndHabituation,xPosition=0,zPosition=-1,yRotation=0"], ["Pass"],
                            ["EndHabituation,xPosition=0,zPosition=-2,yRotation=0"], ["Pass"], ["Pass"]],
            "answer": {"choice": "expected"}}
    sim = EmbeddedController({"metadata": "oracle", "render": False})
    out = sim.start_scene(scene(ball(z=1.5), goal=goal))
    trials = [out.habituation_trial]
    with pytest.raises(ValueError):
        sim.step("MoveAhead")  # only the goal's actions are allowed
    for action in ["Pass", "EndHabituation", "Pass", "EndHabituation", "Pass", "Pass"]:
        out = sim.step(action)
        trials.append(out.habituation_trial)
        sim.make_step_prediction(choice="expected", confidence=0.5)
    assert trials == [1, 1, 2, 2, None, None, None]  # the test trial comes after the habituation trials
    assert out.position["z"] == pytest.approx(-2.0)
    assert len(sim.predictions) == 6
    record = sim.end_scene("unexpected", 0.3)
    assert record["correct"] is False and record["answer"] == "expected" and record["steps"] == 6


# -- simulation agents --------------------------------------------------------------------------------
def agent(object_id: str = "agent", x: float = 0.0, z: float = 1.0, yaw: float = 180.0, **extra) -> dict:
    return {"id": object_id, "type": "agent_female_01",
            "shows": [{"stepBegin": 0, "position": {"x": x, "y": 0, "z": z}, "rotation": {"x": 0, "y": yaw, "z": 0}}],
            **extra}


def test_agent_walks_its_path_and_waits_for_the_performer(sim):
    walker = agent(x=1.0, z=1.0, yaw=0.0, agentMovement={"stepBegin": 0, "repeat": False, "sequence": [
        {"animation": "TPF_walk", "endPoint": {"x": 1.0, "z": 2.0}}]})
    sim.start_scene(scene(walker))
    outs = run(sim, 30)
    zs = [obj(out, "agent").position["z"] for out in outs]
    assert zs[0] == pytest.approx(1.04, abs=1e-3)  # 0.04 m per step, already facing the point
    assert zs[-1] == pytest.approx(2.0, abs=1e-3)
    blocked = agent(x=0.0, z=1.0, yaw=180.0, agentMovement={"stepBegin": 0, "sequence": [
        {"animation": "TPF_walk", "endPoint": {"x": 0.0, "z": -2.0}}]})
    sim.start_scene(scene(blocked))
    zs = [obj(out, "agent").position["z"] for out in run(sim, 30)]
    assert min(zs) > 0.3  # stops short of the performer standing at the origin


def test_agent_turns_to_the_performer_and_hands_over_its_object(sim):
    giver = agent(z=0.8)
    toy = ball("toy", x=1, z=3, diameter=0.2, associatedWithAgent="agent")
    sim.start_scene(scene(giver, toy))
    first = obj(sim.last_output, "agent")
    assert first.simulation_agent_held_object == "toy" and first.simulation_agent_is_holding_held_object
    assert not obj(sim.last_output, "toy").visible
    assert sim.step("PickupObject", objectId="toy").return_status != "SUCCESSFUL"
    assert sim.step("InteractWithAgent", objectId="agent").return_status == "SUCCESSFUL"
    assert sim.step("InteractWithAgent", objectId="agent").return_status == "AGENT_CURRENTLY_INTERACTING_WITH_PERFORMER"
    outs = run(sim, 4)
    assert obj(outs[-1], "toy").visible  # held out in front of the agent
    out = sim.step("PickupObject", objectId="toy")
    assert out.return_status == "SUCCESSFUL" and obj(out, "toy").held
    assert not obj(out, "agent").simulation_agent_is_holding_held_object


def test_agent_busy_during_a_non_loop_animation(sim):
    busy = agent(z=0.8, actions=[{"id": "TPF_wave", "stepBegin": 1, "stepEnd": 4, "isLoopAnimation": False}])
    sim.start_scene(scene(busy))
    assert sim.step("InteractWithAgent", objectId="agent").return_status == "AGENT_IS_BUSY"
    run(sim, 3)
    assert sim.step("InteractWithAgent", objectId="agent").return_status == "SUCCESSFUL"
    assert sim.step("InteractWithAgent", objectId="agent").return_status == "AGENT_CURRENTLY_INTERACTING_WITH_PERFORMER"


def _first_turn_yaws(sim, walker: dict, steps: int) -> list[float]:
    """The agent's yaw at every step of a walk where it stands still (turning)."""
    sim.start_scene(scene(walker))
    yaws, last = [], None
    for out in run(sim, steps):
        agent_obj = obj(out, "agent")
        here = (round(agent_obj.position["x"], 4), round(agent_obj.position["z"], 4))
        if here == last:
            yaws.append(agent_obj.rotation["y"] % 360.0)
        last = here
    return yaws


def test_an_agents_half_turn_goes_the_way_float32_walking_leaves_it_facing(sim):
    # Walking to a point leaves the agent facing the direction of its last float32 stride, a hair off the exact
    # heading; turning back to the previous point is then a hair under half a turn one way (IT 128).
    there_and_back = agent(x=0.8, z=1.5, yaw=0.0, agentMovement={"stepBegin": 0, "repeat": True, "sequence": [
        {"animation": "TPF_walk", "endPoint": {"x": 1.0, "z": 2.0}}, {"animation": "TPF_walk", "endPoint": {"x": 0.8, "z": 1.5}}]})
    yaws = _first_turn_yaws(sim, there_and_back, 40)[2:]  # after turning from 0 to the first point
    assert yaws[0] == pytest.approx(345.8, abs=0.1)  # 21.8 toward 201.8: down through 0
    assert yaws[5] == pytest.approx(165.8, abs=0.1)  # 201.8 toward 21.8: down again
    # On a diagonal the float32 heading is exact: a true tie turns the way that does not cross yaw 0 (IT 142).
    diagonal = agent(x=0.7, z=0.7, yaw=45.0, agentMovement={"stepBegin": 0, "repeat": True, "sequence": [
        {"animation": "TPF_walk", "endPoint": {"x": 1.0, "z": 1.0}}, {"animation": "TPF_walk", "endPoint": {"x": 0.9, "z": 0.9}}]})
    yaws = _first_turn_yaws(sim, diagonal, 20)
    assert yaws[0] == pytest.approx(81.0, abs=0.1)


def _yaw(out) -> float:
    return obj(out, "agent").rotation["y"] % 360.0


def test_an_interaction_interrupts_an_animation_without_step_end_which_plays_its_rest_afterwards(sim):
    # TPF_wave holds the agent 11 steps; asked at its second step, it faces the performer (5 steps), stares
    # (5 steps), then waves on for the 10 steps left before it turns back to its walk (IT 137, 139).
    waver = agent(z=0.8, yaw=0.0, actions=[{"id": "TPF_wave", "stepBegin": 1, "isLoopAnimation": False}],
                  agentMovement={"stepBegin": 0, "sequence": [{"animation": "TPF_walk", "endPoint": {"x": 0.0, "z": 3.0}}]})
    sim.start_scene(scene(waver))
    assert sim.step("Pass").return_status == "SUCCESSFUL"
    assert sim.step("InteractWithAgent", objectId="agent").return_status == "SUCCESSFUL"  # not AGENT_IS_BUSY
    yaws = [_yaw(out) for out in run(sim, 20)]  # steps 3..22
    assert yaws[3] == pytest.approx(180.0, abs=0.5)  # facing the performer from step 6
    assert yaws[3:18] == pytest.approx([180.0] * 15, abs=0.5)  # stare (6-10), then the wave's rest (11-20)
    assert abs(yaws[18] - 180.0) > 10.0  # step 21: turning back to its walk


def test_an_agent_that_does_not_walk_stays_facing_the_performer_unless_it_replays_an_animation(sim):
    # After its 5-step stare an agent that does not walk keeps facing the performer (IT 124, 125) ...
    idle = agent(x=0.4, z=0.8, yaw=0.0)
    sim.start_scene(scene(idle))
    facing = math.degrees(math.atan2(-0.4, -0.8)) % 360.0
    assert sim.step("InteractWithAgent", objectId="agent").return_status == "SUCCESSFUL"
    assert _yaw(run(sim, 20)[-1]) == pytest.approx(facing, abs=0.5)
    # ... but one that played an animation with stepEnd turns back to it and replays it, busy (IT 181).
    pointer = agent(x=0.4, z=0.8, yaw=0.0, actions=[{"id": "Point_start_index_finger", "stepBegin": 1, "stepEnd": 3}])
    sim.start_scene(scene(pointer))
    assert [sim.step("InteractWithAgent", objectId="agent").return_status for _ in range(3)] == ["AGENT_IS_BUSY"] * 3
    assert sim.step("InteractWithAgent", objectId="agent").return_status == "SUCCESSFUL"  # step 4
    outs = [sim.step("InteractWithAgent", objectId="agent") for _ in range(20)]  # steps 5..24
    statuses = [out.return_status for out in outs]
    assert statuses[:8] == ["AGENT_CURRENTLY_INTERACTING_WITH_PERFORMER"] * 8  # turning 4-8, staring 8-12
    again = statuses.index("SUCCESSFUL")
    assert set(statuses[8:again]) == {"AGENT_IS_BUSY"}  # turning back, then replaying the pointing
    assert abs((_yaw(outs[again - 1]) + 180.0) % 360.0 - 180.0) < 0.5  # back where it faced


def test_an_agent_turning_beside_an_object_leaves_it_in_place(sim):
    """IT 139: an agent collides as Unity's vertical capsule (radius 0.15), which turning does not sweep: the turtle
    it stopped beside stays put while it turns round to face the performer (a 0.5 m wide box would shove it)."""
    turtle = {"id": "turtle", "type": "turtle_on_wheels",
              "shows": [{"stepBegin": 0, "position": {"x": 0.3, "y": 0.01, "z": 0.3}, "rotation": {"x": 0, "y": 45, "z": 0}}]}
    sim.start_scene(scene(agent(x=0.141, z=0.141, yaw=45.0), turtle, start=(0.35, -0.75)))
    start = obj(sim.last_output, "turtle").position
    assert sim.step("InteractWithAgent", objectId="agent").return_status == "SUCCESSFUL"
    out = run(sim, 8)[-1]
    assert obj(out, "agent").rotation["y"] == pytest.approx(166.8, abs=0.5)  # facing the performer
    assert obj(out, "turtle").position["x"] == pytest.approx(start["x"], abs=1e-3)
    assert obj(out, "turtle").position["z"] == pytest.approx(start["z"], abs=1e-3)
    assert obj(out, "turtle").rotation["y"] == pytest.approx(45.0, abs=0.1)


def test_an_agent_stops_where_its_capsule_would_meet_an_object(sim):
    """IT 139: a walking agent stops when its capsule one step (0.04 m) ahead would overlap an object."""
    walker = agent(z=1.0, yaw=0.0, agentMovement={"stepBegin": 0, "sequence": [
        {"animation": "TPF_walk", "endPoint": {"x": 0.0, "z": 3.5}}]})
    wall = {"id": "wall", "type": "cube", "kinematic": True,
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.25, "z": 2.5}, "scale": {"x": 1, "y": 0.5, "z": 0.5}}]}
    sim.start_scene(scene(walker, wall))
    zs = [obj(out, "agent").position["z"] for out in run(sim, 50)]
    gap = 2.25 - zs[-1]  # from the agent's axis to the wall's near face
    assert 0.15 <= gap < 0.15 + 0.04 + 1e-6
    assert zs[-1] == zs[-15]  # it waits there


def test_a_structure_stops_a_walking_agent_as_an_object_does(sim):
    """MCSSimulationAgent.Update: every collider the capsule one step ahead overlaps stops the agent, but the floor's;
    a wall or a platform the scene marks as a structure is no exception."""
    for height in (2.0, 0.3):  # an interior wall; a low platform across the path
        walker = agent(z=1.0, yaw=0.0, agentMovement={"stepBegin": 0, "sequence": [
            {"animation": "TPF_walk", "endPoint": {"x": 0.0, "z": 3.5}}]})
        wall = {"id": "wall", "type": "cube", "kinematic": True, "structure": True,
                "shows": [{"stepBegin": 0, "position": {"x": 0, "y": height / 2, "z": 2.5},
                           "scale": {"x": 3, "y": height, "z": 0.5}}]}
        sim.start_scene(scene(walker, wall))
        zs = [obj(out, "agent").position["z"] for out in run(sim, 50)]
        gap = 2.25 - zs[-1]  # from the agent's axis to the wall's near face
        assert 0.15 <= gap < 0.15 + 0.04 + 1e-6, height
        assert zs[-1] == zs[-15]


def test_an_agent_walks_across_the_turntable_it_stands_on(sim):
    """What an agent stands on is under it, not in its way: an agent shown on a turntable's top (as the generator's
    spatial-reference scenes place one) walks across it."""
    turntable = {"id": "turntable", "type": "rotating_cog", "kinematic": True, "structure": True,
                 "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.55, "z": 2.0}, "scale": {"x": 1.5, "y": 5, "z": 1.5}}]}
    walker = agent(x=-0.42, z=2.42, yaw=135.0, agentMovement={"stepBegin": 0, "sequence": [
        {"animation": "TPF_walk", "endPoint": {"x": 0.42, "z": 1.58}}]})
    walker["shows"][0]["position"]["y"] = 0.61
    sim.start_scene(scene(turntable, walker))
    end = obj(run(sim, 40)[-1], "agent").position
    assert (end["x"], end["z"]) == (pytest.approx(0.42, abs=1e-3), pytest.approx(1.58, abs=1e-3))


def test_an_object_moved_by_its_own_moves_is_not_also_carried_by_its_moving_container(sim):
    """IT 187: a kinematic ball lowered inside a kinematic container by the same `moves` keeps its place in it."""
    lower = [{"stepBegin": 1, "stepEnd": 4, "vector": {"x": 0, "y": -0.25, "z": 0}}]
    box = {"id": "box", "type": "chest_1", "kinematic": True, "moves": lower,
           "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 2.0, "z": 2.0}}]}
    toy = ball("toy", z=2.0, diameter=0.2, kinematic=True, moves=lower)
    toy["shows"][0]["position"]["y"] = 2.15
    out = sim.start_scene(scene(box, toy))
    gap = obj(out, "toy").position["y"] - obj(out, "box").position["y"]
    out = run(sim, 4)[-1]
    assert obj(out, "box").position["y"] == pytest.approx(1.0, abs=1e-3)
    assert obj(out, "toy").position["y"] - obj(out, "box").position["y"] == pytest.approx(gap, abs=1e-3)


def tall_cog(z: float = 2.0) -> dict:
    """A 3 m cog 4x its usual height, shown at y 0.05 (IT 170, 173): its top is 0.1 m up."""
    return {"id": "cog", "type": "rotating_cog", "structure": True,
            "shows": [{"stepBegin": 0, "position": {"x": 0.0, "y": 0.05, "z": z}, "scale": {"x": 3, "y": 4, "z": 3}}]}


def test_a_container_shown_on_a_tall_cog_stays_at_its_top(sim):
    """MCS IT 170, 173: a separate_container shown at y 0.1 on a 4x-tall cog at y 0.05 reports 0.1 throughout."""
    container = {"id": "box", "type": "separate_container",
                 "shows": [{"stepBegin": 0, "position": {"x": 1.0, "y": 0.1, "z": 2.0},
                            "scale": {"x": 0.4, "y": 0.4, "z": 0.4}}]}
    sim.start_scene(scene(tall_cog(), container))
    for out in run(sim, 5):
        assert obj(out, "box").position["y"] == pytest.approx(0.1, abs=0.001)


def test_the_performer_steps_up_onto_a_low_cog_edge(sim):
    """MCS IT 170, 173: a 0.1 m high cog edge is a step (no higher than MAX_RISE), not a wall: the body walks
    onto it where its capsule's lower sphere already touches the edge."""
    sim.start_scene(scene(tall_cog(z=2.0), start=(0.0, 0.0)))
    outs = run(sim, 6, "MoveAhead")
    assert all(out.return_status == "SUCCESSFUL" for out in outs)
    assert outs[-1].position["z"] == pytest.approx(0.6, abs=1e-3)
    assert outs[-1].position["y"] == pytest.approx(0.1 + 0.762, abs=0.002)  # the camera, 0.762 m above the cog


def test_the_performer_stays_on_a_cog_past_its_nominal_edge(sim):
    """MCS IT 173 steps 41-48: walking sideways along a 3 m cog's edge, the body stays on it (camera 0.762 m above
    its top) with its axis 1.75 m from the cog's centre, 0.25 m past the generator's 1.5 m radius."""
    sim.start_scene(scene(tall_cog(z=2.0), start=(0.0, 0.4)))
    outs = run(sim, 7, "MoveRight")
    assert (outs[-1].position["x"], outs[-1].position["z"]) == pytest.approx((0.7, 0.4), abs=1e-3)
    assert [out.position["y"] for out in outs] == pytest.approx([0.1 + 0.762] * 7, abs=0.002)
