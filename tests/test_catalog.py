"""Tests of the object catalog (mcs_plugin.sim.catalog) and the material colours (mcs_plugin.sim.materials)."""
from __future__ import annotations

import csv
import glob
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from mcs_plugin.sim import catalog
from tests.sim_scenes import scene
from mcs_plugin.sim.catalog import (
    MESH_KINDS,
    PART_KINDS,
    PART_ROLES,
    Part,
    UnknownObjectTypeError,
    get_object_type,
    mesh_vertices,
    object_type_names,
    parse_tool_type,
    part_bounds,
    prefabs,
)
from mcs_plugin.sim.materials import (
    NEUTRAL_GREY,
    color_name_rgb,
    material_color_names,
    material_names,
    material_rgb,
)

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "mcs_plugin" / "sim" / "data"
SCENE_FILES = sorted(glob.glob(str(ROOT / "tests/data/scenes/*.json"))) + sorted(
    glob.glob(str(ROOT / "tests/data/conformance/data/*.scene.json"))
)
TOL = 1e-9
PREFAB_TYPES = frozenset(name for prefab in prefabs() for name in prefab["types"])


def _csv_types() -> list[str]:
    with open(DATA / "object_types.csv", encoding="utf-8-sig") as handle:
        return [row["type"] for row in csv.DictReader(handle)]


def _scene_types() -> set[str]:
    types: set[str] = set()
    for path in SCENE_FILES:
        text = Path(path).read_text(encoding="utf-8-sig")
        types.update(re.findall(r'"type"\s*:\s*"([^"]*)"', text))
    return types


# ------------------------------------------------------------------------------------------------
# Every type
# ------------------------------------------------------------------------------------------------
def test_csv_has_all_478_types_and_catalog_covers_them():
    csv_types = _csv_types()
    assert len(csv_types) == 478
    names = set(object_type_names())
    assert set(csv_types) <= names
    assert object_type_names() == sorted(names)


def test_every_type_loads_with_parts_inside_its_bounds():
    for name in object_type_names():
        otype = get_object_type(name)
        assert otype.name == name
        assert otype.mass > 0, name
        assert all(v > 0 for v in otype.size), name
        assert 0.0 <= otype.position_y_on_floor <= otype.size[1] + TOL, name
        assert otype.shape, name
        assert len(otype.parts) >= 1, name
        lo, hi = np.array(otype.bounds_min), np.array(otype.bounds_max)
        assert np.allclose(hi - lo, otype.size)
        union_lo, union_hi = np.full(3, np.inf), np.full(3, -np.inf)
        for part in otype.parts:  # (the union below: the drawn parts, which fill the box)
            assert isinstance(part, Part)
            assert part.kind in PART_KINDS, (name, part.kind)
            assert part.role in PART_ROLES, (name, part.role)
            assert all(v > 0 for v in part.size), (name, part)
            p_lo, p_hi = part_bounds(part)
            # a prefab's BoundingBox may miss its colliders by a centimetre or two (Bowl_4's walls rise 7.5 mm above it
            # once raised onto the origin, table_1's top reaches 1.6 cm past its registry box), and a registry's
            # receptacle trigger box is the space above a table or cup; registry colliders (chair_2's splayed legs)
            # may stand out of the box a little too
            if name in PREFAB_TYPES or part.role in ("collider", "trigger"):
                assert part.role == "trigger" or (np.all(p_lo >= lo - 0.02) and np.all(p_hi <= hi + 0.02)), (name, part)
            else:
                assert np.all(p_lo >= lo - TOL) and np.all(p_hi <= hi + TOL), (name, part)
            if part.role not in ("collider", "trigger"):
                union_lo, union_hi = np.minimum(union_lo, p_lo), np.maximum(union_hi, p_hi)
        # the parts fill the bounding box (agents: a narrower torso in z; AI2-THOR prefabs: their colliders, which
        # leave parts of the visual mesh out; doors: Door4.prefab's 0.056 m panel in the 0.1 m wall the box spans)
        if name in PREFAB_TYPES or otype.family == "door":
            continue
        if otype.family == "agent":
            assert np.isclose(union_lo[1], lo[1]) and np.isclose(union_hi[1], hi[1]), name
        else:
            assert np.allclose(union_lo, lo, atol=1e-6) and np.allclose(union_hi, hi, atol=1e-6), name


