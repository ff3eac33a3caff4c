"""Rules taken from MCS's controller source, checked on hand-built scenes (not the recorded corpus)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from mcs_plugin.sim.performer import axis_distances
from tests.sim_scenes import ball, chest, obj, run, scene, wall

SIM_DIR = Path(__file__).resolve().parents[1] / "mcs_plugin" / "sim"


def _ball_behind_slit() -> dict:
    """A ball at the camera's height behind two walls that leave a 2 cm slit straight ahead of the performer.

    The image centre's ray passes the slit and meets the ball, but every one of the ball's visibility points lies
    behind a wall.
    """
    target = ball(x=-0.2, z=0.9, diameter=0.5, kinematic=True)
    target["shows"][0]["position"]["y"] = 0.762
    return scene(target, wall("left", x=-1.01, z=0.5), wall("right", x=1.01, z=0.5))


def test_target_by_image_point_must_be_visible(sim):
    """MCSController.ConvertScreenPointToId only turns the point into an id; the action then checks that id's
    visibility, so an object hit through a gap that hides all its visibility points is NOT_VISIBLE."""
    out = sim.start_scene(_ball_behind_slit())
    assert obj(out, "ball").visible is False
    out = sim.step("PickupObject", objectImageCoordsX=300, objectImageCoordsY=200)
    assert (out.return_status, out.resolved_object) == ("NOT_VISIBLE", "ball")
    assert obj(out, "ball").held is False


def test_target_by_image_point_in_view_is_taken(sim):
    """The same ball without the walls: seen, in reach, picked up by the image point."""
    target = ball(x=-0.2, z=0.9, diameter=0.5, kinematic=True)
    target["shows"][0]["position"]["y"] = 0.762
    sim.start_scene(scene(target))
    out = sim.step("PickupObject", objectImageCoordsX=300, objectImageCoordsY=200)
    assert (out.return_status, out.resolved_object) == ("SUCCESSFUL", "ball")


def _holding_ball(sim, room: float) -> None:
    sim.start_scene(scene(ball(z=0.8, diameter=0.2), tilt=30, roomDimensions={"x": room, "y": 3, "z": room}))
    assert sim.step("PickupObject", objectId="ball").return_status == "SUCCESSFUL"
    for _ in range(3):
        assert sim.step("LookUp").return_status == "SUCCESSFUL"


def test_throw_at_image_point_with_nothing_in_range_fails_and_drops(sim):
    """MCSController.ThrowObject: the object is let go first; an image point whose ray meets nothing within
    MAX_DISTANCE_ACROSS_ROOM (14.15 m) gives FAILED and the object just falls."""
    _holding_ball(sim, room=40.0)
    out = sim.step("ThrowObject", objectImageCoordsX=300, objectImageCoordsY=200)
    assert out.return_status == "FAILED"
    assert obj(out, "ball").held is False
    assert np.linalg.norm(sim.world.by_id["ball"].qvel[:2]) < 0.5


def test_throw_at_image_point_aims_at_what_the_ray_hits(sim):
    """In a 10 m room the ray meets the far wall: the ball is thrown toward that point, forward and level."""
    _holding_ball(sim, room=10.0)
    before = obj(sim.last_output, "ball").position
    out = sim.step("ThrowObject", objectImageCoordsX=300, objectImageCoordsY=200, force=1.0)
    assert out.return_status == "SUCCESSFUL"
    after = obj(out, "ball").position
    assert after["z"] - before["z"] > 0.3 and abs(after["x"]) < 0.05


@pytest.mark.parametrize("path", sorted(SIM_DIR.glob("*.py")), ids=lambda p: p.name)
def test_simulator_code_cites_no_integration_test(path):
    """Rules are described by what they do; which recorded tests show them is kept in docs/fidelity.md."""
    cited = re.findall(r"\bIT ?\d{3}\b", path.read_text(encoding="utf-8"))
    assert not cited, f"{path.name} cites integration tests {cited}"


def _ids(output) -> set[str]:
    return {o.uuid for o in output.object_list}


def test_hidden_object_comes_back_with_a_later_show(sim):
    """MCSMain.UpdateGameObjectOnStep: a hide deactivates the object, a later show activates it again."""
    target = ball(z=2.0)
    target["hides"] = [{"stepBegin": 2}]
    target["shows"].append({"stepBegin": 4, "position": {"x": 1.0, "y": 0.25, "z": 2.0}})
    sim.start_scene(scene(target))
    present = ["ball" in _ids(sim.step("Pass")) for _ in range(5)]  # steps 1..5
    assert present == [True, False, False, True, True]
    assert obj(sim.last_output, "ball").position["x"] == pytest.approx(1.0, abs=0.01)


def test_hide_and_show_at_one_step_leaves_the_object_shown(sim):
    """Hides run before shows at the same step, so a re-pose with a hide at its step still shows the object."""
    target = ball(z=2.0)
    target["hides"] = [{"stepBegin": 2}]
    target["shows"].append({"stepBegin": 2, "position": {"x": -1.0, "y": 0.25, "z": 2.0}})
    sim.start_scene(scene(target))
    sim.step("Pass")
    out = sim.step("Pass")
    assert "ball" in _ids(out) and obj(out, "ball").position["x"] == pytest.approx(-1.0, abs=0.01)


@pytest.mark.parametrize(("action", "params", "ahead"), [
    ("PushObject", {}, (0.1, 1.0)), ("PullObject", {"force": 1.0}, (0.3, 1.0)), ("TorqueObject", {}, (0.1, 1.0)),
    ("RotateObject", {}, (0.0, 0.08)), ("MoveObject", {"lateral": 1}, (0.0, 0.08)),
    ("TorqueObject", {"force": -0.5}, (-1.0, -0.05)),
])
def test_object_action_on_held_object_throws_it(sim, action, params, ahead):
    """MCSController: pushing, pulling, torquing, rotating or moving the held object throws it, with the action's
    moveMagnitude (MCS's Python API): the force for Push, Pull and Torque (a negative torque throws it back), 0.1 for
    Rotate and Move. One action later the ball is `ahead` (low, high) metres further along z."""
    _holding_ball(sim, room=10.0)
    before = obj(sim.last_output, "ball").position
    out = sim.step(action, objectId="ball", **params)
    assert out.return_status == "SUCCESSFUL"
    after = obj(out, "ball")
    assert after.held is False
    assert ahead[0] < after.position["z"] - before["z"] < ahead[1]


@pytest.mark.parametrize("flag", ["intuitivePhysics", "observation"])
def test_intuitive_physics_room_has_its_own_walls_and_no_ceiling(sim, flag):
    """MCSMain.AdjustRoomStructuralObjects: a passive intuitive-physics scene has no ceiling, a fixed camera and a
    room of its own (side walls 7.75 m out, walls 6 m high), whatever the scene's room dimensions; MCS still reads
    the deprecated `observation` flag as `intuitivePhysics`."""
    data = scene(ball(z=1.0))
    data[flag] = True
    out = sim.start_scene(data)
    walls = {o.uuid: o for o in out.structural_object_list}
    assert set(walls) == {"wall_back", "wall_front", "wall_left", "wall_right"}
    assert (out.position["x"], out.position["z"], out.camera_height) == pytest.approx((0.0, -4.5, 1.5))
    assert walls["wall_left"].position["x"] == pytest.approx(-7.75) and walls["wall_right"].position["x"] == pytest.approx(7.75)
    assert all(w.position["y"] == pytest.approx(3.0) for w in walls.values())
    assert walls["wall_back"].direction["y"] == pytest.approx(0.894, abs=0.01)  # the camera looks up at its centre


def test_structures_are_reported_visible_even_out_of_view(sim):
    """MCSController.generateMetadataWrapper lists structures apart and reports them all visible, wherever they are."""
    out = sim.start_scene(scene(wall("behind", z=-2.0)))
    walls = {o.uuid: o for o in out.structural_object_list}
    assert walls["behind"].direction["z"] < 0  # behind the performer
    assert all(o.visible for o in walls.values())


def test_image_point_ray_goes_through_the_pixels_lower_left_corner(sim):
    """MCS's Python API sends Unity (int(x), height - 1 - int(y)) and Camera.ScreenPointToRay aims at that screen
    point, the lower left corner of the pixel: in a 600 x 400 image pixel (300, 199) looks straight ahead."""
    sim.start_scene(scene())
    forward, _ = sim.performer.camera_axes()
    ray = sim._runner._ray_from_params({"objectImageCoordsX": 300, "objectImageCoordsY": 199}, "object")
    assert ray == pytest.approx(forward, abs=1e-9)
    off = sim._runner._ray_from_params({"objectImageCoordsX": 300.9, "objectImageCoordsY": 199.9}, "object")
    assert off == pytest.approx(ray, abs=1e-12)  # fractions of a pixel are dropped


def _box(object_id: str, x: float, y: float, z: float, size: tuple[float, float, float], **flags) -> dict:
    return {"id": object_id, "type": "cube", "shows": [{"stepBegin": 0, "position": {"x": x, "y": y, "z": z},
                                                        "scale": dict(zip("xyz", size))}], **flags}


def test_put_on_a_surface_avoids_what_already_stands_there(sim):
    """AI2-THOR's PlaceObjectReceptacle tries the receptacle's spots in turn until the object fits: a ball put on a
    stand whose centre holds a block goes beside the block (resting on the stand), not into it."""
    stand = _box("stand", 0.0, 0.2, 0.9, (1.0, 0.4, 0.6), kinematic=True, receptacle=True)
    block = _box("block", 0.0, 0.5, 0.9, (0.2, 0.2, 0.2), mass=5)
    sim.start_scene(scene(stand, block, ball(x=0.5, z=0.48, diameter=0.2), tilt=30))
    assert sim.step("PickupObject", objectId="ball").return_status == "SUCCESSFUL"
    out = sim.step("PutObject", objectId="ball", receptacleObjectId="stand")
    assert out.return_status == "SUCCESSFUL"
    placed, other = obj(out, "ball").position, obj(out, "block").position
    assert placed["y"] == pytest.approx(0.5, abs=0.02)  # on the stand's top (0.4), not on the block
    assert np.hypot(placed["x"] - other["x"], placed["z"] - other["z"]) >= 0.2 - 0.01


def _put_on_stand(sim, **target) -> dict:
    """Put a held ball onto a 1 m wide stand ahead, naming the stand as `target` says; the ball's position after."""
    stand = _box("stand", 0.0, 0.2, 0.9, (1.0, 0.4, 0.6), kinematic=True, receptacle=True)
    sim.start_scene(scene(stand, ball(x=0.5, z=0.48, diameter=0.2), tilt=30))
    assert sim.step("PickupObject", objectId="ball").return_status == "SUCCESSFUL"
    out = sim.step("PutObject", objectId="ball", **target)
    assert (out.return_status, out.resolved_receptacle) == ("SUCCESSFUL", "stand")
    return obj(out, "ball").position


def test_put_checks_the_receptacle_id_before_whether_the_object_is_held(sim):
    """MCSController.PutObject checks that both ids name objects (NOT_OBJECT) before the base action checks that the
    object is held (NOT_HELD); with no object named, an empty hand is NOT_HELD at once."""
    stand = _box("stand", 0.0, 0.2, 0.9, (1.0, 0.4, 0.6), kinematic=True, receptacle=True)
    sim.start_scene(scene(stand, ball(x=0.5, z=0.48, diameter=0.2), tilt=30))
    assert sim.step("PutObject", receptacleObjectId="nowhere").return_status == "NOT_HELD"
    out = sim.step("PutObject", objectId="ball", receptacleObjectId="nowhere")
    assert out.return_status == "NOT_OBJECT" and not out.resolved_receptacle
    out = sim.step("PutObject", objectId="ball", receptacleObjectId="stand")
    assert (out.return_status, out.resolved_receptacle) == ("NOT_HELD", "stand")
    out = sim.step("PutObject", objectId="nothing", receptacleObjectId="stand")
    assert out.return_status == "NOT_OBJECT"


def test_put_by_image_point_places_as_by_id(sim):
    """MCSController.PutObject turns a receptacle's image point into its id and nothing more
    (TryReceptacleObjectIdFromScreenPoint); the base PutObject then picks the spot from the receptacle's spawn
    points. A ball put by a point near the stand's left end lands where a put by id sets it, not at that point."""
    by_id = _put_on_stand(sim, receptacleObjectId="stand")
    by_point = _put_on_stand(sim, receptacleObjectImageCoordsX=120, receptacleObjectImageCoordsY=330)
    assert by_point == pytest.approx(by_id, abs=1e-6)
    assert abs(by_id["x"]) < 0.05  # the stand's centre, not the left end the point aimed at


def test_put_on_a_seat_too_far_to_reach_its_middle_lets_go_over_its_open_area(sim):
    """A sofa chair's receptacle trigger box is its registry entry's (sofa_chair_2: 0.975 x 0.65 m from 0.6 m up,
    0.15 m towards its front, where the generator's open area lies too). Its middle out of reach, a ball goes to the
    area's point nearest the performer where it fits, and is let go at AI2-THOR's spawn point: 0.05 m above the trigger box's bottom (Contains.
    GetValidSpawnPoints' BottomPoint, the seat lying at that bottom), its own bottom 0.005 above that
    (InstantiatePrefabTest.PlaceObject); it then falls onto the seat, the top of the registry's base box (0.58 m)."""
    chair = {"id": "chair", "type": "sofa_chair_2", "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 1.3},
                                                               "rotation": {"x": 0, "y": 180, "z": 0}}]}
    sim.start_scene(scene(chair, ball(z=0.6, diameter=0.2), tilt=30))
    assert sim.step("PickupObject", objectId="ball").return_status == "SUCCESSFUL"
    out = sim.step("PutObject", objectId="ball", receptacleObjectId="chair")
    assert out.return_status == "SUCCESSFUL"
    placed = obj(out, "ball").position
    front = 1.3 - (0.15 + 0.65 / 2)  # the area's edge nearest the performer
    assert (placed["x"], placed["z"]) == pytest.approx((0.0, front + 0.1), abs=0.005)
    assert placed["y"] == pytest.approx(0.6 + 0.055 + 0.1 - 0.0123, abs=0.004)  # after the put's 0.05 s of fall
    out = run(sim, 8)[-1]
    assert obj(out, "ball").position["y"] == pytest.approx(0.58 + 0.1, abs=0.002)


