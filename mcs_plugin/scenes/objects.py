"""Object vocabulary of the scene generator: which catalog types play which role, their materials and the
human-readable words (MCS `info` lists and goal descriptions) that describe them.

Every choice takes an explicit `random.Random`, so a scene is a pure function of its seed.
"""

from __future__ import annotations

import csv
import functools
import io
import math
import random
from dataclasses import dataclass
from typing import Any

from mcs_plugin.sim.catalog import ObjectType, get_object_type
from mcs_plugin.sim.datafiles import data_text
from mcs_plugin.sim.materials import material_color_names

# -- role pools (catalog type names) -------------------------------------------------------------------------
_VEHICLES = [
    "car_1", "car_2", "car_3", "car_4", "racecar_red", "tank_1", "tank_2", "tank_3", "train_1", "train_2",
    "train_3", "trolley_1", "truck_1", "truck_2", "truck_4", "truck_5", "turtle_on_wheels", "duck_on_wheels",
    "duck_on_wheels_2", "dog_on_wheels", "bus_1", "power_shovel", "road_scraper", "roller", "trike", "bobcat",
    "jeep",
]
_BLANK_BLOCKS = [f"block_blank_{c}_{s}" for c in ("blue", "red", "wood", "yellow") for s in ("cube", "cylinder")]
_LETTER_BLOCKS = [f"block_blue_letter_{c}" for c in "abcdms"]
_NUMBER_BLOCKS = [f"block_yellow_number_{n}" for n in range(1, 7)]
_DISHES = ["bowl_3", "bowl_4", "bowl_6", "cup_2", "cup_3", "cup_6", "plate_1", "plate_3", "plate_4"]

#: Small pickupable types a retrieval / transferral target (or a distractor) is drawn from.
TARGET_TYPES: tuple[str, ...] = tuple(
    ["soccer_ball", "soccer_ball", "soccer_ball", "ball", "trophy", "apple_1", "apple_2"]
    + _BLANK_BLOCKS + _LETTER_BLOCKS[:2] + _NUMBER_BLOCKS[:2] + _DISHES + _VEHICLES
)
#: Openable containers (lidded) that can hold a target; all are closed at the start.
CONTAINER_TYPES: tuple[str, ...] = (
    "case_1", "case_2", "case_3", "suitcase_1", "chest_1", "chest_2", "chest_4", "chest_5", "chest_6", "chest_7",
    "chest_9", "toolbox_1", "toolbox_2", "military_case_2", "military_case_4",
)
#: Furniture used as navigation obstacles (and as traversal targets).
FURNITURE_TYPES: tuple[str, ...] = (
    tuple(f"table_{n}" for n in (1, 2, 5, 7, 8, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 25, 27))
    + tuple(f"chair_{n}" for n in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 14, 15, 16, 17, 18))
    + tuple(f"sofa_{n}" for n in (1, 2, 3, 4, 5, 6, 7, 8, 10))
    + tuple(f"sofa_chair_{n}" for n in (1, 4, 5, 6, 7, 10))
    + tuple(f"desk_{n}" for n in (1, 7, 8, 9))
    + ("bookcase_1_shelf", "bookcase_2_shelf", "bookcase_3_shelf", "shelf_1", "shelf_2", "bed_1", "bed_3", "bed_8",
       "crib", "changing_table", "wardrobe", "cart_1")
)
#: Flat-topped receptacles a transferral target_1 can be put *on top of* (the highest part is the top).
ON_TOP_OF_TYPES: tuple[str, ...] = (
    tuple(f"table_{n}" for n in (1, 2, 5, 7, 8, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 25, 27))
    + ("block_blank_blue_cube", "block_blank_red_cube", "block_blank_wood_cube", "block_blank_yellow_cube")
)
#: Receptacles a transferral target_1 can be put *next to* (any receptacle-capable object works).
NEXT_TO_TYPES: tuple[str, ...] = ON_TOP_OF_TYPES + tuple(
    t for t in FURNITURE_TYPES if t.startswith(("chair_", "sofa_", "desk_", "shelf_"))
)
#: Moving objects of intuitive-physics scenes (primitives, as the MCS passive physics scenes use).
IP_OBJECT_TYPES: tuple[str, ...] = (
    "cube", "sphere", "cylinder", "cone", "square_frustum", "circle_frustum", "pyramid", "tube_wide",
)