def test_affordance_invariants_for_every_type():
    for name in object_type_names():
        otype = get_object_type(name)
        if otype.pickupable:
            assert otype.moveable, name
        if otype.is_agent:
            assert not otype.moveable and not otype.pickupable, name
        if otype.openable and otype.family == "container":
            assert [p for p in otype.parts if p.role == "lid"], name
        for part in otype.parts:
            if part.role in ("lid", "door", "drawer"):
                assert part.open_center is not None and part.open_size is not None, (name, part)


def test_types_used_by_test_scenes_are_known():
    types = _scene_types()
    assert len(types) > 50
    unknown = sorted(t for t in types if not catalog.is_known_type(t))
    assert unknown == []
    for name in types:
        get_object_type(name)


def test_catalog_is_cached():
    assert get_object_type("chest_1") is get_object_type("chest_1")


# ------------------------------------------------------------------------------------------------
# Specific types
# ------------------------------------------------------------------------------------------------
def test_apples_have_their_origin_at_the_centre():
    """Unity's apple prefabs (IT 151, 152), unlike the generator data's 0.03 m."""
    for name in ("apple_1", "apple_2"):
        apple = get_object_type(name)
        assert apple.position_y_on_floor == pytest.approx(apple.size[1] / 2)
        assert apple.bounds_center == pytest.approx((0.0, 0.0, 0.0))


def test_bowls_have_their_origin_at_the_bottom():
    """Unity's bowl prefabs (IT 166), unlike the generator data's 0.005 m."""
    for name in ("bowl_3", "bowl_4", "bowl_6", "bowl_6_static"):
        assert get_object_type(name).position_y_on_floor == 0.0


def test_a_prefab_types_box_is_its_prefabs_bounding_box_around_its_colliders():
    """Bowl_6's catalog box is the size of its prefab's BoundingBox and holds its colliders: the base and two rings
    of eight slanted wall boxes, the walls ending 0.083 m up; its receptacle trigger box is the prefab's one."""
    for prefab in prefabs():
        for name in prefab["types"]:
            otype = get_object_type(name)
            assert otype.size == pytest.approx(prefab["bounding_box"]["size"], rel=0.01), name
    bowl = get_object_type("bowl_6")
    walls = bowl.parts_with_role("body")
    assert len(walls) == 20 and len(bowl.parts_with_role("trigger")) == 1
    top = max(part_bounds(part)[1][1] for part in walls)
    assert top == pytest.approx(0.0826 + 0.0005, abs=1e-3) and top < 0.8 * bowl.size[1]
    assert min(part_bounds(part)[0][1] for part in walls) == pytest.approx(0.0)  # raised onto its origin
    (trigger,) = get_object_type("cup_6_static").parts_with_role("trigger")  # its registry entry's, over the cup
    assert part_bounds(trigger)[0][1] > get_object_type("cup_6_static").size[1]
    (apple,) = get_object_type("apple_1").parts  # Apple_1's CapsuleCollider, its origin near its centre
    assert apple.kind == "capsule" and apple.size[0] == pytest.approx(2 * 0.053, abs=1e-4)
    assert part_bounds(apple)[0][1] == pytest.approx(-0.0512, abs=1e-4)


def test_soccer_ball():
    ball = get_object_type("soccer_ball")
    assert ball.size == pytest.approx((0.22, 0.22, 0.22))
    assert ball.shape == "ball"
    assert ball.pickupable and ball.moveable and ball.physics
    assert not ball.receptacle and not ball.openable
    assert ball.position_y_on_floor == pytest.approx(0.11)
    assert ball.mass == pytest.approx(1.0)  # MCS's registry (and the recorded outputs), not the doc's 0.5
    (part,) = ball.parts
    assert part.kind == "sphere"
    assert part.center == pytest.approx((0.0, 0.0, 0.0))  # origin at the ball's centre
    assert part.size == pytest.approx((0.22, 0.22, 0.22))
    assert ball.bounds_min[1] == pytest.approx(-0.11)


def test_a_type_without_a_scene_mass_weighs_what_mcs_registry_gives_it(sim):
    """MCS's AssignRigidbody takes the scene's mass, else the registry entry's: beds 20-30 kg (the documentation's 50),
    shelf_1 20 kg; the reported mass follows, and a scene's own mass wins."""
    assert [get_object_type(f"bed_{i}").mass for i in range(1, 7)] == [20, 25, 25, 30, 20, 30]
    assert get_object_type("shelf_1").mass == 20 and get_object_type("cart_2").mass == 1
    beds = [{"id": f"bed{i}", "type": "bed_1", "shows": [{"stepBegin": 0, "position": {"x": 3 * i - 1.5, "y": 0, "z": 3}}],
             **({"mass": 40} if i else {})} for i in (0, 1)]
    output = sim.start_scene(scene(*beds))
    assert {o.uuid: o.mass for o in output.object_list} == {"bed0": 20, "bed1": 40}