def test_put_on_a_turned_seat_takes_its_spots_from_its_area_laid_along_the_room(sim):
    """MCS lays a receptacle's spawn points around its trigger box's centre with the box's own size along the
    room's axes, as if it were not turned (Contains.GetValidSpawnPoints). The sofa chair of the test above turned a
    quarter (its front toward -x): its open area, 0.975 wide and 0.65 deep, 0.15 m toward its front, is taken as
    0.975 m along x and 0.65 along z around (-0.15, 0). From 1.3 m in front, the middle out of reach, the ball
    goes to that rectangle's point nearest the performer where it fits: x = -0.15 - 0.4875 + 0.1, past the seat's
    real front edge (-0.475). The ray down from there meets none of the chair, so the spawn point is the trigger
    box's bottom point, 0.05 m above its bottom (0.6 m): the ball is let go in the air in front of the seat, not
    above the chair's top."""
    chair = {"id": "chair", "type": "sofa_chair_2", "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 0},
                                                               "rotation": {"x": 0, "y": 270, "z": 0}}]}
    sim.start_scene(scene(chair, ball(x=-0.7, z=0.0, diameter=0.2), start=(-1.3, 0.0), yaw=90, tilt=30))
    assert sim.step("PickupObject", objectId="ball").return_status == "SUCCESSFUL"
    outcome = sim._runner.run("PutObject", {"objectId": "ball", "receptacleObjectId": "chair"})
    assert outcome.status == "SUCCESSFUL"
    placed = sim.world.center(sim.world.by_id["ball"])
    assert (placed[0], placed[1]) == pytest.approx((-0.15 - 0.4875 + 0.1, 0.0), abs=0.005)
    assert placed[2] == pytest.approx(0.6 + 0.055 + 0.1, abs=0.004)


