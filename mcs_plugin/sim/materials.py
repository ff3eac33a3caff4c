"""MCS material paths -> colour names (as MCS reports them in ``texture_color_list``) and render colours.

The table ``data/material_colors.csv`` (243 materials) comes from mcs-scene-generator
``generator/materials.py``: each material path with the colour names the generator (and Unity)
associate with it, e.g. ``AI2-THOR/Materials/Plastics/BlueRubber`` -> ``['blue']``.

Public API
----------
``material_color_names(material)``  colour names of a material path; unknown -> ``[]``.
    Lookup order: exact path, then case-insensitive path, then the last path component
    (case-insensitive, e.g. ``"bluerubber"`` or ``"Materials/BlueRubber"`` also work).
``reported_color_names(material)``  colour names as the MCS 0.7.4 Unity app reports them
    (``ObjectMetadata.texture_color_list``): Unity's own registry (``data/unity_material_colors.csv``,
    keyed by the last path component, from the app's MCSConfig), which lists fewer names than the
    generator table for some materials (``WornWood`` -> brown, not black brown); the generator table
    for the flat ``Custom/Materials/*`` colours (own colour first) and anything Unity's registry lacks.
``material_rgb(material)``  a representative render colour (r, g, b) in 0..1.
    From the colour names: when a material lists a specific colour (cyan, magenta, olive, ...)
    together with the basic ones it is "near" (``Custom/Materials/Cyan`` -> blue cyan green), the
    specific ones are used; otherwise all names are averaged.  Materials missing from the table
    are guessed from colour words / material words in their path (``...WallDrywallWhite`` -> white,
    ``...Wood...`` -> brown); anything else -> a neutral grey (``NEUTRAL_GREY``).
``color_name_rgb(name)``  render colour of one colour name (unknown -> ``NEUTRAL_GREY``).
``material_names()``  all material paths in the table.
"""
from __future__ import annotations

import csv
import functools
import io

from mcs_plugin.sim.datafiles import data_text

__all__ = [
    "COLOR_RGB",
    "NEUTRAL_GREY",
    "color_name_rgb",
    "material_color_names",
    "material_names",
    "material_rgb",
    "reported_color_names",
]

NEUTRAL_GREY: tuple[float, float, float] = (0.6, 0.6, 0.6)

# Render colours for every colour name in material_colors.csv (plus a few aliases).  Values are
# deliberately a little muted (real textures are never fully saturated) but keep the hue obvious.
COLOR_RGB: dict[str, tuple[float, float, float]] = {
    "black": (0.08, 0.08, 0.08),
    "white": (0.92, 0.92, 0.92),
    "grey": (0.5, 0.5, 0.5),
    "gray": (0.5, 0.5, 0.5),
    "silver": (0.75, 0.75, 0.75),
    "brown": (0.45, 0.29, 0.16),
    "tan": (0.82, 0.71, 0.55),
    "beige": (0.87, 0.82, 0.7),
    "cream": (0.98, 0.95, 0.8),
    "blue": (0.15, 0.3, 0.8),
    "navy": (0.05, 0.08, 0.45),
    "azure": (0.1, 0.5, 0.95),
    "cyan": (0.1, 0.85, 0.9),
    "teal": (0.05, 0.5, 0.5),
    "green": (0.2, 0.6, 0.2),
    "lime": (0.45, 0.9, 0.15),
    "chartreuse": (0.55, 0.9, 0.05),
    "springgreen": (0.05, 0.9, 0.5),
    "olive": (0.5, 0.5, 0.1),
    "darkslategrey": (0.18, 0.31, 0.31),
    "darkslategray": (0.18, 0.31, 0.31),
    "red": (0.8, 0.12, 0.1),
    "maroon": (0.5, 0.05, 0.08),
    "rose": (0.95, 0.2, 0.5),
    "pink": (0.95, 0.6, 0.7),
    "magenta": (0.9, 0.1, 0.85),
    "purple": (0.5, 0.2, 0.6),
    "violet": (0.55, 0.25, 0.9),
    "indigo": (0.29, 0.05, 0.51),
    "orange": (0.95, 0.55, 0.1),
    "yellow": (0.92, 0.82, 0.15),
    "goldenrod": (0.85, 0.65, 0.13),
    "gold": (0.85, 0.7, 0.2),
}

# The basic names MCS attaches next to a more specific one ("Custom/Materials/Cyan" -> blue cyan green).
_BASIC_NAMES = frozenset(
    {"black", "white", "grey", "gray", "brown", "blue", "green", "red", "yellow", "orange", "purple", "pink"}
)

# Guesses for material paths that are not in the table: words of the last path component.
_MATERIAL_WORD_RGB: tuple[tuple[str, tuple[float, float, float]], ...] = (
    ("brass", COLOR_RGB["goldenrod"]),
    ("gold", COLOR_RGB["gold"]),
    ("copper", (0.72, 0.45, 0.2)),
    ("wood", COLOR_RGB["brown"]),
    ("metal", (0.55, 0.56, 0.58)),
    ("steel", (0.6, 0.6, 0.62)),
    ("iron", (0.4, 0.4, 0.42)),
    ("drywall", (0.85, 0.84, 0.8)),
    ("wall", (0.85, 0.84, 0.8)),
    ("carpet", (0.6, 0.58, 0.55)),
    ("rug", (0.6, 0.5, 0.45)),
    ("fabric", (0.6, 0.58, 0.55)),
    ("leather", (0.4, 0.25, 0.15)),
    ("marble", (0.85, 0.85, 0.82)),
    ("concrete", (0.6, 0.6, 0.6)),
    ("plastic", (0.7, 0.7, 0.7)),
)