def test_a_type_without_scene_materials_reports_its_registry_entrys(sim):
    """MCSMain gives an object its registry entry's salientMaterials unless the scene gives its own: a chest reports
    WOOD, a chair_6 FABRIC and WOOD, a primitive cube (no registry materials) UNDEFINED; a scene's list wins."""
    objects = [{"id": name, "type": kind, "shows": [{"stepBegin": 0, "position": {"x": x, "y": 0, "z": 3}}], **extra}
               for name, kind, x, extra in (("chest", "chest_1", -2, {}), ("chair", "chair_6", 0, {}),
                                            ("cube", "cube", 2, {}), ("plastic", "chest_1", 4, {"salientMaterials": ["plastic"]}))]
    output = sim.start_scene(scene(*objects))
    assert {o.uuid: o.material_list for o in output.object_list} == {
        "chest": ["WOOD"], "chair": ["FABRIC", "WOOD"], "cube": ["UNDEFINED"], "plastic": ["PLASTIC"]}


def test_chest_is_a_closed_box_with_a_hinged_lid():
    chest = get_object_type("chest_1")
    assert chest.openable and chest.receptacle
    assert not chest.moveable and not chest.pickupable
    assert chest.shape == "chest"
    assert chest.mass == pytest.approx(15.0)
    assert chest.position_y_on_floor == 0.0
    lids = chest.parts_with_role("lid")
    assert len(lids) == 1
    lid = lids[0]
    x, y, z = chest.size
    # the lid covers the whole top
    assert lid.size[0] == pytest.approx(x) and lid.size[2] == pytest.approx(z)
    assert lid.center[1] + lid.size[1] / 2 == pytest.approx(y)
    # hinge along the top back (-z) edge; the open lid stands up behind the opening
    assert lid.hinge == pytest.approx((0.0, y, -z / 2))
    assert lid.open_center[1] > y
    walls = chest.parts_with_role("wall")
    floors = chest.parts_with_role("floor")
    assert len(walls) == 4 and len(floors) == 1
    # walls reach up to the underside of the lid: a closed chest is sealed
    wall_top = max(w.center[1] + w.size[1] / 2 for w in walls)
    assert wall_top == pytest.approx(lid.center[1] - lid.size[1] / 2)


def test_table_2_has_four_legs_and_a_top():
    table = get_object_type("table_2")
    legs = table.parts_with_role("leg")
    assert len(legs) == 4
    (top,) = table.parts_with_role("top")
    assert top.center[1] + top.size[1] / 2 == pytest.approx(table.size[1])
    assert all(leg.center[1] - leg.size[1] / 2 == pytest.approx(0.0) for leg in legs)
    assert table.moveable and table.receptacle and not table.pickupable
    assert table.position_y_on_floor == 0.0


def test_table_1_chair_1_and_bed_1_take_their_mcs_prefabs_colliders():
    """table_1 (MCS's Long_Table_2 prefab): a 0.7 x 1.655 m top 0.884 m up on four thin legs set 0.2-0.25 m in from
    its ends, the registry's box (0.69 x 0.88 x 1.63) and its trigger box, the metre of space above the top; chair_1
    (ChairWood) faces +x, its backrest on its -x side; bed_1 (Bed_2) has its headboard on its +z side and open space
    under its mattress, and no trigger box (its prefab's is a nested prefab of unknown scale)."""
    table = get_object_type("table_1")
    assert table.size == pytest.approx((0.69, 0.88, 1.63))
    body = table.parts_with_role("body")
    top = max(body, key=lambda part: part.size[0] * part.size[2])
    assert part_bounds(top)[1][1] == pytest.approx(0.884, abs=2e-3)
    legs = [part for part in body if part is not top]
    assert len(legs) == 4 and max(abs(leg.center[2]) for leg in legs) < 0.6 < top.size[2] / 2
    (trigger,) = table.parts_with_role("trigger")
    assert part_bounds(trigger)[0][1] == pytest.approx(0.875, abs=2e-3) and trigger.size[1] == pytest.approx(1.0)
    chair = get_object_type("chair_1")
    back = max(chair.parts_with_role("body"), key=lambda part: part_bounds(part)[1][1])
    assert back.center[0] < -0.15 and abs(back.center[2]) < 0.01
    bed = get_object_type("bed_1")  # MCS's Bed_2: mattress on four legs, headboard on its +z side
    headboard = max(bed.parts_with_role("body"), key=lambda part: part_bounds(part)[1][1])
    assert headboard.center[2] > 0.9 and part_bounds(headboard)[1][1] == pytest.approx(0.918, abs=2e-3)
    assert min(part_bounds(part)[0][1] for part in bed.parts if part.size[0] > 1.0) == pytest.approx(0.24, abs=2e-3)
    assert not bed.parts_with_role("trigger")
    (block,) = get_object_type("table_3").parts_with_role("body")  # AI2-THOR's DecorativeTable: one solid box
    assert part_bounds(block)[1][1] == pytest.approx(0.833, abs=1e-3)