def test_put_on_a_block_lets_go_at_the_spawn_point_on_its_top(sim):
    """On a receptacle without a known trigger box the spawn point is where the ray down meets its top, and
    InstantiatePrefabTest.PlaceObject sets the object's bottom 0.005 m (yoffset) above it: a block put onto another
    block is let go 0.005 m over it (before the action's physics)."""
    base = _box("base", 0.0, 0.1, 0.7, (0.2, 0.2, 0.2), kinematic=True, receptacle=True)
    sim.start_scene(scene(base, _box("block", 0.4, 0.05, 0.6, (0.1, 0.1, 0.1), pickupable=True), tilt=30))
    assert sim.step("PickupObject", objectId="block").return_status == "SUCCESSFUL"
    outcome = sim._runner.run("PutObject", {"objectId": "block", "receptacleObjectId": "base"})
    assert outcome.status == "SUCCESSFUL"
    block = sim.world.by_id["block"]
    bottom = sim.world.center(block)[2] - 0.05
    assert bottom == pytest.approx(0.2 + 0.005, abs=1e-4)


def test_put_into_a_container_too_small_is_obstructed(sim):
    """An object that fits nowhere in an opened container is not put in: OBSTRUCTED, still held."""
    sim.start_scene(scene(chest(x=0.45, z=0.8), ball(x=-0.45, z=0.9, diameter=0.6), tilt=30))
    assert sim.step("OpenObject", objectId="chest").return_status == "SUCCESSFUL"
    assert sim.step("PickupObject", objectId="ball").return_status == "SUCCESSFUL"
    out = sim.step("PutObject", objectId="ball", receptacleObjectId="chest")
    assert out.return_status == "OBSTRUCTED" and obj(out, "ball").held is True


def test_put_into_a_container_that_fits_succeeds(sim):
    """The same chest takes a 0.3 m ball: let go above its floor at its centre, it comes to rest inside."""
    sim.start_scene(scene(chest(x=0.45, z=0.8), ball(x=-0.45, z=0.9, diameter=0.3), tilt=30))
    sim.step("OpenObject", objectId="chest")
    sim.step("PickupObject", objectId="ball")
    out = sim.step("PutObject", objectId="ball", receptacleObjectId="chest")
    assert out.return_status == "SUCCESSFUL" and obj(out, "ball").held is False
    for _ in range(6):
        out = sim.step("Pass")
    assert obj(out, "ball").position == pytest.approx({"x": 0.45, "y": 0.187, "z": 0.8}, abs=0.01)


def test_put_into_a_container_lets_go_at_the_spawn_point_height(sim):
    """AI2-THOR's spawn points lie 0.05 above the trigger box's bottom and PlaceObject lets the object go 0.005 above
    one (Contains.GetValidSpawnPoints, InstantiatePrefabTest.PlaceObject): after the put's own physics (0.05 s of
    fall, ~0.012 m) the ball is still ~0.043 m above where it comes to rest."""
    sim.start_scene(scene(chest(x=0.45, z=0.8), ball(x=-0.45, z=0.9, diameter=0.3), tilt=30))
    sim.step("OpenObject", objectId="chest")
    sim.step("PickupObject", objectId="ball")
    released = obj(sim.step("PutObject", objectId="ball", receptacleObjectId="chest"), "ball").position["y"]
    for _ in range(6):
        out = sim.step("Pass")
    assert released - obj(out, "ball").position["y"] == pytest.approx(0.055 - 0.0123, abs=0.004)


def _pushed_travel(sim, **flags) -> float:
    sim.start_scene(scene(ball(z=0.7, diameter=0.3, **flags), tilt=30))
    start = obj(sim.last_output, "ball").position["z"]
    assert sim.step("PushObject", objectId="ball", force=0.5).return_status == "SUCCESSFUL"
    for _ in range(10):
        out = sim.step("Pass")
    return obj(out, "ball").position["z"] - start


def test_physics_properties_set_unity_drag(sim):
    """MCSMain.AssignPhysicsMaterialAndRigidBodyValues: enabled physicsProperties set the rigidbody's drag and
    angular drag (a field left out is 0): a force -drag * m * v and a torque -angularDrag * I * omega."""
    free = _pushed_travel(sim)
    dragged = _pushed_travel(sim, physicsProperties={"enable": True, "drag": 4.0})
    assert dragged < 0.6 * free
    body = sim.world.by_id["ball"]
    damping = sim.world.model.joint(int(sim.world.model.body_jntadr[body.body_id])).damping
    mass = sim.world.model.body_mass[body.body_id]
    assert damping[:3] == pytest.approx([4.0 * mass] * 3)
    assert damping[3:] == pytest.approx([0.0, 0.0, 0.0])  # angularDrag left out: 0, not Unity's default 0.5
    assert body.angular_drag == 0.0


