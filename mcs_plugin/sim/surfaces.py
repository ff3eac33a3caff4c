"""Surface classes of MCS materials (wood, metal, fabric, ...) and the procedural pattern each is drawn with.

The renderer multiplies an object's lit colour by a tone drawn in the fragment shader,

    tone = 1 + amplitude * sin(k1.p + warp * sin(k2.p)) * mix(1, sin(k3.p), cross)

with p the pixel's position in the geom's own frame (metres; axes ordered longest first, so wood grain runs
along a board; a pattern moves with its object),
and adds a Blinn-Phong highlight of the key light (`specular`, `shininess`). The tone averages 1 over a
surface, so the colour MCS reports (``texture_color_list``, from which the base colour comes) stays the
dominant colour. One formula with per-class numbers, not one shader branch per class: llvmpipe would run
every branch for every pixel.

A material path (``AI2-THOR/Materials/Wood/WornWood``) names its class by keyword; objects without scene
materials fall back to their reported ``material_list`` (``WOOD``, ``METAL``...), then to ``plain``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

__all__ = ["SURFACES", "SURFACE_CODES", "Surface", "geom_surfaces", "surface_of"]

Vec3 = tuple[float, float, float]
_ZERO: Vec3 = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Surface:
    """Pattern (wave vectors in rad/m, warp, cross weave, amplitude) and highlight of one surface class."""

    k1: Vec3 = _ZERO
    warp: float = 0.0
    k2: Vec3 = _ZERO
    cross: float = 0.0
    k3: Vec3 = _ZERO
    amplitude: float = 0.0
    specular: float = 0.0
    shininess: float = 1.0


# Wave vectors are deliberately not multiples of each other (no visible tiling); each wave fades out where a
# pixel covers more than about one radian of it (the shader's anti-aliasing), so small images stay clean; a fine
# cross wave (k3) fades on its own, leaving the broader main wave.
SURFACES: dict[str, Surface] = {
    "plain": Surface(),
    # Bands across the board's y (rings), wavy along x, with fine fibres.
    "wood": Surface((0.0, 38.0, 9.0), 3.0, (2.2, 0.0, 6.0), 0.3, (4.0, 170.0, 0.0), 0.16, 0.06, 12.0),
    # Fine streaks along x (brushed), a strong tight highlight.
    "metal": Surface((1.5, 120.0, 0.0), 1.2, (0.0, 31.0, 47.0), 0.0, _ZERO, 0.06, 0.55, 40.0),
    # Two crossed threads.
    "fabric": Surface((150.0, 0.0, 90.0), 0.0, _ZERO, 1.0, (0.0, 150.0, -90.0), 0.10),
    # A fine pile under a broad irregular mottling.
    "carpet": Surface((3.1, 4.3, 0.0), 1.5, (5.9, -4.7, 0.0), 1.0, (-147.0, 153.0, 141.0), 0.06),
    "leather": Surface((23.0, 29.0, 31.0), 2.0, (11.0, -13.0, 17.0), 1.0, (-37.0, 31.0, 29.0), 0.05, 0.25, 14.0),
    # Painted plaster: faint broad mottling with a little grit.
    "drywall": Surface((2.9, 3.7, 2.3), 2.0, (5.3, -4.1, 6.1), 0.6, (43.0, -37.0, 47.0), 0.035),
    "stone": Surface((7.0, 9.0, 5.0), 3.0, (13.0, -11.0, 17.0), 0.5, (61.0, -53.0, 67.0), 0.08, 0.05, 8.0),
    # Glazed or polished: almost smooth, a sharp highlight.
    "ceramic": Surface((3.0, 4.0, 2.0), 2.0, (7.0, -5.0, 9.0), 0.0, _ZERO, 0.03, 0.45, 60.0),
    "plastic": Surface(specular=0.3, shininess=32.0),
    "rubber": Surface(specular=0.08, shininess=6.0),
    "glass": Surface(specular=0.6, shininess=90.0),
}
SURFACE_CODES: dict[str, int] = {name: code for code, name in enumerate(SURFACES)}

# Keywords of material paths, first match wins (carpet and drywall before wood: "YellowCarpetMCS", "WoodFloors").
_PATH_KEYWORDS: tuple[tuple[str, str], ...] = (
    ("carpet", "carpet"), ("drywall", "drywall"), ("/walls/", "drywall"), ("leather", "leather"),
    ("sofa", "fabric"), ("fabric", "fabric"), ("fotel", "fabric"), ("seat", "fabric"), ("wood", "wood"),
    ("metal", "metal"), ("brass", "metal"), ("alumin", "metal"), ("iron", "metal"), ("steel", "metal"),
    ("yfmm", "metal"), ("marble", "ceramic"), ("granite", "ceramic"), ("countertop", "ceramic"),
    ("ceramic", "ceramic"), ("concrete", "stone"), ("rubber", "rubber"), ("plastic", "plastic"),
    ("toyblock", "wood"), ("numberblock", "wood"), ("custom/materials/", "plastic"), ("kindergarten", "plastic"),
)
# Reported material_list names (salientMaterials or the type's defaults).
_SALIENT: dict[str, str] = {
    "WOOD": "wood", "METAL": "metal", "FABRIC": "fabric", "CERAMIC": "ceramic", "PLASTIC": "plastic",
    "GLASS": "glass", "RUBBER": "rubber", "STONE": "stone",
}


def surface_of(materials: Iterable[str], salient: Iterable[str] = ()) -> str:
    """Surface class of an object: from its first material path naming one, else its salient materials."""
    for material in materials:
        text = str(material).lower()
        for keyword, surface in _PATH_KEYWORDS:
            if keyword in text:
                return surface
    for name in salient:
        surface = _SALIENT.get(str(name).upper())
        if surface is not None:
            return surface
    return "plain"


def geom_surfaces(objects: Iterable, ngeom: int, room_materials: dict[str, str]) -> np.ndarray:
    """(ngeom,) surface codes for a world's objects (SimObjects); room pieces take `room_materials` by id."""
    objects = list(objects)
    by_id: dict = {}
    for obj in objects:
        by_id.setdefault(obj.id, obj)  # scene ids may repeat: a child's parent is the first of that id
    codes = np.zeros(ngeom, np.float32)
    for obj in objects:
        source = by_id.get(obj.parent, obj) if obj.parent else obj  # child components (drawers, shelves) wear their parent's materials
        paths = list(source.scene_object.materials or []) if source.scene_object is not None else []
        if source.scene_object is None and obj.id in room_materials:
            paths = [room_materials[obj.id]]
        codes[obj.all_geom_ids] = SURFACE_CODES[surface_of(paths, obj.material_list)]
    return codes
