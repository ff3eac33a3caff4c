"""Embedded simulator: which objects MCS reports visible (its visibility-point rule)."""

from __future__ import annotations

import numpy as np
import pytest

from mcs_plugin.constants import GROUP_LOOK
from mcs_plugin.sim.observation import REGISTRY_INSET, SAMPLE_INSET, registry_points
from tests.sim_scenes import ball, chest, obj, run, scene


def _agent(x: float = 0.0, z: float = 0.0, yaw: float = 180.0) -> dict:
    return {"id": "agent", "type": "agent_female_01",
            "shows": [{"stepBegin": 0, "position": {"x": x, "y": 0, "z": z}, "rotation": {"x": 0, "y": yaw, "z": 0}}]}


def test_object_filling_the_image_is_not_visible_when_its_points_are_out_of_view(sim):
    """IT 154: like MCS, only visibility points (corners, face centres) count, not what covers the image."""
    panel = {"id": "panel", "type": "cube", "kinematic": True,
             "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 1.5, "z": 0.6}, "scale": {"x": 4, "y": 3, "z": 0.1}}]}
    out = sim.start_scene(scene(panel))
    assert not obj(out, "panel").visible
    assert sim.step("PushObject", objectId="panel").return_status == "NOT_VISIBLE"
    out = sim.start_scene(scene(panel, start=(0.0, -3.0)))  # further back its corners come into view
    assert obj(out, "panel").visible


def test_long_object_is_visible_by_points_along_its_sides(sim):
    """IT 220: a 9 m tool seen side-on, ends and face centres out of view, can still be acted on."""
    tool = {"id": "tool", "type": "tool_rect_0_50_x_9_00",
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.15, "z": 1.2}, "rotation": {"x": 0, "y": 90, "z": 0}}]}
    out = sim.start_scene(scene(tool, tilt=30))
    assert obj(out, "tool").visible
    assert sim.step("PushObject", objectId="tool").return_status == "SUCCESSFUL"