def test_a_soccer_ball_has_the_registry_drag_of_the_0_7_x_registry(sim):
    """The registry that lists the support-relations containers gives soccer_ball drag 0.25 (older copies: 0): a
    soccer ball flying after a push loses 0.25 of its speed per second to drag, where a ball of the same size keeps it."""
    speeds = {}
    for kind in ("soccer_ball", "ball"):
        flying = {"id": kind, "type": kind, "mass": 1,
                  "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 2.5, "z": 1.0},
                             "scale": {"x": 1, "y": 1, "z": 1} if kind == "soccer_ball" else
                             {"x": 0.22, "y": 0.22, "z": 0.22}}],
                  "forces": [{"stepBegin": 1, "stepEnd": 1, "vector": {"x": 0, "y": 0, "z": 100}}]}
        sim.start_scene(scene(flying))
        travel = np.diff([obj(out, kind).position["z"] for out in run(sim, 5)])
        speeds[kind] = travel[2:] / travel[1]
        body = sim.world.by_id[kind]
        assert body.drag == (0.25 if kind == "soccer_ball" else 0.0)
    assert speeds["ball"] == pytest.approx([1.0, 1.0], abs=1e-3)
    assert speeds["soccer_ball"] == pytest.approx([1 - 0.25 * 0.05, (1 - 0.25 * 0.05) ** 2], abs=2e-3)


def test_physics_properties_not_enabled_keep_the_defaults(sim):
    """Without `enable`, physicsProperties change nothing: no drag, angular drag 0.5."""
    sim.start_scene(scene(ball(z=0.7, physicsProperties={"enable": False, "drag": 4.0})))
    body = sim.world.by_id["ball"]
    assert (body.drag, body.angular_drag) == (0.0, 0.5)


def _block(object_id: str = "block", x: float = 0.0, push: float = 0.0, **flags) -> dict:
    """A 0.2 m, 1 kg cube on the floor, pushed along +z by a scripted force of `push` N in step 1."""
    forces = [{"stepBegin": 1, "stepEnd": 1, "vector": {"x": 0, "y": 0, "z": push}}] if push else []
    return {"id": object_id, "type": "cube", "mass": 1, "moveable": True, "forces": forces,
            "shows": [{"stepBegin": 0, "position": {"x": x, "y": 0.1, "z": 1.0}, "scale": {"x": 0.2, "y": 0.2, "z": 0.2}}],
            **flags}


def _floor_contact_friction(sim, object_id: str) -> float:
    """The sliding friction of the MuJoCo contact between an object and the floor."""
    world = sim.world
    body, floor = set(world.by_id[object_id].geom_ids), set(world.by_id["floor"].geom_ids)
    frictions = {round(float(contact.friction[0]), 6) for contact in world.data.contact[:world.data.ncon]
                 if {int(contact.geom1), int(contact.geom2)} & body and {int(contact.geom1), int(contact.geom2)} & floor}
    assert len(frictions) == 1
    return frictions.pop()


def test_a_contact_with_the_floor_has_the_average_of_the_two_materials_friction(sim):
    """PhysX averages two colliders' dynamic friction (PhysicMaterial.frictionCombine Average); the floor and objects
    without physicsProperties have Unity's default 0.6, a ball 0.25 (MCS's object registry), and enabled
    physicsProperties set an object's own."""
    sim.start_scene(scene(ball(x=-1.0, diameter=0.3), _block(), _block("slippery", x=1.0, physicsProperties={
        "enable": True, "dynamicFriction": 0.9, "staticFriction": 0.9})))
    sim.step("Pass")
    assert _floor_contact_friction(sim, "ball") == pytest.approx((0.25 + 0.6) / 2)
    assert _floor_contact_friction(sim, "block") == pytest.approx(0.6)
    assert _floor_contact_friction(sim, "slippery") == pytest.approx((0.9 + 0.6) / 2)


@pytest.mark.parametrize(("floor", "expected"), [(None, 0.1), ({"enable": True, "dynamicFriction": 0.3}, 0.3)])
def test_an_intuitive_physics_floor_has_friction_0_1_unless_floor_properties_say_otherwise(sim, floor, expected):
    """MCSMain gives intuitive-physics floors (PHYSICS_FRICTION_DYNAMIC_PASSIVE) 0.1 unless floorProperties are
    enabled; a contact averages it with the object's."""
    extra = {"floorProperties": floor} if floor else {}
    sim.start_scene(scene(ball(x=-1.0, diameter=0.3), _block(), intuitivePhysics=True, **extra))
    sim.step("Pass")
    assert _floor_contact_friction(sim, "ball") == pytest.approx((0.25 + expected) / 2)
    assert _floor_contact_friction(sim, "block") == pytest.approx((0.6 + expected) / 2)


@pytest.mark.parametrize(("flags", "friction"), [({}, 0.6), ({"intuitivePhysics": True}, 0.35)])
def test_a_sliding_block_slows_down_at_its_contact_friction_times_g(sim, flags, friction):
    """Coulomb friction: a block sliding on the floor loses friction * g * dt^2 of travel per 0.05 s action."""
    sim.start_scene(scene(_block(push=150.0), **flags))
    travel = np.diff([obj(out, "block").position["z"] for out in run(sim, 5)])
    slow_down = -np.diff(travel) / 0.05 ** 2 / 9.81
    assert slow_down[:2] == pytest.approx([friction, friction], abs=0.03)


@pytest.mark.parametrize("height", [0.5, 1.0])
def test_a_ramp_up_to_45_degrees_leads_onto_the_platform_at_its_top(sim, height):
    """MCS's controller climbs structures inclined up to 45 degrees (MatchAgentHeightToStructureBelow); the platform
    edge at the top of a 1 m ramp is a step once the body stands on the ramp beside it, so walking on reaches the
    platform's top (camera 0.762 above it) at 27 and 45 degrees alike."""
    ramp = {"id": "ramp", "type": "triangle", "kinematic": True, "structure": True,
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": height / 2, "z": 1.5},
                       "scale": {"x": 1, "y": height, "z": 1}}]}
    platform = {"id": "platform", "type": "cube", "kinematic": True, "structure": True,
                "shows": [{"stepBegin": 0, "position": {"x": 0, "y": height / 2, "z": 3},
                           "scale": {"x": 1, "y": height, "z": 2}}]}
    sim.start_scene(scene(ramp, platform))
    outs = [sim.step("MoveAhead") for _ in range(26)]
    assert all(out.return_status == "SUCCESSFUL" for out in outs)
    assert outs[-1].camera_height == pytest.approx(0.762 + height, abs=0.01)
    assert outs[-1].position["z"] > 2.3