def test_a_lidded_container_is_built_at_the_closed_size_the_generator_notes():
    """The scene generator's active dimensions of chests, cases, crates and toolboxes are their opened state (the lid
    swung out behind), which MCS's documentation copies; the closed size it notes beside them is the box's: toolbox_4
    0.09 m deep, not 0.116; chest_4 0.34, not 0.6. A lidded box's lid spans that depth."""
    assert get_object_type("toolbox_4").size == pytest.approx((0.13, 0.036, 0.09))
    chest = get_object_type("chest_4")
    assert chest.size == pytest.approx((0.72, 0.35, 0.34))
    (lid,) = chest.parts_with_role("lid")
    assert lid.size[2] == pytest.approx(0.34)


def test_a_separate_containers_inside_is_the_generators_enclosed_area():
    """The scene generator gives separate_container an enclosed area 0.9 x 0.96 x 0.9 from 0.04 m up in its 1 m box:
    a floor 0.04 m thick under walls 0.05 m thick that reach the rim."""
    parts = get_object_type("separate_container").parts
    (floor,) = [part for part in parts if part.role == "floor"]
    assert part_bounds(floor)[1][1] == pytest.approx(0.04)
    walls = [part for part in parts if part.role == "wall"]
    assert len(walls) == 4 and all(min(wall.size[0], wall.size[2]) == pytest.approx(0.05) for wall in walls)
    assert all(part_bounds(wall)[1][1] == pytest.approx(1.0) for wall in walls)


def test_a_support_container_is_a_channel_between_the_blocks_its_placers_hold():
    """container_asymmetric_06 (the generator's 1.4 x 1 x 1 body, enclosed area 1 m wide and 0.8 m deep with its
    floor 0.105 m up, placers at x +-0.6 meeting it 0.4 m and 0 m below its top) as its prefab builds it: a floor
    0.1 m thick under an opening 1 m wide, open at the top, between a block 0.6 m tall at +x and one 1 m tall at -x,
    with a lip 0.1 m deep and 0.1 m high across each end of the opening; container_asymmetric_10's opening lies
    0.1 m off centre, its blocks 0.4 and 0.2 m wide."""
    parts = get_object_type("container_asymmetric_06").parts
    (floor,) = [part for part in parts if part.role == "floor"]
    assert part_bounds(floor)[1][1] == pytest.approx(0.1)
    walls = [part for part in parts if part is not floor]
    blocks = sorted((part for part in walls if part.size[2] == pytest.approx(1.0)), key=lambda part: part.center[0])
    assert [part_bounds(block)[1][1] for block in blocks] == pytest.approx([1.0, 0.6])
    assert [block.size[0] for block in blocks] == pytest.approx([0.2, 0.2])
    lips = sorted((part for part in walls if part not in blocks), key=lambda part: part.center[2])
    assert [part_bounds(lip)[0][2] for lip in lips] == pytest.approx([-0.5, 0.4])
    assert all(part_bounds(lip)[0][1] == pytest.approx(0.1) and part_bounds(lip)[1][1] == pytest.approx(0.2)
               and lip.size[0] == pytest.approx(1.0) for lip in lips)
    blocks = [part for part in get_object_type("container_asymmetric_10").parts_with_role("wall")
              if part.size[2] == pytest.approx(1.0)]
    assert sorted(block.size[0] for block in blocks) == pytest.approx([0.2, 0.4])