def test_door_filling_the_image_is_visible(sim):
    """IT 091: a closed door 0.4 m ahead is visible and can be opened."""
    door = {"id": "door", "type": "door_4", "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 0.4}}]}
    out = sim.start_scene(scene(door))
    assert obj(out, "door").visible
    assert sim.step("OpenObject", objectId="door").return_status == "SUCCESSFUL"


def test_agent_visibility_follows_its_body_not_its_catalog_box(sim):
    """IT 140: an agent beside the performer whose catalog box fills the left of the image is not visible; its
    visibility points bound its (0.6-scale) body. Further away the same offset is in view."""
    assert not obj(sim.start_scene(scene(_agent(z=-0.2), start=(0.4, -0.5))), "agent").visible
    assert obj(sim.start_scene(scene(_agent(), start=(0.6, -0.8))), "agent").visible


def test_objects_behind_a_tool_are_seen_past_it(sim):
    """IT 115, 116: a ball just behind a tool's far end, wholly behind the tool in the image, is visible; the tool
    itself stays visible, and a cube behind the ball still hides what is behind it."""
    tool = {"id": "tool", "type": "tool_rect_1_00_x_4_00",
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.15, "z": 0.0}}]}
    soccer = {"id": "soccer", "type": "soccer_ball", "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.11, "z": 2.1}}]}
    out = sim.start_scene(scene(tool, soccer, start=(0.0, -2.5), tilt=20))
    assert obj(out, "tool").visible and obj(out, "soccer").visible
    block = {"id": "block", "type": "cube", "kinematic": True,
             "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.5, "z": -1.5}, "scale": {"x": 2, "y": 1, "z": 0.1}}]}
    out = sim.start_scene(scene(tool, soccer, block, start=(0.0, -2.5), tilt=20))
    assert not obj(out, "soccer").visible


def test_an_agent_hides_what_is_behind_its_capsule_only(sim):
    """IT 139, 181: other objects are hidden by an agent's 0.15 m capsule, not by its catalog box: a small ball
    behind it 0.18-0.24 m off its axis (as the camera sees it) is visible, one right behind it is not."""
    def small_ball(object_id: str, x: float) -> dict:
        return {"id": object_id, "type": "ball", "mass": 1,
                "shows": [{"stepBegin": 0, "position": {"x": x, "y": 0.04, "z": 2.0},
                           "scale": {"x": 0.08, "y": 0.08, "z": 0.08}}]}

    out = sim.start_scene(scene(_agent(z=1.5), small_ball("beside", 0.28), small_ball("behind", 0.0), tilt=10))
    assert obj(out, "agent").visible
    assert obj(out, "beside").visible
    assert not obj(out, "behind").visible


def _toy_block(kind: str, away: float) -> dict:
    """A kinematic toy block (0.1 m) near the top edge of the view from (-2.45, 0.38), yaw 130, tilt 50; `away`
    moves it that far further from the camera."""
    return {"id": "block", "type": f"block_blank_wood_{kind}", "kinematic": True,
            "shows": [{"stepBegin": 0, "position": {"x": -1.6936 + 0.716 * away, "y": 0.2495, "z": -0.357 - 0.698 * away}}]}


def test_a_toy_block_cylinder_is_seen_by_its_cardinal_points_only(sim):
    """IT 104: MCS's registry gives toy-block cylinders points at the cardinal directions of their rims, none on the
    diagonals: with only the near diagonal of its bottom rim in view the cylinder is not visible, while a cube block
    there is (its corners); a little nearer, the cylinder's cardinal points come into view."""
    view = {"start": (-2.45, 0.38), "yaw": 130, "tilt": 50}
    assert not obj(sim.start_scene(scene(_toy_block("cylinder", 0.0), **view)), "block").visible
    assert obj(sim.start_scene(scene(_toy_block("cube", 0.0), **view)), "block").visible
    assert obj(sim.start_scene(scene(_toy_block("cylinder", -0.02), **view)), "block").visible


def test_a_toy_block_cylinders_points_are_its_registry_pattern():
    """MCS's registry gives a toy-block cylinder 14 points: four at the cardinal directions on each rim and round the
    middle, and its two end centres; like every point here they sit just inside the surface."""
    points = registry_points("block_blank_wood_cylinder", np.full(3, 0.1), np.zeros(3))[:, [0, 2, 1]]
    assert len(points) == 14 and np.all(np.prod(points[:, :2], axis=1) == 0)
    assert np.allclose(np.linalg.norm(points[:12, :2], axis=1), 0.05 * SAMPLE_INSET)
    assert sorted(np.round(points[:, 2] / (0.05 * SAMPLE_INSET)).tolist()) == [-1] * 5 + [0] * 4 + [1] * 5

def _points_of(sim, object_id: str) -> np.ndarray:
    """The visibility points (world, MCS axes) the simulator casts rays to for one object."""
    from mcs_plugin.sim.observation import _visibility_points

    world = sim.world
    points, owners, _ = _visibility_points(world)
    return points[owners == world.objects.index(world.by_id[object_id])][:, [0, 2, 1]]


def test_objects_are_seen_by_the_points_their_registry_entry_gives_them(sim):
    """MCS's object registries give a ball 18 points (6 axis ends, 12 at 45 degrees in its axis planes) and a toy
    turtle 9 along its body; an object type without registry points (a chest) keeps each part's corners and face
    centres. Like every point here they sit just inside the object's box."""
    turtle = {"id": "turtle", "type": "turtle_on_wheels", "kinematic": True,
              "shows": [{"stepBegin": 0, "position": {"x": 1, "y": 0, "z": 2}}]}
    sim.start_scene(scene({"id": "ball", "type": "soccer_ball", "kinematic": True,
                           "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.11, "z": 2}}]},
                          turtle, {"id": "chest", "type": "chest_1", "kinematic": True,
                                   "shows": [{"stepBegin": 0, "position": {"x": -1, "y": 0, "z": 2}}]}))
    ball = _points_of(sim, "ball") - [0.0, 0.11, 2.0]
    assert len(ball) == 18 and np.allclose(np.linalg.norm(ball, axis=1), 0.11 * SAMPLE_INSET, atol=1e-3)
    assert np.sum(np.sum(np.abs(ball) > 1e-3, axis=1) == 2) == 12  # the 45-degree points lie in the axis planes
    assert len(_points_of(sim, "turtle")) == 9
    assert len(_points_of(sim, "chest")) >= 14


def test_registry_points_are_mapped_onto_the_objects_scaled_box(sim):
    """A registry's points are placed on the object as the scene scales it: a cylinder scaled 2 high and 0.5 wide
    has its rim points 0.25 m from its axis and its end centres 1 m above and below its centre, each 1 cm inside (the
    stored registry's cylinder is 2 m high at scale 1, MCS 0.7.4's 1 m: the points follow the catalog's box)."""
    sim.start_scene(scene({"id": "cyl", "type": "cylinder", "kinematic": True,
                           "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 1, "z": 3},
                                      "scale": {"x": 0.5, "y": 2, "z": 0.5}}]}))
    points = _points_of(sim, "cyl") - [0.0, 1.0, 3.0]
    assert len(points) == 26
    assert np.isclose(points[:, 1].max(), 1 - REGISTRY_INSET) and np.isclose(points[:, 1].min(), REGISTRY_INSET - 1)
    assert np.isclose(np.linalg.norm(points[:, [0, 2]], axis=1).max(), 0.25 - REGISTRY_INSET)


def test_a_toy_vehicle_lying_across_its_registry_entry_keeps_the_generic_points(sim):
    """The stored registry's toy cars lie along z, the catalog's (MCS 0.7.4's) along x: their registry points would
    land on the wrong sides, so such a type keeps the generic corners and face centres of its parts."""
    sim.start_scene(scene({"id": "car", "type": "car_1", "kinematic": True,
                           "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 2}}]}))
    points = _points_of(sim, "car")
    assert len(points) != 10 and len(points) % 14 == 0


def test_a_long_objects_registry_points_stay_at_its_ends(sim):
    """MCS's registry points are children of the object at its surface: a 3 m cube (a seesaw plank, a long
    occluder) is seen by the corners of an end 5 cm inside the image's edge, where points pulled a tenth of its
    half-length in (0.15 m) would lie outside the image. Only SAMPLE_INSET of small boxes is kept."""
    edge = 2.0 * np.tan(np.radians(30.26))  # the image's right edge 2 m ahead (horizontal half-angle of 600 x 400)
    plank = {"id": "plank", "type": "cube", "kinematic": True,
             "shows": [{"stepBegin": 0, "position": {"x": edge - 0.05 + 1.5, "y": 0.1, "z": 2.0},
                        "scale": {"x": 3.0, "y": 0.2, "z": 0.2}}]}
    out = sim.start_scene(scene(plank))
    assert obj(out, "plank").visible
    assert sim.step("PushObject", objectId="plank").return_status != "NOT_VISIBLE"
    points = registry_points("cube", np.array([3.0, 0.2, 0.2]), np.zeros(3))
    assert np.isclose(points[:, 0].max(), 1.5 - REGISTRY_INSET) and np.isclose(points[:, 1].max(), 0.1 * SAMPLE_INSET)


def test_types_only_the_newest_registries_describe_take_their_points(sim):
    """A chair_3, a sofa_3 and a tie_fighter take the points of the newest stored registries (14, 46 and 26: their
    Addressables entries), not the generic corners and face centres of their parts; a toy bus whose registry frame
    lies across its catalog box keeps the generic points."""
    objects = [{"id": kind, "type": kind, "kinematic": True,
                "shows": [{"stepBegin": 0, "position": {"x": 2.5 * i - 4, "y": 0, "z": 4}}]}
               for i, kind in enumerate(("chair_3", "sofa_3", "tie_fighter", "bus_1"))]
    sim.start_scene(scene(*objects))
    assert [len(_points_of(sim, kind)) for kind in ("chair_3", "sofa_3", "tie_fighter")] == [14, 46, 26]
    assert registry_points("bus_1", np.array([0.52, 0.28, 0.28]), np.zeros(3)) is None


def test_a_version_1_scene_takes_a_sofas_legacy_points(sim):
    """MCSMain uses an entry's legacy block in scenes of that block's version: a sofa_1 in a version 1 scene is seen
    by its legacy points, in a version 2 scene (or one without a version) by its entry's own, which lie elsewhere."""
    sofa = {"id": "sofa", "type": "sofa_1", "kinematic": True,
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 3}}]}
    points = {}
    for version in (1, 2, None):
        sim.start_scene(scene(sofa, **({} if version is None else {"version": version})))
        points[version] = _points_of(sim, "sofa")
    assert len(points[1]) == len(points[2]) == 46
    assert np.allclose(points[2], points[None]) and not np.allclose(points[1], points[2], atol=0.01)


def _bowl_with_apple(distance: float) -> dict:
    """A bowl_6 on the floor with a half-size apple lying in it, `distance` metres ahead of the performer, who looks
    20 degrees down."""
    bowl = {"id": "bowl", "type": "bowl_6", "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": distance}}]}
    apple = {"id": "apple", "type": "apple_1",
             "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.05, "z": distance},
                        "scale": {"x": 0.5, "y": 0.5, "z": 0.5}}]}
    return scene(bowl, apple, tilt=20)