_RAMPS_45 = {
    # a 1 m cube plank tilted 45 degrees about x (the corpus builds its ramps so), rising toward -z
    "tilted plank": ({"id": "ramp", "type": "cube", "kinematic": True, "structure": True,
                      "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 0},
                                 "rotation": {"x": 45, "y": 180, "z": 0}, "scale": {"x": 0.75, "y": 1, "z": 0.1}}]},
                     (0.0, 1.0), 180.0),
    # a 45-degree triangle ramp 1 m high rising toward +z
    "triangle": ({"id": "ramp", "type": "triangle", "kinematic": True, "structure": True,
                  "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.5, "z": 1.5},
                             "scale": {"x": 1, "y": 1, "z": 1}}]},
                 (0.0, 0.0), 0.0),
}


@pytest.mark.parametrize("name", sorted(_RAMPS_45))
def test_walking_up_a_45_degree_ramp_takes_whole_steps(sim, name):
    """MCS climbs structures inclined up to 45 degrees: standing on the slope is not an overlap to be pushed out of
    (AdjustLocationAfterHeightAdjustment), so every step up a 45-degree ramp is a whole 0.1 m along the floor and
    raises the camera 0.1 m; the body is not pushed back down the slope after each change of height."""
    ramp, start, yaw = _RAMPS_45[name]
    sim.start_scene(scene(ramp, start=start, yaw=yaw))
    sign = 1.0 if yaw == 0.0 else -1.0
    rises = []
    previous = sim.last_output
    while len(rises) < 30:  # up to the top of the slope (walking off its far end is another matter)
        out = sim.step("MoveAhead")
        assert out.return_status == "SUCCESSFUL"
        rise = out.camera_height - previous.camera_height
        if rises and rises[-1] > 0.05 and rise < 0.05:
            break
        assert sign * (out.position["z"] - previous.position["z"]) == pytest.approx(0.1, abs=1e-4)
        assert out.position["x"] == pytest.approx(start[0], abs=1e-6)
        rises.append(rise)
        previous = out
    climbing = [rise for rise in rises if rise > 0.05]
    assert len(climbing) >= 3
    # on the slope itself every step rises 0.1 m (the first one onto it may still be partly on the floor)
    assert climbing[1:-1] == [pytest.approx(0.1, abs=1e-3)] * (len(climbing) - 2)


def test_walking_down_a_45_degree_ramp_takes_whole_steps(sim):
    """Down a 45-degree ramp from the 1 m platform at its top: whole 0.1 m steps, the camera 0.1 m lower each step
    down the slope, and standing height on the floor at its foot."""
    ramp, _, _ = _RAMPS_45["triangle"]
    platform = {"id": "platform", "type": "cube", "kinematic": True, "structure": True,
                "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.5, "z": 3}, "scale": {"x": 1, "y": 1, "z": 2}}]}
    start = scene(ramp, platform, start=(0.0, 3.0), yaw=180.0)
    start["performerStart"]["position"]["y"] = 1.0
    previous = sim.start_scene(start)
    assert previous.camera_height == pytest.approx(1.762, abs=1e-3)
    drops = []
    for _ in range(22):
        out = sim.step("MoveAhead")
        assert out.return_status == "SUCCESSFUL"
        assert previous.position["z"] - out.position["z"] == pytest.approx(0.1, abs=1e-4)
        drops.append(previous.camera_height - out.camera_height)
        previous = out
    on_slope = [drop for drop in drops if drop > 0.05][:-1]  # the last one ends partly on the floor
    assert on_slope == [pytest.approx(0.1, abs=1e-3)] * len(on_slope) and len(on_slope) >= 8
    assert previous.camera_height == pytest.approx(0.762, abs=1e-3)


def test_a_60_degree_ramp_stays_too_steep(sim):
    """Steeper than 45 degrees is not climbed: walking into a 60-degree ramp is OBSTRUCTED near its foot."""
    ramp = {"id": "ramp", "type": "triangle", "kinematic": True, "structure": True,
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.866, "z": 1.5},
                       "scale": {"x": 1, "y": 1.732, "z": 1}}]}
    sim.start_scene(scene(ramp))
    statuses = [sim.step("MoveAhead").return_status for _ in range(15)]
    assert "OBSTRUCTED" in statuses
    assert sim.last_output.camera_height < 0.762 + 0.3


def _floor_box(height: float, x: float, z: float, yaw: float = 0.0, side: float = 0.4) -> dict:
    """A heavy kinematic box (an ordinary object, not a structure) standing on the floor."""
    return {"id": "box", "type": "cube", "kinematic": True, "mass": 100,
            "shows": [{"stepBegin": 0, "position": {"x": x, "y": height / 2, "z": z}, "rotation": {"x": 0, "y": yaw, "z": 0},
                       "scale": {"x": side, "y": height, "z": side}}]}


@pytest.mark.parametrize(("x", "blocked"), [(0.4, True), (0.42, False)])
def test_the_body_stops_at_a_box_face_0_2_m_from_its_axis(sim, x, blocked):
    """Walking past a 0.4 m box with the body's axis 0.2 m from its side face is OBSTRUCTED alongside it; 0.22 m
    from it the body passes (objects stop a body of radius 0.21, not MCS's reported 0.25)."""
    sim.start_scene(scene(_floor_box(0.4, 0.0, 1.0), start=(x, 0.0)))
    statuses = [sim.step("MoveAhead").return_status for _ in range(16)]
    assert ("OBSTRUCTED" in statuses) == blocked


def test_the_body_walks_past_a_box_corner_0_217_m_from_its_axis(sim):
    """A 0.4 m box turned 45 degrees points a vertical edge at the path: the body's axis passes 0.217 m from it."""
    sim.start_scene(scene(_floor_box(0.4, 0.0, 1.0, yaw=45.0), start=(0.2828 + 0.217, 0.0)))
    assert all(sim.step("MoveAhead").return_status == "SUCCESSFUL" for _ in range(16))