def test_chairs_sofas_and_shelves():
    chair = get_object_type("chair_10")
    assert len(chair.parts_with_role("leg")) == 4
    assert len(chair.parts_with_role("seat")) == 1
    (back,) = chair.parts_with_role("back")
    assert back.center[2] < 0  # backs at -z, the front faces +z
    sofa = get_object_type("sofa_1")
    assert sofa.parts_with_role("seat") and sofa.parts_with_role("back")
    bookcase = get_object_type("bookcase_3_shelf")
    assert bookcase.child_components == ("bottom", "shelf_1", "shelf_2", "shelf_3")
    assert len(bookcase.parts_with_role("side")) == 2
    assert not get_object_type("bookcase_3_shelf_sideless").parts_with_role("side")
    changing = get_object_type("changing_table")
    assert set(changing.child_components) == {
        "drawer_top", "drawer_bottom", "shelf_top", "shelf_middle", "shelf_bottom",
    }
    assert not changing.openable and changing.receptacle  # IT 154: NOT_OPENABLE on the table itself


def test_sofa_seats_lie_at_their_open_area():
    """A sofa's drawn seat top is at the height of the generator's open area and its back stands on the side away
    from the area (sofa_8's area lies towards -z); the area is its trigger box where the registries give it none
    (sofa_8), else the registry entry's box is (sofa_2: 1.95 x 0.625 m from 0.6 m up, 0.15 m towards its front)."""
    for name, height, trigger_bottom, side in (("sofa_2", 0.59, 0.6, 1), ("sofa_8", 0.5, 0.5, -1)):
        parts = get_object_type(name).parts
        seat = next(p for p in parts if p.role == "seat")
        back = next(p for p in parts if p.role == "back")
        trigger = next(p for p in parts if p.role == "trigger")
        assert seat.center[1] + seat.size[1] / 2 == pytest.approx(height)
        assert trigger.center[1] - trigger.size[1] / 2 == pytest.approx(trigger_bottom)
        assert back.center[2] * side < 0 < trigger.center[2] * side
    (trigger,) = get_object_type("sofa_2").parts_with_role("trigger")
    assert (trigger.center[2], trigger.size[0], trigger.size[2]) == pytest.approx((0.15, 1.95, 0.625))


def test_open_top_containers_have_no_lid():
    otype = get_object_type("separate_container")
    assert not otype.parts_with_role("lid")
    assert otype.parts_with_role("floor") and len(otype.parts_with_role("wall")) == 4
    assert not get_object_type("container_asymmetric_01").parts_with_role("lid")
    for name in ("bowl_3", "cup_6_static", "plate_1"):  # their prefabs' collider boxes
        assert not get_object_type(name).parts_with_role("lid") and get_object_type(name).parts_with_role("body")
    static = get_object_type("bowl_3_static")
    assert static.receptacle and not static.pickupable and not static.moveable
    assert static.mass == pytest.approx(get_object_type("bowl_3").mass)


def test_door_and_turntable():
    door = get_object_type("door_4")
    assert door.openable and door.kinematic_default and not door.moveable
    assert door.shape == "door"
    (panel,) = door.parts  # Door4.prefab: one panel, no frame (the scene's wall cubes frame it)
    assert panel.role == "door" and panel.hinge_axis == (0.0, 1.0, 0.0)
    assert panel.hinge == pytest.approx((0.425, 0.0, 0.05))  # its +x edge, on the wall's +z face
    assert panel.size == pytest.approx((0.85, 2.0, 0.056))
    assert panel.open_center == pytest.approx((0.85, 1.0, 0.1))  # turned 180 degrees, flat against that face
    assert door.size == pytest.approx((0.85, 2.0, 0.1))
    cog = get_object_type("rotating_cog")
    assert cog.is_structural_default and cog.kinematic_default
    assert cog.mass == pytest.approx(10.0)
    assert cog.position_y_on_floor == pytest.approx(cog.size[1] / 2)


def test_agents_and_blobs():
    agent = get_object_type("agent_male_02")
    assert agent.is_agent and agent.shape == "agent"
    assert not agent.moveable and not agent.pickupable
    assert agent.mass == pytest.approx(80.0)
    assert agent.size == pytest.approx((0.5, 1.6, 0.5))
    (collider,) = agent.parts_with_role("body")  # Unity's CapsuleCollider at the models' 0.6 scale
    assert collider.kind == "capsule" and collider.size == pytest.approx((0.3, 0.96, 0.3))
    assert collider.center == pytest.approx((0.0, 0.48, 0.0))
    assert sorted(p.kind for p in agent.parts_with_role("shell")) == ["box", "sphere"]
    blob = get_object_type("blob_10")
    (body,) = blob.parts
    assert body.kind == "sphere" and body.size == pytest.approx(blob.size)


