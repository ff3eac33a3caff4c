"""Embedded simulator physics: resting stability, stacks, drops, shoves, pushes, carried objects, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from mcs_plugin.sim.controller import EmbeddedController
from tests.sim_scenes import ball, chest, obj, run, scene


def cube(object_id: str, x: float = 0.0, y: float = 0.1, z: float = 1.0, size: float = 0.2, mass: float = 1.0,
         **flags) -> dict:
    """A physical moveable cube resting (bottom) at y - size / 2."""
    return {"id": object_id, "type": "cube", "mass": mass, "moveable": True, "pickupable": True, "physics": True,
            "shows": [{"stepBegin": 0, "position": {"x": x, "y": y, "z": z},
                       "scale": {"x": size, "y": size, "z": size}}], **flags}


def cylinder(object_id: str, x: float, z: float, size: float = 0.2) -> dict:
    return {"id": object_id, "type": "cylinder", "mass": 1, "moveable": True, "physics": True,
            "shows": [{"stepBegin": 0, "position": {"x": x, "y": size / 2, "z": z},
                       "scale": {"x": size, "y": size, "z": size}}]}



def poses(output) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return {o.uuid: (np.array([o.position[k] for k in "xyz"]), np.array([o.rotation[k] for k in "xyz"]))
            for o in output.object_list}


def angle_diff(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs((a - b + 180.0) % 360.0 - 180.0)))


def test_resting_objects_and_stacks_stay_put_for_thousands_of_steps(sim):
    sim.start_scene(scene(
        ball(x=-1.0, z=2.0, diameter=0.3),
        cube("box", x=1.0, z=2.0, size=0.3, y=0.15),
        cube("s1", x=0.0, z=3.0), cube("s2", x=0.0, z=3.0, y=0.3), cube("s3", x=0.02, z=3.0, y=0.5),
        cylinder("can", x=-0.5, z=1.5),
        chest(x=1.5, z=3.5), cube("on_chest", x=1.5, z=3.5, y=0.5, size=0.15),
    ))
    for _ in range(20):  # let everything settle
        out = sim.step("Pass")
    settled = poses(out)
    for _ in range(2000):
        out = sim.step("Pass")
    final = poses(out)
    for object_id, (position, rotation) in settled.items():
        moved = np.linalg.norm(final[object_id][0] - position)
        assert moved < 0.003, (object_id, position, final[object_id][0])
        assert angle_diff(final[object_id][1], rotation) < 1.0, object_id
    # the stack is still a stack: each block on the one below
    heights = [final[i][0][1] for i in ("s1", "s2", "s3")]
    assert heights == pytest.approx([0.1, 0.3, 0.5], abs=0.01)
    assert final["on_chest"][0][1] > settled["chest"][0][1] + 0.2


def test_dropped_and_thrown_objects_come_to_rest_on_the_floor(sim):
    sim.start_scene(scene(ball(z=0.8, diameter=0.2), cube("box", x=0.4, z=0.8, size=0.15, y=0.075), tilt=30))
    assert sim.step("PickupObject", objectId="ball").return_status == "SUCCESSFUL"
    assert sim.step("ThrowObject", force=0.5).return_status == "SUCCESSFUL"
    assert sim.step("PickupObject", objectId="box").return_status == "SUCCESSFUL"
    assert sim.step("DropObject").return_status == "SUCCESSFUL"
    for _ in range(400):
        out = sim.step("Pass")
    world = sim.world
    for object_id, half in (("box", 0.075), ("ball", 0.1)):
        body = world.by_id[object_id]
        assert world.lowest_point(body) == pytest.approx(0.0, abs=0.01), object_id
        assert np.linalg.norm(body.qvel) < 1e-3, object_id
        assert next(o for o in out.object_list if o.uuid == object_id).position["y"] == pytest.approx(half, abs=0.01)


def test_walking_shoves_light_objects_and_heavy_ones_obstruct(sim):
    light = cube("light", z=0.48, size=0.5, y=0.25, mass=1.5)  # MCS shoves objects under 2 kg out of the way
    sim.start_scene(scene(light))
    z0 = poses(sim.last_output)["light"][0][2]
    out = sim.step("MoveAhead")
    assert out.return_status == "SUCCESSFUL" and out.position["z"] == pytest.approx(0.1)
    assert poses(out)["light"][0][2] > z0 + 0.05  # pushed ahead of the body
    heavy = cube("heavy", z=0.48, size=0.5, y=0.25, mass=10)
    sim.start_scene(scene(heavy))
    out = sim.step("MoveAhead")
    assert out.return_status == "OBSTRUCTED" and out.position["z"] == pytest.approx(0.0)


def test_the_body_slides_along_a_face_it_only_touches(sim):
    """MCS IT 160: walking along a heavy cube's face exactly MCS's reported radius (0.25 m) from its axis is not
    obstructed; a few millimetres of overlap with the body objects stop (radius 0.21) are."""
    touching = cube("block", x=1.5, y=0.25, z=0.5, size=0.5, mass=10)  # its face at z = 0.25
    sim.start_scene(scene(touching, start=(1.0, 0.0), yaw=90))
    statuses = [out.return_status for out in run(sim, 4, "MoveAhead")]
    assert statuses == ["SUCCESSFUL"] * 4
    overlapping = cube("block", x=1.5, y=0.25, z=0.455, size=0.5, mass=10)  # its face 0.205 m from the axis
    sim.start_scene(scene(overlapping, start=(1.0, 0.0), yaw=90))
    statuses = [out.return_status for out in run(sim, 4, "MoveAhead")]
    assert statuses[0] == "SUCCESSFUL" and "OBSTRUCTED" in statuses


def test_pushed_ball_rolls_then_stops(sim):
    sim.start_scene(scene(ball(z=0.8, diameter=0.3), tilt=20))
    z0 = poses(sim.last_output)["ball"][0][2]
    assert sim.step("PushObject", objectId="ball", force=1.0).return_status == "SUCCESSFUL"
    track = [poses(sim.step("Pass"))["ball"][0][2] for _ in range(600)]
    assert track[5] > z0 + 0.1
    assert track[-1] == pytest.approx(track[-50], abs=1e-4)  # stopped (rolling friction, angular drag)
    assert track[-1] < 4.9  # inside the room


def test_a_fast_ball_slides_until_it_can_roll_at_unitys_max_angular_speed(sim):
    """Unity caps angular speed at 7 rad/s: a pushed 0.11 m ball ends rolling ~0.038 m per action (IT 109, 115)."""
    sim.start_scene(scene(ball(z=0.8, diameter=0.22), tilt=20))
    assert sim.step("PushObject", objectId="ball", force=0.3).return_status == "SUCCESSFUL"
    track = [poses(sim.step("Pass"))["ball"][0][2] for _ in range(20)]
    steps = np.diff(track)
    assert steps[0] > 0.1  # sliding fast at first
    assert steps[-5:] == pytest.approx(np.full(5, 7.0 * 0.11 * 0.05), abs=0.004)


def test_a_push_goes_the_way_the_performer_faces(sim):
    """AI2-THOR pushes along the agent's facing, wherever the object is in view (IT 139)."""
    sim.start_scene(scene(cube("box", x=0.3, z=0.8, mass=1.0), tilt=20))
    x0 = poses(sim.last_output)["box"][0][0]
    assert sim.step("PushObject", objectId="box", force=1.0).return_status == "SUCCESSFUL"
    for _ in range(20):
        out = sim.step("Pass")
    x, _, z = poses(out)["box"][0]
    assert z > 1.0 and x == pytest.approx(x0, abs=0.01)