def test_the_body_is_stopped_by_a_half_metre_ball_but_passes_over_the_end_of_a_low_tool(sim):
    """Low objects meet only the body's lower end: a 0.5 m ball stops it 0.44 m from the ball's centre (0.54 m is
    free), while the end of a 0.3 m tall box lets the axis come within 0.2 m and stops it at 0.1 m."""
    ball_ = {"id": "ball", "type": "sphere", "mass": 1.9, "moveable": False, "physics": True,
             "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.25, "z": 1.24}, "scale": {"x": 0.5, "y": 0.5, "z": 0.5}}]}
    sim.start_scene(scene(ball_))
    statuses = [sim.step("MoveAhead").return_status for _ in range(9)]
    assert statuses == ["SUCCESSFUL"] * 7 + ["OBSTRUCTED"] * 2  # 0.7 m (0.54 from the centre) reached, 0.8 m not
    sim.start_scene(scene(_floor_box(0.3, 0.0, 2.0, side=1.0), start=(0.0, 0.0)))  # its near face at z = 1.5
    statuses = [sim.step("MoveAhead").return_status for _ in range(15)]
    assert statuses == ["SUCCESSFUL"] * 13 + ["OBSTRUCTED"] * 2  # 1.3 m (0.2 from the face) reached, 1.4 m not


def _ball_in_lidded_container() -> dict:
    """A soccer ball in a 0.4 m separate_container 1.5 m ahead, its lid lowered and attached by step 3 (the Eval 7
    shell game's containers); the performer starts 1 m from the container's centre, looking 30 degrees down."""
    container = {"id": "container", "type": "separate_container", "receptacle": True, "openable": True,
                 "kinematic": True,
                 "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 1.5}, "scale": {"x": 0.4, "y": 0.4, "z": 0.4}}]}
    lid = {"id": "lid", "type": "lid", "lidAttachment": {"stepBegin": 3, "lidAttachmentObjId": "container"},
           "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.6, "z": 1.5}, "scale": {"x": 0.4, "y": 0.4, "z": 0.4}}],
           "moves": [{"stepBegin": 1, "stepEnd": 2, "vector": {"x": 0, "y": -0.1, "z": 0}}]}
    target = {"id": "target", "type": "soccer_ball", "mass": 1, "pickupable": True, "moveable": True,
              "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.13, "z": 1.5}}]}
    return scene(container, lid, target, start=(0.0, 0.5), tilt=30)


def _pixel_on(sim, object_id: str) -> tuple[int, int] | None:
    """An image point (MCS coordinates) near the image's centre column whose ray first meets `object_id`."""
    from mcs_plugin.constants import CAMERA_FIELD_OF_VIEW
    from mcs_plugin.sim.camera import pixel_ray

    forward, up = sim.performer.camera_axes()
    cam = sim.performer.camera_mj()
    for y in range(399, -1, -1):
        for x in (300, 290, 310):
            geom, _ = sim.world.ray(cam, pixel_ray(x, y + 1, 600, 400, CAMERA_FIELD_OF_VIEW, forward, up))
            hit = sim.world.owner(geom) if geom >= 0 else None
            if hit is not None and hit.id == object_id:
                return x, y
    return None


def test_a_ball_in_an_opened_container_is_taken_from_beside_it(sim):
    """MCS's visibility rays (BaseFPSAgentController.CheckIfVisibilityPointRaycast: layers SimObjVisible and
    agents, receptacle trigger boxes left out) meet a container's walls and its raised lid as they meet anything
    else. Picking a ball out of an opened shell-game container by image point therefore works from near the
    container, where one of the ball's visibility points shows over the near wall; 0.7 m away the wall hides the
    ball. The distances follow from the ball's points as MCS's object registry gives them (6 axis ends and 12
    points at 45 degrees in its axis planes, mcs_object_registry.json `soccer_ball`): derived from the model, not
    recorded. (With the generic sphere points the ball stayed hidden to 0.6 m while the image already showed it;
    with the registry's points its first pixels and its first point come into view at the same step.)"""
    sim.start_scene(_ball_in_lidded_container())
    run(sim, 3)
    assert sim.step("OpenObject", objectId="container").return_status == "SUCCESSFUL"
    assert obj(sim.last_output, "lid").position["z"] == pytest.approx(1.7, abs=1e-3)  # raised on the far side
    assert sim.step("LookDown").return_status == "SUCCESSFUL"
    for _ in range(3):
        assert sim.step("MoveAhead").return_status == "SUCCESSFUL"
    assert sim.last_output.position["z"] == pytest.approx(0.8, abs=1e-3)  # 0.7 m from the ball
    assert obj(sim.last_output, "target").visible is False
    assert sim.step("MoveAhead").return_status == "SUCCESSFUL"  # 0.6 m: the body's axis 0.4 m from the near wall
    assert obj(sim.last_output, "target").visible is True
    x, y = _pixel_on(sim, "target")
    out = sim.step("PickupObject", objectImageCoordsX=x, objectImageCoordsY=y)
    assert (out.return_status, out.resolved_object) == ("SUCCESSFUL", "target")
    assert obj(out, "target").held is True


def test_a_raised_lid_hides_the_ball_from_its_side(sim):
    """The lid opened away from the performer stands on the container's far edge; seen from that side it hides the
    ball in the container as any other collider would."""
    sim.start_scene(_ball_in_lidded_container())
    run(sim, 3)
    assert sim.step("OpenObject", objectId="container").return_status == "SUCCESSFUL"
    # walk round to the far side: a quarter turn right, 0.5 m, a quarter turn left, 1.5 m past the container,
    # a quarter turn left, 0.5 m, and a quarter turn left to face it from 0.5 m
    for turn, steps in (("RotateRight", 5), ("RotateLeft", 15), ("RotateLeft", 5), ("RotateLeft", 0)):
        run(sim, 9, turn)
        assert all(out.return_status == "SUCCESSFUL" for out in run(sim, steps, "MoveAhead"))
    sim.step("LookDown")
    out = sim.last_output
    assert (out.position["x"], out.position["z"], round(out.rotation) % 360) == pytest.approx((0.0, 2.0, 180), abs=1e-3)
    assert obj(out, "lid").visible is True and obj(out, "target").visible is False


def _door_at(z: float, **flags) -> dict:
    """MCS's door_4 standing alone (a 0.85 x 2 m panel hinged on its +x edge, opening flat toward +z)."""
    return {"id": "door", "type": "door_4", "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": z}}], **flags}


def test_closing_a_door_on_the_body_is_obstructed(sim):
    """The same check after closing: a performer standing where the panel closes (looking up, the opened panel
    in view) keeps the door open; 0.3 m further back it closes."""
    sim.start_scene(scene(_door_at(1.0), start=(0.0, 0.3)))
    assert sim.step("OpenObject", objectId="door").return_status == "SUCCESSFUL"
    assert all(out.return_status == "SUCCESSFUL" for out in run(sim, 5, "MoveAhead") + run(sim, 9, "LookUp"))
    assert sim.last_output.position["z"] == pytest.approx(0.8, abs=1e-3)  # the body reaches 0.05 m past the panel
    out = sim.step("CloseObject", objectId="door")
    assert (out.return_status, obj(out, "door").is_open) == ("OBSTRUCTED", True)
    assert all(out.return_status == "SUCCESSFUL" for out in run(sim, 3, "MoveBack") + run(sim, 2, "LookDown"))
    out = sim.step("CloseObject", objectId="door")
    assert (out.return_status, obj(out, "door").is_open) == ("SUCCESSFUL", False)