def test_an_apple_in_a_bowl_is_seen_over_the_prefabs_low_rim(sim):
    """An AI2-THOR bowl's colliders (its prefab's, which MCS's registry entry names) end 0.083 m up, a quarter below
    its 0.109 m bounding box: from 1.7 m the sight line to the top of an apple lying in it passes over the near rim,
    so the apple is seen, where walls up to the box's top would hide it (from 2 m the rim hides it)."""
    sim.start_scene(_bowl_with_apple(1.7))
    out = run(sim, 5)[-1]
    assert obj(out, "apple").visible
    assert obj(out, "apple").position["y"] < 0.04  # it lies on the bowl's base, below the rim
    sim.start_scene(_bowl_with_apple(2.0))
    assert not obj(run(sim, 5)[-1], "apple").visible


def test_a_bowl_is_seen_by_its_prefabs_visibility_points(sim):
    """A type the registries give no points keeps its prefab's: a bowl_6 has eight around its rim and one on its
    base (SimObjPhysics.VisibilityPoints of Bowl_6), not the corners and face centres of its 20 collider boxes."""
    sim.start_scene(_bowl_with_apple(2.0))
    points = _points_of(sim, "bowl")
    assert len(points) == 9
    rim = points[points[:, 1] > 0.05]
    assert len(rim) == 8 and np.ptp(rim[:, 1]) < 1e-6