# -- materials ------------------------------------------------------------------------------------------------
# material list (column generator_lists of material_colors.csv) -> salient material word
_LIST_SALIENT = {
    "WOOD_MATERIALS": "wood", "METAL_MATERIALS": "metal", "PLASTIC_MATERIALS": "plastic",
    "CERAMIC_MATERIALS": "ceramic", "FABRIC_MATERIALS": "fabric", "BLOCK_BLANK_MATERIALS": "wood",
    "BLOCK_LETTER_MATERIALS": "wood", "BLOCK_NUMBER_MATERIALS": "wood", "RUBBER_MATERIALS": "rubber",
    "LEATHER_MATERIALS": "leather", "INTUITIVE_PHYSICS_BLOCK_MATERIALS": "wood",
    "INTUITIVE_PHYSICS_PLASTIC_MATERIALS": "plastic", "INTUITIVE_PHYSICS_METAL_MATERIALS": "metal",
    "INTUITIVE_PHYSICS_WOOD_MATERIALS": "wood", "WALL_MATERIALS": "", "FLOOR_MATERIALS": "",
    "CEILING_MATERIALS": "", "ROOM_WALL_MATERIALS": "",
}




@functools.cache
def material_list(name: str) -> tuple[str, ...]:
    """The materials of one generator list (e.g. 'WOOD_MATERIALS'), in file order."""
    rows = csv.DictReader(io.StringIO(data_text("material_colors.csv")))
    found = tuple(row["material"] for row in rows if name in (row.get("generator_lists") or "").split())
    if not found:
        raise KeyError(f"no materials in generator list {name!r}")
    return found


def _material_lists_for(type_name: str) -> tuple[str, ...]:
    """The generator material lists that suit a type (empty: the type is drawn without a material)."""
    if type_name in ("soccer_ball", "apple_1", "apple_2"):
        return ()
    if type_name.startswith("block_blank_"):
        return ("BLOCK_BLANK_MATERIALS",)
    if type_name.startswith("block_blue_letter_"):
        return ("BLOCK_LETTER_MATERIALS",)
    if type_name.startswith("block_yellow_number_"):
        return ("BLOCK_NUMBER_MATERIALS",)
    if type_name == "ball":
        return ("BLOCK_BLANK_MATERIALS", "PLASTIC_MATERIALS", "RUBBER_MATERIALS", "METAL_MATERIALS")
    if type_name == "trophy":
        return ("METAL_MATERIALS",)
    if type_name.startswith(("bowl_", "cup_", "plate_")):
        return ("CERAMIC_MATERIALS", "METAL_MATERIALS", "PLASTIC_MATERIALS", "WOOD_MATERIALS")
    if type_name in _VEHICLES:
        return ("BLOCK_BLANK_MATERIALS", "WOOD_MATERIALS", "PLASTIC_MATERIALS")
    if type_name.startswith(("case_", "suitcase_", "military_case_")):
        return ("PLASTIC_MATERIALS", "METAL_MATERIALS")
    if type_name.startswith("toolbox_"):
        return ("METAL_MATERIALS",)
    if type_name.startswith(("chest_", "crate_")):
        return ("WOOD_MATERIALS", "METAL_MATERIALS")
    if type_name.startswith(("sofa", "bed_")):
        return ("FABRIC_MATERIALS",)
    if type_name in IP_OBJECT_TYPES:
        return ("INTUITIVE_PHYSICS_BLOCK_MATERIALS", "INTUITIVE_PHYSICS_PLASTIC_MATERIALS",
                "INTUITIVE_PHYSICS_METAL_MATERIALS", "INTUITIVE_PHYSICS_WOOD_MATERIALS")
    return ("WOOD_MATERIALS",)


_FIXED_COLORS = {"soccer_ball": ["black", "white"], "apple_1": ["red"], "apple_2": ["green"]}
_FIXED_SALIENT = {"soccer_ball": "rubber", "apple_1": "food", "apple_2": "food"}


@dataclass(frozen=True)
class Look:
    """How an object looks: its material (or none), salient material word and colour words."""

    material: str | None
    salient: str
    colors: tuple[str, ...]