def _lowest_centre_of_a_dropped_ball(sim, monkeypatch) -> tuple[float, float]:
    """A 0.3 m ball shown 1.05 m above the floor falls and lands at ~4.5 m/s: the lowest its centre gets in any
    MuJoCo step, and where it rests. Its physicsProperties give it no bounciness, so it lands and stays."""
    import mujoco

    lowest = [np.inf]
    real_step = mujoco.mj_step

    def step(model, data):
        real_step(model, data)
        body = sim.world.by_id.get("ball") if sim.world is not None else None
        if body is not None:
            lowest[0] = min(lowest[0], float(body.qpos[2]))

    monkeypatch.setattr(mujoco, "mj_step", step)
    dropped = ball(z=1.5, diameter=0.3, physicsProperties={
        "enable": True, "dynamicFriction": 0.25, "staticFriction": 0.25, "angularDrag": 0.5})
    dropped["shows"][0]["position"]["y"] = 1.2
    sim.start_scene(scene(dropped))
    run(sim, 20)
    return lowest[0], float(sim.world.by_id["ball"].qpos[2])


def test_a_falling_body_lands_without_sinking_into_the_floor(sim, monkeypatch):
    """PhysX contacts do not give: a body falling fast meets the floor with MuJoCo's stiffest contacts, so a ball
    landing at 4.5 m/s sinks a few millimetres (soft contacts: 2 cm), and comes to rest where it would anyway."""
    lowest, rest = _lowest_centre_of_a_dropped_ball(sim, monkeypatch)
    assert rest == pytest.approx(0.15, abs=0.001)
    assert lowest > 0.15 - 0.007


def test_soft_contacts_would_let_a_falling_body_sink(sim, monkeypatch):
    """The same drop without the rule (no body counts as falling): the ball sinks 2 cm into the floor."""
    from mcs_plugin.sim import world

    monkeypatch.setattr(world, "FALL_SPEED", np.inf)
    lowest, _ = _lowest_centre_of_a_dropped_ball(sim, monkeypatch)
    assert lowest < 0.15 - 0.015