def _ball_in_channel(turn: float) -> dict:
    """A soccer ball resting on the floor of a 1 m container_symmetric_03 (placed in it as the scene generator does,
    by locationParent) 2 m ahead, the container turned `turn` degrees."""
    container = {"id": "container", "type": "container_symmetric_03", "kinematic": True,
                 "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 2},
                            "rotation": {"x": 0, "y": turn, "z": 0}}]}
    ball = {"id": "ball", "type": "soccer_ball", "kinematic": True, "locationParent": "container",
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.215, "z": 0}}]}
    return scene(container, ball)


def test_a_ball_in_a_support_container_is_seen_through_its_open_front_only(sim):
    """A support-relations container is a channel between two blocks, closed at its ends only by a low lip, so a
    ball in it is seen from in front at eye level below its 1 m top; turned a quarter, a block stands between."""
    sim.start_scene(_ball_in_channel(0.0))
    out = run(sim, 2)[-1]
    assert obj(out, "ball").visible and obj(out, "ball").position["y"] == pytest.approx(0.215, abs=1e-3)
    sim.start_scene(_ball_in_channel(90.0))
    assert not obj(run(sim, 2)[-1], "ball").visible


def test_an_agent_is_seen_by_its_registry_points_on_its_scaled_model(sim):
    """MCS's registry gives every agent 40 points, 8 around each of 5 rings up its 0.5 x 1.6 x 0.5 box; its model is
    scaled to 0.6 of that box, so the rings have a radius of 0.15 m and the top one is 0.96 m up, each pulled in 1 cm
    as registry points are. An agent type the stored registry does not list takes the same points."""
    for kind in ("agent_female_01", "agent_male_08"):
        sim.start_scene(scene({"id": "agent", "type": kind,
                               "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 2}}]}))
        points = _points_of(sim, "agent")
        assert len(points) == 40
        radius = np.hypot(points[:, 0], points[:, 2] - 2.0)
        assert radius.max() == pytest.approx(0.15 - REGISTRY_INSET, abs=1e-3)
        assert points[:, 1].max() == pytest.approx(0.96 - REGISTRY_INSET, abs=2e-3) and points[:, 1].min() > 0


def test_a_trophy_is_solid_as_its_registry_box_and_drawn_as_its_catalog_shape(sim):
    """A trophy's collider is its registry entry's box, 0.19 m wide: a ray at the height of its thin stem, 7 cm beside
    its axis, meets it; its look (base, stem and cup) is drawn but met by no ray and touches nothing."""
    shown = {"id": "trophy", "type": "trophy", "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 1}}]}
    sim.start_scene(scene(shown))
    world = sim.world
    trophy = world.by_id["trophy"]
    origin = np.array([0.07, 0.0, 0.12])  # MuJoCo axes: x, forward, up
    (geom,), (dist,) = world.rays(origin, np.array([[0.0, 1.0, 0.0]]), 5.0)
    assert geom in trophy.geom_ids and dist == pytest.approx(1.0 - 0.07, abs=0.005)
    assert trophy.look_geom_ids and not world.drawn[trophy.geom_ids].any() and world.drawn[trophy.look_geom_ids].all()
    assert (world.model.geom_group[trophy.look_geom_ids] == GROUP_LOOK).all()
    assert not world.model.geom_contype[trophy.look_geom_ids].any()
    (beside,), _ = world.rays(origin + np.array([0.03, 0.0, 0.0]), np.array([[0.0, 1.0, 0.0]]), 5.0)
    assert beside not in trophy.geom_ids  # 10 cm beside the axis: past the box


def test_the_lip_of_a_support_container_hides_what_lies_low_behind_it(sim):
    """The support containers' prefabs close the ends of the opening with a lip 0.1 m high: a 0.1 m ball on the floor
    of a container raised so that it lies level with the camera is hidden by the lip 2 m ahead; on the floor,
    where the sight line drops over the lip, it is seen."""
    for raised, seen in ((0.6, False), (0.0, True)):
        container = {"id": "container", "type": "container_symmetric_03", "kinematic": True,
                     "shows": [{"stepBegin": 0, "position": {"x": 0, "y": raised, "z": 2}}]}
        ball = {"id": "ball", "type": "soccer_ball", "kinematic": True, "locationParent": "container",
                "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.155, "z": 0},
                           "scale": {"x": 0.4545, "y": 0.4545, "z": 0.4545}}]}
        sim.start_scene(scene(container, ball))
        assert obj(sim.last_output, "ball").visible is seen


def test_a_raised_lid_hides_what_is_behind_its_top(sim):
    """A chest's lid swung up stands 0.97 m tall, above the chest's closed box: what lies behind its top is hidden
    (rays meet the moved lid, not only the box it was built in), and is seen over the closed chest."""
    floating = ball("target", z=1.0, diameter=0.1, kinematic=True)
    floating["shows"][0]["position"]["y"] = 0.8
    out = sim.start_scene(scene(chest(z=1.0), floating))
    assert obj(out, "target").visible is True
    out = sim.step("OpenObject", objectId="chest")
    assert out.return_status == "SUCCESSFUL"
    assert obj(out, "target").visible is False
    out = sim.step("CloseObject", objectId="chest")
    assert obj(out, "target").visible is True


def _cube_ahead(object_id: str, near_face: float) -> dict:
    """A 1 x 0.5 x 1 m kinematic cube on the floor straight ahead of a performer at the origin, its near face
    `near_face` metres away."""
    return {"id": object_id, "type": "cube", "kinematic": True,
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.25, "z": near_face + 0.5},
                       "scale": {"x": 1, "y": 0.5, "z": 1}}]}