def test_objects_on_a_moved_object_ride_along(sim):
    base = cube("base", z=0.9, size=0.3, y=0.15, mass=2)
    top = cube("top", z=0.9, size=0.15, y=0.375, mass=0.5)
    sim.start_scene(scene(base, top, tilt=30))
    for _ in range(5):
        sim.step("Pass")
    before = poses(sim.last_output)
    out = sim.step("MoveObject", objectId="base", lateral=1)
    assert out.return_status == "SUCCESSFUL"
    for _ in range(5):
        out = sim.step("Pass")
    after = poses(out)
    shift = after["base"][0] - before["base"][0]
    assert shift[0] > 0.05
    assert after["top"][0] - before["top"][0] == pytest.approx(shift, abs=0.02)


def test_physics_is_deterministic():
    def run() -> list[dict]:
        controller = EmbeddedController({"metadata": "oracle", "render": False})
        controller.start_scene(scene(ball(z=0.8, diameter=0.3), cube("box", x=0.5, z=1.2, size=0.25, y=0.125),
                                     cube("s2", x=0.5, z=1.2, size=0.15, y=0.325), tilt=20))
        outputs = []
        for action in ["PushObject,objectId=ball,force=1", "Pass", "PushObject,objectId=box,force=0.6",
                       "MoveAhead", "Pass", "Pass", "PickupObject,objectId=s2", "ThrowObject,force=0.7"] + ["Pass"] * 30:
            outputs.append(controller.step(action).to_dict())
        return outputs

    assert run() == run()