def test_what_rests_on_kinematic_furniture_stays_on_its_surface(sim):
    """A sofa that only holds things is kinematic in MCS (it stays 5 cm above the floor where the scene shows it): a
    ball dropped onto its seat (the registry's base box, 0.58 m high) comes to rest on it, not sunk into it, and the
    sofa does not move."""
    sofa = {"id": "sofa", "type": "sofa_2", "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.05, "z": 1.5}}]}
    dropped = ball(z=1.6, diameter=0.2)
    dropped["shows"][0]["position"]["y"] = 0.9
    sim.start_scene(scene(sofa, dropped, tilt=30))
    out = run(sim, 10)[-1]
    assert obj(out, "ball").position["y"] == pytest.approx(0.05 + 0.58 + 0.1, abs=0.002)
    assert obj(out, "sofa").position["y"] == pytest.approx(0.05, abs=1e-6)


def test_a_table_is_kinematic_even_when_the_scene_makes_it_moveable(sim):
    """table_1's registry entry is kinematic, so a scene's `moveable` table is kinematic too (MCSMain.AssignRigidbody:
    objectConfig.kinematic || objectDefinition.kinematic); a chair, whose entry is moveable and not kinematic, is not."""
    table = {"id": "table", "type": "table_1", "moveable": True,
             "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 1.5}}]}
    chair = {"id": "chair", "type": "chair_1", "shows": [{"stepBegin": 0, "position": {"x": 1.5, "y": 0, "z": 1.5}}]}
    sim.start_scene(scene(table, chair))
    assert sim.world.by_id["table"].frozen and not sim.world.by_id["chair"].frozen


def _ball_on_high_stand(sim, stand_front: float) -> None:
    """A 0.2 m ball resting 1.2 m up on a kinematic stand whose near face is `stand_front` m ahead, the ball's near
    side 0.05 m short of that face (its centre over the stand); the performer looks up 10 degrees at it."""
    stand = _box("stand", 0.0, 0.6, stand_front + 0.2, (0.4, 1.2, 0.4), kinematic=True, receptacle=True)
    high = ball(z=stand_front + 0.05, diameter=0.2)
    high["shows"][0]["position"]["y"] = 1.3
    sim.start_scene(scene(stand, high, tilt=-10))
    assert obj(sim.last_output, "ball").visible is True


def test_distance_to_a_body_axis_is_across_the_floor_beside_it_and_to_its_ends_above_or_below():
    # an axis over (1, 2) (MuJoCo x, y) from 0.1 to 0.8 m up
    points = np.array([
        [1.0, 2.0, 0.5],   # on the axis
        [1.3, 2.4, 0.5],   # beside it: 0.5 m across the floor
        [1.0, 2.0, 1.1],   # above its top: 0.3 m
        [1.0, 2.0, -0.2],  # below its bottom: 0.3 m
        [1.3, 2.4, 1.1],   # above and beside: to the top end
    ])
    np.testing.assert_allclose(axis_distances(points, 1.0, 2.0, 0.1, 0.8),
                               [0.0, 0.5, 0.3, 0.3, np.hypot(0.5, 0.3)], atol=1e-12)


def test_reach_is_measured_across_the_floor_plan_up_to_the_raised_top_of_the_reach_zone(sim):
    """What the performer can act on is found by an overlap capsule of radius 1 m along its body's capsule segment
    with the segment's upper end raised by that 1 m (BaseFPSAgentController.GetAllVisibleSimObjPhysicsCollider):
    an object 1.2-1.4 m up whose near side is 0.95 m away across the floor plan is in reach (measured from the
    body's unraised segment, 0.8 m up, it would be 1.03 m away), and one 1.05 m away is not."""
    _ball_on_high_stand(sim, stand_front=1.0)
    out = sim.step("PickupObject", objectId="ball")
    assert out.return_status == "SUCCESSFUL" and obj(out, "ball").held is True
    _ball_on_high_stand(sim, stand_front=1.1)
    assert sim.step("PickupObject", objectId="ball").return_status == "OUT_OF_REACH"


def test_a_kinematic_object_let_go_of_is_physical(sim):
    """AI2-THOR's DropHandObject makes the released rigidbody non-kinematic, whatever the scene said: a ball shown
    kinematic, picked up and dropped, falls to the floor instead of hanging where the hand let go of it."""
    sim.start_scene(scene(ball(z=0.8, diameter=0.2, kinematic=True), tilt=30))
    assert sim.step("PickupObject", objectId="ball").return_status == "SUCCESSFUL"
    assert sim.step("DropObject", objectId="ball").return_status == "SUCCESSFUL"
    assert obj(sim.last_output, "ball").position["y"] > 0.5  # let go at the hand
    run(sim, 10)
    assert obj(sim.last_output, "ball").position["y"] == pytest.approx(0.1, abs=0.01)  # resting on the floor


@pytest.mark.parametrize("action", ["PushObject", "TorqueObject"])
def test_a_force_on_a_kinematic_object_makes_it_physical(sim, action):
    """AI2-THOR's ApplyForceObject (which MCS's PushObject, PullObject and TorqueObject call) sets the target's
    rigidbody non-kinematic before the force acts: a moveable box shown kinematic slides or turns, and goes on
    being physical."""
    box = _box("box", 0.0, 0.1, 0.8, (0.2, 0.2, 0.2), kinematic=True, moveable=True, mass=1)
    sim.start_scene(scene(box, tilt=30))
    before = obj(sim.last_output, "box")
    assert sim.step(action, objectId="box").return_status == "SUCCESSFUL"
    run(sim, 3)
    after = obj(sim.last_output, "box")
    moved = after.position["z"] - before.position["z"] if action == "PushObject" else abs(
        (after.rotation["y"] - before.rotation["y"] + 180) % 360 - 180)
    assert moved > (0.05 if action == "PushObject" else 1.0)


def test_a_spot_on_a_surface_must_be_in_view_and_in_sight(sim):
    """AI2-THOR keeps only spawn points strictly inside the viewport and in sight (Contains.NarrowDownValidSpawnPoints,
    CheckIfPointIsInViewport: nothing met by the ray from the camera short of 1 cm before the point): looking level
    from 0.762 m, a spot on the floor 0.5 m ahead lies below the image and one 2 m ahead is in it, unless a box
    stands in between."""
    sim.start_scene(scene())
    runner = sim._runner
    assert not runner._spot_in_view(np.array([0.0, 0.5, 0.0]))
    assert runner._spot_in_view(np.array([0.0, 2.0, 0.0]))
    sim.start_scene(scene(_box("box", 0.0, 0.3, 1.0, (0.4, 0.6, 0.2), kinematic=True)))
    assert not sim._runner._spot_in_view(np.array([0.0, 2.0, 0.0]))


def test_noise_reaches_moves_and_forces_but_not_turns():
    """With noise_enabled MCS's Python scales a move's distance (and a force) by 1 + U(-0.5, 0.5) (Parameter.MIN_NOISE,
    MAX_NOISE), while MCSController's RotateLeft/RotateRight/LookUp/LookDown turn by a fixed 10 degrees."""
    from mcs_plugin.sim.controller import EmbeddedController

    sim = EmbeddedController({"metadata": "oracle", "render": False, "noise_enabled": True, "seed": 3})
    sim.start_scene(scene())
    steps = []
    for _ in range(12):
        before = sim.last_output.position["z"]
        steps.append(sim.step("MoveAhead").position["z"] - before)
    assert all(0.05 - 1e-6 <= s <= 0.15 + 1e-6 for s in steps) and max(steps) - min(steps) > 0.03
    for action in ("RotateRight", "RotateLeft", "RotateLeft", "LookDown", "LookDown", "LookUp"):
        sim.step(action)
    assert (sim.last_output.rotation, sim.last_output.head_tilt) == (350.0, 10.0)
    sim.stop_simulation()


def test_a_put_object_faces_the_rooms_yaw_0(sim):
    """MCS's edit of InstantiatePrefabTest.PlaceObject no longer copies the receptacle's rotation: it tries the world
    yaws 0, 90, 180 and 270 degrees in turn. A block held by a performer facing 90 degrees turns with it, and put on a
    stand it faces 0."""
    stand = _box("stand", 0.6, 0.2, 0.0, (0.6, 0.4, 1.0), kinematic=True, receptacle=True)
    block = _box("block", 0.0, 0.05, 0.7, (0.1, 0.1, 0.1), mass=0.2, pickupable=True)
    sim.start_scene(scene(stand, block, tilt=30))
    assert sim.step("PickupObject", objectId="block").return_status == "SUCCESSFUL"
    run(sim, 9, "RotateRight")
    assert round(obj(sim.last_output, "block").rotation["y"]) % 360 == 90
    out = sim.step("PutObject", objectId="block", receptacleObjectId="stand")
    assert out.return_status == "SUCCESSFUL" and round(obj(out, "block").rotation["y"]) % 360 == 0


def _door_in_wall(opened: bool = False) -> list[dict]:
    """A door_4 at z = 1 in a wall across the room (the scene generator's wall cubes on both sides of it)."""
    return [_door_at(1.0, opened=opened), wall("wall_left", x=-1.425, z=1.0), wall("wall_right", x=1.425, z=1.0)]


def test_an_opened_door_clears_its_doorway(sim):
    """Door4.prefab turns its panel 180 degrees about the hinge on its +x edge: opened from its -z side, the doorway
    is free to walk through."""
    sim.start_scene(scene(*_door_in_wall(), start=(0.0, 0.7)))
    assert sim.step("MoveAhead").return_status == "OBSTRUCTED"  # the closed panel
    assert sim.step("OpenObject", objectId="door").return_status == "SUCCESSFUL"
    outs = run(sim, 8, "MoveAhead")
    assert all(out.return_status == "SUCCESSFUL" for out in outs)
    assert outs[-1].position["z"] == pytest.approx(1.5, abs=1e-3)


def test_an_opened_door_lies_against_the_wall_beside_the_opening(sim):
    """The opened panel lies flat on the wall's +z face from the hinge to 0.85 m beyond it (x 0.425-1.275, z 1.072-
    1.128 here): from that side it is seen and stops the body 0.21 m from its face, 0.078 m before the wall would."""
    for opened, stop in ((True, 1.4), (False, 1.3)):
        sim.start_scene(scene(*_door_in_wall(opened), start=(0.85, 1.6), yaw=180.0))
        outs = run(sim, 4, "MoveAhead")
        assert [out.return_status for out in outs].count("SUCCESSFUL") == round((1.6 - stop) / 0.1)
        assert outs[-1].position["z"] == pytest.approx(stop, abs=1e-3)
        assert obj(outs[0], "door").visible == opened


def test_opening_a_door_into_the_body_is_obstructed(sim):
    """AI2-THOR's InteractAndWait puts the part back and fails the action when the opened object ends up in the
    performer's body: a performer beside the wall on the door's +z side is where its panel would land."""
    sim.start_scene(scene(*_door_in_wall(), start=(0.6, 1.27), yaw=250.0))
    out = sim.step("OpenObject", objectId="door")
    assert out.return_status == "OBSTRUCTED"
    assert not obj(out, "door").is_open
    sim.start_scene(scene(*_door_in_wall(), start=(-0.6, 1.27), yaw=110.0))  # the hinge's far side: clear
    assert sim.step("OpenObject", objectId="door").return_status == "SUCCESSFUL"


def test_a_door_is_seen_by_the_point_grid_on_its_panel(sim):
    """Door4.prefab's panel carries 6 x 9 visibility points on each face: a closed door 0.27 m ahead of the camera is
    seen though its corners, edges' middles and centre are all out of view; with the body turned away it is not."""
    sim.start_scene(scene(*_door_in_wall(), start=(0.0, 0.7)))
    assert obj(sim.last_output, "door").visible
    sim.start_scene(scene(*_door_in_wall(), start=(0.0, 0.7), yaw=90.0))
    assert not obj(sim.last_output, "door").visible