def test_primitives_and_ramps():
    cube = get_object_type("cube")
    assert cube.shape == "cube" and cube.physics and not cube.moveable and not cube.pickupable
    assert cube.position_y_on_floor == pytest.approx(0.5)
    assert cube.parts[0].center == pytest.approx((0, 0, 0))
    ramp = get_object_type("triangle")
    assert ramp.parts[0].kind == "triangle_prism"
    with_base = get_object_type("circle_frustum_with_base")
    assert sorted(p.kind for p in with_base.parts) == ["box", "circle_frustum"]
    tube = get_object_type("tube_wide")
    assert len([p for p in tube.parts if p.look]) == 4  # drawn hollow: four walls around the hole
    ring = tube.parts_with_role("collider")  # solid: the registry's ring of 24 boxes, its hole 0.9 m across
    assert len(ring) == 24
    assert min(np.hypot(p.center[0], p.center[2]) - p.size[2] / 2 for p in ring) == pytest.approx(0.45, abs=1e-6)
    block = get_object_type("block_blank_wood_cylinder")
    assert block.shape == "blank block cylinder" and block.parts[0].kind == "cylinder"


# ------------------------------------------------------------------------------------------------
# Tools
# ------------------------------------------------------------------------------------------------
def test_tool_names_parse_width_and_length():
    assert parse_tool_type("tool_rect_0_75_x_5_00") == ("rect", 0.75, 5.0)
    assert parse_tool_type("tool_hooked_1_00_x_8_00") == ("hooked", 1.0, 8.0)
    assert parse_tool_type("tool_isosceles_0_50_x_4_00") == ("isosceles", 0.5, 4.0)
    assert parse_tool_type("tool_big_1_00_x_39_00") == ("big", 1.0, 39.0)
    assert parse_tool_type("tool_rect_1_13_x_9_00") == ("rect", 1.13, 9.0)
    assert parse_tool_type("soccer_ball") is None


@pytest.mark.parametrize("name", [n for n in _csv_types() if n.startswith("tool_")])
def test_every_tool_has_its_named_dimensions(name):
    kind, width, length = parse_tool_type(name)
    tool = get_object_type(name)
    assert tool.shape == "tool"
    assert tool.moveable and not tool.pickupable
    assert tool.size[1] == pytest.approx(0.3)
    assert tool.position_y_on_floor == pytest.approx(0.15)
    assert tool.size[2] == pytest.approx(length)
    if kind in ("rect", "big"):
        assert tool.size[0] == pytest.approx(width)
        assert len([p for p in tool.parts if p.role != "sight"]) == 1
        # tool_rect_*.prefab's colliders hide what lies behind: a plank, a sphere under and a post on each corner
        assert len([p for p in tool.parts if p.role == "sight"]) == (9 if kind == "rect" else 0)
    elif kind == "hooked":
        assert tool.size[0] == pytest.approx(3 * width)
    elif kind == "isosceles":
        assert tool.size[0] == pytest.approx(length)


def test_hooked_tool_layout_matches_it_202():
    """IT 202: hooked 0.75 x 5 at (0.35, -1.3), ball at (0, 0) -> the ball is clear of the shaft and
    in front of the crossbar, so pulling the tool drags the ball."""
    tool = get_object_type("tool_hooked_0_75_x_5_00")
    assert tool.mass == pytest.approx(3.66)
    shaft, bar = sorted(tool.parts, key=lambda p: p.size[2], reverse=True)
    assert shaft.size[0] == pytest.approx(0.75) and shaft.size[2] == pytest.approx(5.0)
    assert shaft.center[0] > 0  # shaft on the +x side
    assert bar.center[2] > 0 and bar.size[2] == pytest.approx(0.75)  # crossbar at the +z end
    origin = np.array([0.35, 0.0, -1.3])
    ball, radius = np.array([0.0, 0.0, 0.0]), 0.11
    lo, hi = (b + origin for b in part_bounds(shaft))
    assert ball[0] + radius < lo[0]  # ball beside the shaft
    lo_bar, hi_bar = (b + origin for b in part_bounds(bar))
    assert lo_bar[0] < ball[0] < hi_bar[0] and ball[2] + radius < lo_bar[2]