def test_picking_up_a_container_takes_its_contents_along(sim):
    bowl = {"id": "bowl", "type": "bowl_6", "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 0.8},
                                                       "scale": {"x": 2, "y": 2, "z": 2}}]}
    sim.start_scene(scene(bowl, ball("inside", z=0.8, diameter=0.1, mass=0.2), tilt=30))
    for _ in range(10):
        sim.step("Pass")
    before = poses(sim.last_output)
    out = sim.step("PickupObject", objectId="bowl")
    assert out.return_status == "SUCCESSFUL"
    held = poses(out)
    offset = before["inside"][0] - before["bowl"][0]
    assert held["inside"][0] - held["bowl"][0] == pytest.approx(offset, abs=1e-3)
    inside = next(o for o in out.object_list if o.uuid == "inside")
    assert not inside.held and inside.visible
    sim.step("MoveBack")
    assert sim.step("DropObject").return_status == "SUCCESSFUL"
    for _ in range(30):
        out = sim.step("Pass")
    landed = poses(out)
    assert landed["inside"][0][1] > landed["bowl"][0][1]  # still in the bowl
    assert np.linalg.norm((landed["inside"][0] - landed["bowl"][0])[[0, 2]]) < 0.05


def test_openable_containers_fall_but_immovable_furniture_holds_still(sim):
    """MCS IT 167: a chest shown 5 cm up falls to what is below; IT 020: a sofa shown 5 cm up stays there."""
    raised_chest = chest(z=1.5)
    raised_chest["shows"][0]["position"]["y"] = 0.05
    sofa = {"id": "sofa", "type": "sofa_2", "mass": 50, "receptacle": True,
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.05, "z": 4.0}}]}
    sim.start_scene(scene(raised_chest, sofa))
    out = run(sim, 10)[-1]
    assert obj(out, "chest").position["y"] == pytest.approx(0.0, abs=0.005)
    assert obj(out, "sofa").position["y"] == pytest.approx(0.05, abs=1e-6)


def test_what_a_container_on_a_rotating_cog_holds_rides_with_it(sim):
    """MCS IT 167: a ball in a chest on a turning cog goes round with the chest from the first step."""
    cog = {"id": "cog", "type": "rotating_cog", "structure": True,
           "shows": [{"stepBegin": 0, "position": {"x": 0.2, "y": 0.01, "z": 1.5}, "scale": {"x": 3, "y": 0.01, "z": 3}}],
           "rotates": [{"stepBegin": 1, "stepEnd": 9, "vector": {"x": 0, "y": 10, "z": 0}}]}
    box = chest(z=0.6)
    box["shows"][0]["position"]["y"] = 0.05
    toy = ball(z=0.6, diameter=0.22)
    toy["shows"][0]["position"]["y"] = 0.2
    sim.start_scene(scene(cog, box, toy))
    for out in run(sim, 9):
        held_in, container = obj(out, "ball").position, obj(out, "chest").position
        assert (held_in["x"], held_in["z"]) == pytest.approx((container["x"], container["z"]), abs=0.01)
    assert obj(out, "chest").rotation["y"] == pytest.approx(90, abs=1)


def tool(object_id: str = "tool", x: float = 0.0, z: float = 0.5, kind: str = "tool_rect_1_00_x_9_00") -> dict:
    """A moveable tool lying on the floor, pointing along z."""
    return {"id": object_id, "type": kind, "shows": [{"stepBegin": 0, "position": {"x": x, "y": 0.15, "z": z}}]}


def yaw_steps(outputs: list, object_id: str) -> list[float]:
    """Per-step change of an object's yaw (degrees, signed, unwrapped) over a list of outputs."""
    yaws = [obj(out, object_id).rotation["y"] for out in outputs]
    return [(b - a + 180.0) % 360.0 - 180.0 for a, b in zip(yaws, yaws[1:])]


def test_torque_spins_a_light_object_at_most_at_unity_max_speed_then_it_slows_linearly(sim):
    toy = cube("toy", z=1.0, size=0.3, y=0.15, mass=1.5)
    start = sim.start_scene(scene(toy, tilt=30))
    outputs = [start, sim.step("TorqueObject", objectId="toy", force=1.0)] + run(sim, 14)
    turns = yaw_steps(outputs, "toy")
    assert 125.0 < turns[0] <= 143.3  # capped at 50 rad/s (143 degrees a 0.05 s action), positive force clockwise
    moving = [t for t in turns if t > 1.0]
    slowdowns = np.diff(moving[:-1])
    assert np.all(slowdowns < 0) and np.ptp(slowdowns) < 3.0  # Coulomb friction: a constant slow-down per step
    assert turns[-1] == pytest.approx(0.0, abs=1e-6)  # and it stops
    heights = [obj(out, "toy").position["y"] for out in outputs]
    assert max(heights) - min(heights) < 0.005  # spinning on the floor, not hopping