@pytest.mark.parametrize("near_face, seen", [(13.9, True), (14.3, False)])
def test_objects_are_seen_within_mcs_sight_range_of_the_body(sim, near_face, seen):
    """MCS only tests objects with a collider within 14.15 m of the body's axis: a cube whose near face is 14.3 m
    away is not seen, though its bounding sphere reaches within 14.15 m of the camera and nothing hides it."""
    out = sim.start_scene(scene(_cube_ahead("cube", near_face), roomDimensions={"x": 40, "y": 3, "z": 40}))
    assert obj(out, "cube").visible is seen


@pytest.mark.parametrize("diameter, z, seen", [(0.1, 2.5, False), (0.4, 2.8, True)])
def test_a_rectangular_tool_hides_what_its_plank_covers(sim, diameter, z, seen):
    """A tool_rect's 0.3 m box is seen past, but its prefab's plank (0.05-0.15 m over the floor) hides a small ball
    just behind it from a performer standing 2 m before it; a larger ball behind it is seen over the plank."""
    tool = {"id": "tool", "type": "tool_rect_0_75_x_4_00",
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.15, "z": 2.0}, "rotation": {"x": 0, "y": 90, "z": 0}}]}
    out = sim.start_scene(scene(tool, ball("target", z=z, diameter=diameter)))
    assert obj(out, "tool").visible is True
    assert obj(out, "target").visible is seen