# ------------------------------------------------------------------------------------------------
# Errors
# ------------------------------------------------------------------------------------------------
def test_unknown_type_suggests_close_names():
    with pytest.raises(UnknownObjectTypeError) as info:
        get_object_type("soccer_bal")
    error = info.value
    assert isinstance(error, KeyError)
    assert "soccer_ball" in error.suggestions
    assert "soccer_ball" in str(error)
    with pytest.raises(KeyError):
        get_object_type("definitely_not_a_type_xyz")
    assert not catalog.is_known_type("definitely_not_a_type_xyz")


def test_name_lookup_is_forgiving_about_case():
    assert get_object_type("Soccer_Ball").name == "soccer_ball"


# ------------------------------------------------------------------------------------------------
# Meshes
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", list(PART_KINDS) + ["box"])
def test_mesh_vertices_are_unit_and_centred(kind):
    vertices = mesh_vertices(kind)
    assert vertices.ndim == 2 and vertices.shape[1] == 3 and len(vertices) >= 4
    assert np.allclose(vertices.max(axis=0) - vertices.min(axis=0), 1.0)
    assert np.allclose((vertices.max(axis=0) + vertices.min(axis=0)) / 2, 0.0, atol=1e-12)
    vertices[:] = 99.0  # callers get a copy
    assert np.allclose(mesh_vertices(kind).max(axis=0), 0.5)


def test_mesh_shapes():
    assert set(MESH_KINDS) <= set(PART_KINDS)
    cone = mesh_vertices("cone")
    assert np.allclose(cone[cone[:, 1] > 0], [0.0, 0.5, 0.0])  # apex up
    prism = mesh_vertices("triangle_prism")
    top = prism[np.isclose(prism[:, 1], 0.5)]
    assert np.allclose(top[:, 2], 0.5)  # the high edge is at +z
    with pytest.raises(ValueError):
        mesh_vertices("teapot")


def test_part_bounds_with_rotation():
    (bar, _) = get_object_type("letter_x").parts
    lo, hi = part_bounds(bar)
    expected = (bar.size[0] + bar.size[1]) / math.sqrt(2) / 2
    assert hi[0] - bar.center[0] == pytest.approx(expected)
    assert hi[2] - bar.center[2] == pytest.approx(bar.size[2] / 2)


# ------------------------------------------------------------------------------------------------
# Materials
# ------------------------------------------------------------------------------------------------
def test_material_color_names_from_csv():
    assert material_color_names("AI2-THOR/Materials/Plastics/BlueRubber") == ["blue"]
    assert material_color_names("Custom/Materials/Black") == ["black"]
    assert material_color_names("AI2-THOR/Materials/Walls/Drywall") == ["grey", "white"]
    assert material_color_names("Custom/Materials/Cyan") == ["blue", "cyan", "green"]
    assert material_color_names("AI2-THOR/Materials/Ceramics/BrownMarbleFake 1") == ["brown", "orange"]
    assert len(material_names()) == 243


def test_flat_custom_colours_are_reported_own_colour_first():
    from mcs_plugin.sim.materials import reported_color_names

    assert reported_color_names("Custom/Materials/Cyan") == ("cyan", "blue", "green")
    assert reported_color_names("Custom/Materials/Magenta") == ("magenta", "purple", "red")
    assert reported_color_names("Custom/Materials/OrangeDrywallMCS") == ("orange",)


def test_material_lookup_fallbacks():
    assert material_color_names("ai2-thor/materials/plastics/bluerubber") == ["blue"]  # case-insensitive
    assert material_color_names("BlueRubber") == ["blue"]  # last path component
    assert material_color_names("Somewhere/Else/BlueRubber") == ["blue"]
    assert material_color_names("AI2-THOR/Materials/Unknown/NoSuchMaterial") == []
    assert material_color_names("") == []


def test_material_rgb():
    blue = material_rgb("AI2-THOR/Materials/Plastics/BlueRubber")
    assert blue == color_name_rgb("blue")
    assert blue[2] > blue[0] and blue[2] > blue[1]
    black = material_rgb("Custom/Materials/Black")
    assert max(black) < 0.2
    # specific colour names win over the basic ones listed with them
    assert material_rgb("Custom/Materials/Cyan") == color_name_rgb("cyan")
    assert material_rgb("Custom/Materials/Magenta") == color_name_rgb("magenta")
    # several basic names average
    drywall = material_rgb("AI2-THOR/Materials/Walls/Drywall")
    assert drywall == pytest.approx(tuple((a + b) / 2 for a, b in zip(color_name_rgb("grey"), color_name_rgb("white"))))
    # unknown materials: guessed from their name, else neutral grey
    white_wall = material_rgb("AI2-THOR/Materials/Walls/WallDrywallWhite")
    assert min(white_wall) > 0.7
    assert material_rgb("Nothing/Known/Here") == NEUTRAL_GREY
    assert color_name_rgb("no-such-colour") == NEUTRAL_GREY
    for path in material_names():
        rgb = material_rgb(path)
        assert len(rgb) == 3 and all(0.0 <= c <= 1.0 for c in rgb), path
        for name in material_color_names(path):
            assert color_name_rgb(name) != NEUTRAL_GREY or name == "grey", (path, name)