def test_repeated_torques_speed_up_a_heavy_tool_that_then_coasts_to_a_stop(sim):
    start = sim.start_scene(scene(tool(), tilt=30))
    outputs = [start] + [sim.step("TorqueObject", objectId="tool", force=-1.0) for _ in range(4)] + run(sim, 6)
    turns = yaw_steps(outputs, "tool")
    assert all(t < 0 for t in turns[:4])  # negative force turns it anticlockwise
    assert -1.5 < turns[0] < -0.5 and turns[3] < turns[2] < turns[1] < turns[0]  # each torque adds speed (IT 113)
    assert abs(turns[5]) < abs(turns[4]) and turns[-1] == pytest.approx(0.0, abs=1e-6)


def test_move_object_shoves_an_object_in_the_way_with_what_rests_on_it(sim):
    pusher = cube("pusher", x=-0.2, z=1.0, size=0.2, mass=0.66)
    block = cube("block", x=0.01, z=1.0, size=0.2, mass=0.66)
    top = cube("top", x=0.01, z=1.0, size=0.2, y=0.3, mass=0.66)
    sim.start_scene(scene(pusher, block, top, tilt=30))
    before = poses(sim.step("Pass"))
    out = sim.step("MoveObject", objectId="pusher", lateral=1)
    assert out.return_status == "SUCCESSFUL"
    after = poses(out)
    for object_id in ("pusher", "block", "top"):
        assert after[object_id][0][0] - before[object_id][0][0] == pytest.approx(0.1, abs=0.01)


def test_move_object_carries_what_it_runs_into_face_on_by_the_whole_move_keeping_the_gap(sim):
    """The moved tool's far end is 0.08 m short of one ball and 0.15 m short of another: the near one moves the
    full 0.1 m (not the 0.02 m the tool's end would overlap it), the far one stays."""
    near = ball("near", x=-0.22, z=1.76, diameter=0.44)  # the tool's far end is at z 1.46
    far = ball("far", x=0.24, z=1.83, diameter=0.44)
    sim.start_scene(scene(tool(z=-1.04, kind="tool_rect_0_75_x_5_00"), near, far, start=(0.0, -4.0), tilt=30))
    before = poses(sim.step("Pass"))
    after = poses(sim.step("MoveObject", objectId="tool"))
    moved = {object_id: after[object_id][0][2] - before[object_id][0][2] for object_id in ("tool", "near", "far")}
    assert moved["tool"] == pytest.approx(0.1, abs=0.005)
    assert moved["near"] == pytest.approx(0.1, abs=0.005)
    assert moved["far"] == pytest.approx(0.0, abs=0.005)


def test_move_object_may_not_pull_an_object_into_the_performers_body(sim):
    sim.start_scene(scene(tool(z=2.96, kind="tool_rect_0_75_x_5_00"), tilt=30))  # its near end 0.46 m from the axis
    for _ in range(2):  # to 0.36 m, then 0.26 m: still clear of the body (radius 0.25 m)
        assert sim.step("MoveObject", objectId="tool", straight=-1).return_status == "SUCCESSFUL"
    out = sim.step("MoveObject", objectId="tool", straight=-1)  # to 0.16 m: into the body
    assert out.return_status == "OBSTRUCTED"
    assert obj(out, "tool").position["z"] == pytest.approx(2.76, abs=0.005)  # where it was
    assert sim.step("MoveObject", objectId="tool", straight=1).return_status == "SUCCESSFUL"  # away is fine


def test_an_apple_rests_on_its_smaller_collider(sim):
    """MCS IT 151, 152: an apple_1 (0.12 m tall, origin at its centre) on the floor reports 0.05, not 0.06."""
    apple = {"id": "apple", "type": "apple_1", "shows": [{"stepBegin": 0, "position": {"x": 0.0, "y": 0.06, "z": 1.0}}]}
    sim.start_scene(scene(apple))
    out = run(sim, 10)[-1]
    assert obj(out, "apple").position["y"] == pytest.approx(0.05, abs=0.001)


