"""Materials reported in ObjectMetadata.material_list (haptic feedback)."""

from __future__ import annotations

from typing import Iterable

from mcs_plugin.mcs.names import MCSName


class Material(MCSName):
    """Salient material of an object; values are the upper-case names MCS reports."""

    CERAMIC = "CERAMIC"
    FABRIC = "FABRIC"
    FOOD = "FOOD"
    GLASS = "GLASS"
    METAL = "METAL"
    ORGANIC = "ORGANIC"
    PAPER = "PAPER"
    PLASTIC = "PLASTIC"
    RUBBER = "RUBBER"
    SOAP = "SOAP"
    SPONGE = "SPONGE"
    STONE = "STONE"
    UNDEFINED = "UNDEFINED"
    WAX = "WAX"
    WOOD = "WOOD"



def to_material_list(salient_materials: Iterable[str]) -> list[str]:
    """Scene `salientMaterials` -> `material_list`: upper-cased, names that are no Material dropped."""
    known = {m.value for m in Material}
    return [name.upper() for name in salient_materials if name.upper() in known]