@functools.cache
def _tables() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """(exact path -> names, lower-cased path -> names, lower-cased last component -> names)."""
    exact: dict[str, tuple[str, ...]] = {}
    lower: dict[str, tuple[str, ...]] = {}
    last: dict[str, tuple[str, ...]] = {}
    for row in csv.DictReader(io.StringIO(data_text("material_colors.csv"))):
        path = (row.get("material") or "").strip()
        if not path:
            continue
        names = tuple(n.strip().lower() for n in (row.get("color_names") or "").split() if n.strip())
        exact[path] = names
        lower.setdefault(path.lower(), names)
        last.setdefault(path.rsplit("/", 1)[-1].lower(), names)
    return exact, lower, last


def material_names() -> list[str]:
    """All material paths known to the colour table, sorted."""
    return sorted(_tables()[0])


@functools.lru_cache(maxsize=4096)
def _lookup(material: str) -> tuple[str, ...] | None:
    exact, lower, last = _tables()
    key = material.strip()
    if key in exact:
        return exact[key]
    if key.lower() in lower:
        return lower[key.lower()]
    component = key.rstrip("/").rsplit("/", 1)[-1].lower()
    return last.get(component)


def material_color_names(material: str) -> list[str]:
    """MCS colour names of a material path (``texture_color_list`` entries); unknown -> []."""
    if not material or not isinstance(material, str):
        return []
    names = _lookup(material)
    return list(names) if names else []


def color_name_rgb(name: str) -> tuple[float, float, float]:
    """Render colour (0..1) of one MCS colour name; unknown names -> ``NEUTRAL_GREY``."""
    if not name:
        return NEUTRAL_GREY
    return COLOR_RGB.get(name.strip().lower().replace(" ", "").replace("_", ""), NEUTRAL_GREY)


def _average(colors: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    n = len(colors)
    return (sum(c[0] for c in colors) / n, sum(c[1] for c in colors) / n, sum(c[2] for c in colors) / n)


def _rgb_from_names(names: list[str]) -> tuple[float, float, float] | None:
    known = [n for n in names if n in COLOR_RGB]
    if not known:
        return None
    specific = [n for n in known if n not in _BASIC_NAMES]
    chosen = specific or known
    return _average([COLOR_RGB[n] for n in chosen])


def _guess_rgb(material: str) -> tuple[float, float, float]:
    """Colour of a material path that is not in the table, from the words of its last component."""
    component = material.strip().rstrip("/").rsplit("/", 1)[-1].lower()
    # colour words anywhere in the name ("WallDrywallWhite", "TanWoodMCS", "red_1x1")
    found = [name for name in COLOR_RGB if name in component and name not in ("gray",)]
    # prefer the longest matches ("darkslategrey" over "grey", "springgreen" over "green")
    found.sort(key=len, reverse=True)
    picked: list[str] = []
    for name in found:
        if not any(name in other for other in picked):
            picked.append(name)
    rgb = _rgb_from_names(picked)
    if rgb is not None:
        return rgb
    for word, color in _MATERIAL_WORD_RGB:
        if word in component:
            return color
    return NEUTRAL_GREY


@functools.lru_cache(maxsize=4096)
def material_rgb(material: str) -> tuple[float, float, float]:
    """A representative render colour (r, g, b in 0..1) for a material path."""
    if not material or not isinstance(material, str):
        return NEUTRAL_GREY
    names = _lookup(material)
    if names:
        rgb = _rgb_from_names(list(names))
        if rgb is not None:
            return rgb
    return _guess_rgb(material)


@functools.cache
def _unity_table() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """Unity's material registry: (last path component -> names, lower-cased component -> names)."""
    exact: dict[str, tuple[str, ...]] = {}
    lower: dict[str, tuple[str, ...]] = {}
    for row in csv.DictReader(io.StringIO(data_text("unity_material_colors.csv"))):
        key = (row.get("material") or "").strip()
        if key:
            names = tuple(n.strip().lower() for n in (row.get("color_names") or "").split() if n.strip())
            exact[key] = names
            lower.setdefault(key.lower(), names)
    return exact, lower


@functools.lru_cache(maxsize=4096)
def reported_color_names(material: str) -> tuple[str, ...]:
    """Colour names the MCS Unity app reports for a material path (see the module docstring)."""
    if not material or not isinstance(material, str):
        return ()
    key = material.strip()
    if not key.startswith("Custom/"):
        exact, lower = _unity_table()
        component = key.rstrip("/").rsplit("/", 1)[-1]
        names = exact.get(component) or lower.get(component.lower())
        if names:
            return names
        return tuple(material_color_names(key))
    return _own_colour_first(key, material_color_names(key))


def _own_colour_first(material: str, names: list[str]) -> tuple[str, ...]:
    """Unity lists a flat ``Custom/Materials/<Colour>...`` material's own colour first, then the generator's
    others (``Custom/Materials/Cyan`` -> cyan blue green; the generator sorts them by name)."""
    component = material.rstrip("/").rsplit("/", 1)[-1].lower()
    own = [name for name in names if component.startswith(name)]
    return tuple(own + [name for name in names if name not in own])