def _pushed_turtle_pitch(sim) -> list[float]:
    """Pitch (degrees off level) of a 3x toy turtle at each step after a light push away from the performer."""
    turtle = {"id": "turtle", "type": "turtle_on_wheels",
              "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 0.7}, "scale": {"x": 3, "y": 3, "z": 3}}]}
    sim.start_scene(scene(turtle, tilt=30))
    outputs = [sim.step("PushObject", objectId="turtle", force=0.1)] + run(sim, 7)
    return [abs((obj(out, "turtle").rotation["x"] + 180.0) % 360.0 - 180.0) for out in outputs]


def test_a_wheeled_toy_keeps_its_centre_of_mass_at_its_bottom(sim, monkeypatch):
    """MCS's registry marks the wheeled toys centerMassAtBottom (their rigidbody's centre of mass at the origin, their
    bottom): pushed, a toy turtle slides level; with the centre of mass in the middle of its box it pitches over."""
    from dataclasses import replace

    from mcs_plugin.sim import catalog

    assert catalog.get_object_type("turtle_on_wheels").center_mass_at_bottom
    assert max(_pushed_turtle_pitch(sim)) < 0.5
    real = catalog.get_object_type
    monkeypatch.setattr(catalog, "get_object_type", lambda name: replace(real(name), center_mass_at_bottom=False))
    assert max(_pushed_turtle_pitch(sim)) > 1.5



def _dropped(kind: str, height: float, **flags) -> dict:
    """A 1 kg object of `kind` (a 0.2 m cube for primitives) held `height` m up, free to fall."""
    size = {"scale": {"x": 0.2, "y": 0.2, "z": 0.2}} if kind == "cube" else {}
    return {"id": "body", "type": kind, "mass": 1, "physics": True, **flags,
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": height, "z": 3}, **size}]}


def _rebound(sim, body: dict, **room) -> tuple[float, float]:
    """(speed at impact, greatest upward speed after it) of `body` dropped onto the floor."""
    sim.start_scene(scene(body, **room))
    world, obj = sim.world, sim.world.by_id["body"]
    vertical = []
    for _ in range(400):  # 1 s of MuJoCo steps
        world.advance(1)
        vertical.append(float(obj.qvel[2]))
    vertical = np.array(vertical)
    impact = int(np.argmax(vertical > 0.0))
    return -vertical[impact - 1], vertical[impact:].max()


def test_a_ball_bounces_off_the_floor_as_physx_does(sim):
    """MCS's registry gives balls and primitives bounciness 0.75 and MCSMain the floor 0; PhysX averages them and
    bounces what meets the floor faster than Unity's 2 m/s bounce threshold: a soccer ball dropped from 2 m leaves
    at 0.375 of its 6 m/s impact speed, one dropped from 0.3 m (1.9 m/s) gets no restitution, nor does a ball whose
    scene physicsProperties give no bounciness."""
    impact, rebound = _rebound(sim, _dropped("soccer_ball", 2.0))
    assert impact > 5.5 and rebound == pytest.approx(0.375 * impact, rel=0.02)
    impact, rebound = _rebound(sim, _dropped("soccer_ball", 0.3))
    assert impact < 2.0 and rebound < 0.25 * impact  # only what MuJoCo's stiff landing contact gives back
    dull = {"physicsProperties": {"enable": True, "dynamicFriction": 0.25, "staticFriction": 0.25}}
    impact, rebound = _rebound(sim, _dropped("soccer_ball", 2.0, **dull))
    assert impact > 5.5 and rebound < 0.1 * impact


def test_a_bouncy_floor_bounces_what_falls_on_it(sim):
    """The floor's bounciness comes from enabled floorProperties: at 1, a cube (its own 0.75) leaves it at 0.875 of
    its impact speed."""
    floor = {"floorProperties": {"enable": True, "dynamicFriction": 0.6, "bounciness": 1.0}}
    impact, rebound = _rebound(sim, _dropped("cube", 1.6), **floor)
    assert impact > 5.0 and rebound == pytest.approx(0.875 * impact, rel=0.02)


def test_a_ball_that_speeds_up_past_the_threshold_during_an_action_bounces(sim):
    """A soccer ball dropped 0.26 m lands at 2.26 m/s, above the 2 m/s threshold, though it is slower than that when
    the landing action begins; it rebounds at 0.375 of that (~3.6 cm up), not the centimetre MuJoCo gives back."""
    sim.start_scene(scene(_dropped("soccer_ball", 0.37)))
    heights = [obj(out, "body").position["y"] for out in run(sim, 12)]
    assert max(after - before for before, after in zip(heights, heights[1:])) > 0.015  # it rises again