def choose_look(rng: random.Random, type_name: str, avoid_colors: frozenset[str] = frozenset()) -> Look:
    """A material for a type (from the generator lists that suit it), avoiding the given colours if possible."""
    lists = _material_lists_for(type_name)
    if not lists:
        return Look(None, _FIXED_SALIENT.get(type_name, ""), tuple(_FIXED_COLORS.get(type_name, ())))
    list_name = rng.choice(lists)
    materials = list(material_list(list_name))
    preferred = [m for m in materials if not set(material_color_names(m)) & avoid_colors]
    material = rng.choice(preferred or materials)
    return Look(material, _LIST_SALIENT.get(list_name, ""), tuple(material_color_names(material)))


# -- words ----------------------------------------------------------------------------------------------------
def size_word(size: tuple[float, float, float]) -> str:
    """MCS-style size adjective from the largest dimension (metres)."""
    biggest = max(size)
    for limit, word in ((0.25, "tiny"), (0.5, "small"), (1.0, "medium"), (2.0, "large")):
        if biggest < limit:
            return word
    return "huge"


def weight_word(mass: float) -> str:
    """MCS-style weight adjective from the mass (kg)."""
    return "light" if mass < 2.5 else "heavy" if mass < 50 else "massive"


def info_words(type_name: str, look: Look, scale: dict[str, float], mass: float) -> list[str]:
    """The MCS `info` list of an object: size, weight, colours, material, shape, then the full phrase."""
    otype = get_object_type(type_name)
    size = scaled_size(otype, scale)
    words = [size_word(size), weight_word(mass), *look.colors]
    if look.salient:
        words.append(look.salient)
    words.append(otype.shape)
    return words + [" ".join(words)]


def scaled_size(otype: ObjectType, scale: dict[str, float]) -> tuple[float, float, float]:
    """Bounding size (x, y, z) of a type at a scene scale."""
    return (otype.size[0] * scale["x"], otype.size[1] * scale["y"], otype.size[2] * scale["z"])


def uniform_scale(value: float) -> dict[str, float]:
    """{x, y, z} all equal to `value`, rounded to 4 decimals."""
    v = round(float(value), 4)
    return {"x": v, "y": v, "z": v}


def target_scale(rng: random.Random, type_name: str, low: float = 0.16, high: float = 0.4) -> dict[str, float]:
    """A uniform scale giving a small object a largest dimension in [low, high] m (at least 0.5x its base)."""
    biggest = max(get_object_type(type_name).size)
    wanted = rng.uniform(low, high)
    return uniform_scale(max(0.25, min(4.0, wanted / biggest)))


def scaled_mass(otype: ObjectType, scale: dict[str, float]) -> float:
    """Type mass scaled with the volume (as the MCS generator scales masses), at least 0.1 kg, 4 decimals."""
    factor = scale["x"] * scale["y"] * scale["z"]
    return round(max(0.1, otype.mass * (factor if factor < 1 else math.sqrt(factor))), 4)


def make_object(
    object_id: str,
    type_name: str,
    position: dict[str, float],
    yaw: float,
    look: Look,
    scale: dict[str, float] | None = None,
    mass: float | None = None,
    **flags: Any,
) -> dict[str, Any]:
    """A scene object dict with explicit affordance flags (type defaults), materials, MCS `info` words (ignored by
    the schema, as in MCS-generated scenes) and one show."""
    otype = get_object_type(type_name)
    scale = scale or uniform_scale(1.0)
    mass = scaled_mass(otype, scale) if mass is None else mass
    obj: dict[str, Any] = {
        "id": object_id,
        "type": type_name,
        "mass": mass,
        "materials": [look.material] if look.material else [],
        "salientMaterials": [look.salient] if look.salient else [],
        "info": info_words(type_name, look, scale, mass),
    }
    for flag in ("pickupable", "moveable", "receptacle", "openable"):
        value = flags.pop(flag, getattr(otype, flag))
        if value:
            obj[flag] = True
    obj.update(flags)
    obj["shows"] = [{
        "stepBegin": 0,
        "position": {k: round(float(v), 4) for k, v in position.items()},
        "rotation": {"x": 0.0, "y": round(float(yaw) % 360.0, 4), "z": 0.0},
        "scale": scale,
    }]
    return obj


def uuid_from(rng: random.Random) -> str:
    """A deterministic UUID-4 string drawn from `rng` (MCS object ids are UUIDs)."""
    import uuid

    return str(uuid.UUID(int=rng.getrandbits(128), version=4))