def test_materials_used_by_scenes_resolve():
    paths: set[str] = set()
    for path in SCENE_FILES:
        scene = json.loads(Path(path).read_text(encoding="utf-8-sig"))
        for obj in scene.get("objects", []):
            paths.update(obj.get("materials") or [])
    assert paths
    known = [p for p in paths if material_color_names(p)]
    assert len(known) >= 0.9 * len(paths)


def test_chest_floors_scale_with_height_and_domed_lids_take_the_top():
    """MCS IT 167: a ball in a chest_2 rests 9 % of the chest's height up and is seen over its low walls once the
    domed lid is open; chest_1 (flat lid) keeps high walls."""
    domed = get_object_type("chest_2")
    (floor,) = domed.parts_with_role("floor")
    assert floor.size[1] == pytest.approx(0.09 * domed.size[1])
    (lid,) = domed.parts_with_role("lid")
    assert lid.size[1] == pytest.approx(0.4 * domed.size[1])
    flat = get_object_type("chest_1")
    (flat_lid,) = flat.parts_with_role("lid")
    assert flat_lid.size[1] < 0.15 * flat.size[1]


def test_a_type_whose_registry_lists_colliders_collides_by_them_and_keeps_its_look():
    """MCSMain.AssignColliders builds the colliders a registry entry lists in place of the prefab's: the trophy is one
    0.19 x 0.3 x 0.14 box, a primitive cylinder twelve boxes turned 15 degrees apart (the stored registry's 2 m frame
    laid onto the 1 m catalog cylinder); the catalog's own parts stay as their drawn look. A collider that is the
    catalog's own part (cube, balls) changes nothing, and a toy vehicle lying across its registry frame keeps its box."""
    trophy = get_object_type("trophy")
    (box,) = trophy.parts_with_role("collider")
    assert box.kind == "box" and box.size == pytest.approx((0.19, 0.3, 0.14))
    assert box.center == pytest.approx(trophy.bounds_center)
    look = [part for part in trophy.parts if part.look]
    assert sorted(part.kind for part in look) == ["box", "cylinder", "cylinder"]
    cylinder = get_object_type("cylinder").parts_with_role("collider")
    assert len(cylinder) == 12
    assert sorted(part.rotation[1] for part in cylinder) == pytest.approx([15.0 * k for k in range(12)])
    assert all(part.size == pytest.approx((0.176775, 1.0, 0.98)) for part in cylinder)
    for name in ("cube", "soccer_ball", "car_2"):
        assert not any(part.look or part.role == "collider" for part in get_object_type(name).parts), name


def test_table_8_is_as_tall_as_its_docs_and_registry_entry_say():
    """table_8's generator dims (0.45 m tall) are table_7's; the docs and MCS's registry entry (boundingBox and
    colliders) give 0.71 m: its top collider spans 0.61-0.71 m on four legs."""
    table = get_object_type("table_8")
    assert table.size == pytest.approx((0.65, 0.71, 1.02))
    top = max(table.parts_with_role("collider"), key=lambda part: part.center[1])
    low, high = part_bounds(top)
    assert (low[1], high[1]) == pytest.approx((0.61, 0.71), abs=0.006)


def test_a_type_whose_registry_entry_is_kinematic_is_kinematic_by_default():
    """MCSMain.AssignRigidbody makes an object's rigidbody kinematic when its scene or its registry entry says so:
    tables, sofas, beds and shelves hold still whatever their scene's moveable flag; chairs are moveable and not."""
    for name in ("table_1", "table_8", "sofa_2", "bed_1", "shelf_1", "changing_table"):
        assert get_object_type(name).kinematic_default, name
    for name in ("chair_1", "chest_1", "soccer_ball", "tool_rect_0_75_x_5_00"):
        assert not get_object_type(name).kinematic_default, name
