"""The top-down map of `mcs-plugin view`: room, lava and holes, every object's footprint coloured by its role
(target, ramp with its uphill arrow, platform, wall, agent, object held by an agent), the performer, and
numbered labels placed so that no two overlap (leader lines where a label had to move), keyed in a list of
number, type and short id."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np

from mcs_plugin.geometry import convex_hull

ROOM_STRUCTURE = frozenset({"ceiling", "floor", "wall_back", "wall_front", "wall_left", "wall_right"})
# Face colour of each role (the key's legend lists them in this order).
ROLE_COLOURS: dict[str, str] = {
    "target": "#e53935",
    "object": "#ffcc80",
    "agent": "#81c784",
    "platform": "#b0bec5",
    "ramp": "#ce93d8",
    "structure": "#78909c",
}
LAVA_COLOUR, HOLE_COLOUR = "#ff6d00", "#212121"
# Label offsets tried in turn (points from the object's centre): the centre, then rings further out.
_LABEL_OFFSETS: tuple[tuple[float, float], ...] = ((0.0, 0.0),) + tuple(
    (radius * math.cos(angle), radius * math.sin(angle))
    for radius in (12.0, 20.0, 30.0, 42.0) for angle in np.radians(np.arange(0, 360, 45) + 90))
_MARKER_POINTS = 14.0  # size of the star of an object held by an agent
_HEX_TAIL = re.compile(r"^(?:(?P<words>[a-z_]+?)_)?(?P<tail>[0-9a-f]{4,}(?:-[0-9a-f]+)*)$")


@dataclass(frozen=True)
class MapEntry:
    """One labelled thing on the map: its number, what it is and where its label points."""

    number: int
    object_type: str
    short_id: str
    role: str  # a ROLE_COLOURS key
    note: str  # e.g. "later", "held by agent 4e2c"
    anchor: tuple[float, float]  # map point (x, z) the label points at
    beside: bool = False  # a marker (held object): its label goes beside it, never on it


def short_ids(ids: Sequence[str]) -> dict[str, str]:
    """Short, unique ids: generated ids lose their word prefix (`ramp_`, `agent_`...) and are cut to the
    shortest prefix of their hex tail (at least 4 characters) that no other id shares; other ids stay whole.
    Ids whose tails are equal (an occluder's wall and pole) keep the last word of their prefix."""
    tails = {}
    for object_id in ids:
        match = _HEX_TAIL.match(object_id)
        tails[object_id] = (match["words"] or "", match["tail"]) if match else None
    hex_tails = [tail[1] for tail in tails.values() if tail]
    distinct = set(hex_tails)
    out = {}
    for object_id, tail in tails.items():
        if tail is None:
            out[object_id] = object_id
            continue
        words, hex_tail = tail
        length = 4
        while length < len(hex_tail) and sum(t.startswith(hex_tail[:length]) for t in distinct) > 1:
            length += 1
        short = hex_tail[:length]
        if hex_tails.count(hex_tail) > 1 and words:
            short = f"{words.split('_')[-1]}:{short}"
        out[object_id] = short
    return out


def _role(obj: Any, targets: set[str]) -> str:
    if obj.id in targets:
        return "target"
    if obj.is_agent:
        return "agent"
    if obj.type_name == "triangle":
        return "ramp"
    if obj.structural and obj.id.startswith("platform"):
        return "platform"
    return "structure" if obj.structural else "object"


def _draw_floor_cells(ax: Any, scene: dict[str, Any]) -> None:
    """Lava and holes: 1 x 1 m cells centred on whole metres."""
    from matplotlib.patches import Rectangle

    for key, style in (("lava", dict(fc=LAVA_COLOUR, ec="#bf360c", hatch="xx", alpha=0.8)),
                       ("holes", dict(fc=HOLE_COLOUR, ec="black"))):
        for cell in scene.get(key) or []:
            ax.add_patch(Rectangle((float(cell.get("x", 0)) - 0.5, float(cell.get("z", 0)) - 0.5), 1.0, 1.0,
                                   lw=0.5, zorder=1, **style))


def _uphill(world: Any, obj: Any) -> np.ndarray:
    """A ramp's climbing direction on the map: its local MCS +z (see catalog `triangle_prism`)."""
    direction = world.body_mat(obj) @ np.array([0.0, 1.0, 0.0])  # MCS +z is MuJoCo local +y
    return direction[:2] / (np.linalg.norm(direction[:2]) or 1.0)


def draw_objects(ax: Any, controller: Any, scene: dict[str, Any]) -> tuple[list[MapEntry], list[float], list[float]]:
    """Hazards, footprints, ramp arrows and held objects; returns the entries to label and the extent drawn."""
    from matplotlib.patches import FancyArrow, Polygon

    world = controller.world
    targets = set(controller.goal.target_ids()) if controller.goal else set()
    _draw_floor_cells(ax, scene)
    # Child components (shelves, drawers) and platform lips are parts of the object they belong to.
    shown = [o for o in world.objects
             if not (o.is_floor or o.id in ROOM_STRUCTURE or o.held or o.parent or o.is_lip)]
    shorts = short_ids([o.id for o in shown])
    entries: list[MapEntry] = []
    xs: list[float] = []
    zs: list[float] = []
    for obj in shown:
        role = _role(obj, targets)
        holder = world.by_id.get(obj.held_by_agent) if obj.held_by_agent else None
        if holder is not None:  # drawn as a star at its holder's side
            hx, hz = world.center(holder)[:2]
            ax.plot([hx + 0.25], [hz + 0.25], marker="*", ms=_MARKER_POINTS, mfc=ROLE_COLOURS[role], mec="black", zorder=6)
            note = f"held by agent {shorts.get(holder.id, holder.id)}"
            entries.append(MapEntry(0, obj.type_name, shorts[obj.id], role, note, (hx + 0.25, hz + 0.25), True))
            continue
        hull = convex_hull(world.world_bounds(obj)[:, :2])
        if len(hull) < 3:
            continue
        ax.add_patch(Polygon(hull, closed=True, fc=ROLE_COLOURS[role] if obj.present else "none", ec="#37474f",
                             lw=1.0, ls="-" if obj.present else "--", alpha=0.85, zorder=3 if role == "target" else 2))
        centre = hull.mean(axis=0)
        note = "" if obj.present else "later"
        if role == "ramp":
            dx, dz = _uphill(world, obj) * 0.8 * float(obj.size[2])  # size z: the ramp's run
            ax.add_patch(FancyArrow(centre[0] - dx / 2, centre[1] - dz / 2, dx, dz, width=0.06, head_width=0.3,
                                    length_includes_head=True, color="#4a148c", zorder=4))
        if role in ("ramp", "platform"):
            top = float(world.world_bounds(obj)[:, 2].max())
            note = ", ".join(filter(None, [note, f"top {top:.2f} m"]))
        entries.append(MapEntry(0, obj.type_name, shorts[obj.id], role, note, (float(centre[0]), float(centre[1]))))
        xs += list(hull[:, 0])
        zs += list(hull[:, 1])
    numbered = [replace(entry, number=index + 1) for index, entry in enumerate(entries)]
    return numbered, xs, zs


def _text_box(label: Any, renderer: Any) -> Any:
    """The display box of an annotation's text alone (its own extent also spans the leader line), padded."""
    from matplotlib.text import Text

    label.update_positions(renderer)
    return Text.get_window_extent(label, renderer).expanded(1.3, 1.3)


def place_labels(ax: Any, entries: Sequence[MapEntry], renderer: Any) -> list[Any]:
    """Each entry's number at the first offset (centre, then rings further out; markers skip the centre) where
    it overlaps no label placed before it, with a leader line when moved; returns the matplotlib annotations."""
    from matplotlib.transforms import Bbox

    placed = []
    # Markers are taken too: no label may cover one.
    side = _MARKER_POINTS * ax.figure.dpi / 72.0
    boxes = [Bbox.from_bounds(x - side / 2, y - side / 2, side, side)
             for x, y in (ax.transData.transform(entry.anchor) for entry in entries if entry.beside)]
    last = len(_LABEL_OFFSETS) - 1
    for entry in entries:
        for index, (dx, dy) in enumerate(_LABEL_OFFSETS):
            if index == 0 and entry.beside:
                continue
            moved = index > 0
            label = ax.annotate(str(entry.number), entry.anchor, xytext=(dx, dy), textcoords="offset points",
                                ha="center", va="center", fontsize=7, fontweight="bold", zorder=9,
                                color="white" if entry.role == "target" and not moved else "black",
                                arrowprops=dict(arrowstyle="-", lw=0.6, color="#263238") if moved else None)
            box = _text_box(label, renderer)
            if index == last or not any(box.overlaps(other) for other in boxes):  # the last ring is kept anyway
                break
            label.remove()
        boxes.append(box)
        placed.append(label)
    return placed

def draw_key(ax: Any, entries: Sequence[MapEntry]) -> None:
    """The key beside the map: a legend of colours, then one line per number (type, short id, note)."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    ax.axis("off")
    handles = [Patch(fc=colour, ec="#37474f", label=role) for role, colour in ROLE_COLOURS.items()]
    handles += [Patch(fc=LAVA_COLOUR, ec="#bf360c", hatch="xx", label="lava"), Patch(fc=HOLE_COLOUR, label="hole"),
                Patch(fc="none", ec="#37474f", ls="--", label="appears later"),
                Line2D([], [], marker="*", ls="", ms=10, mfc="#ffcc80", mec="black", label="held by an agent"),
                Line2D([], [], marker="o", ls="", ms=9, mfc="#1e88e5", mec="black", label="performer")]
    legend = ax.legend(handles=handles, loc="upper left", fontsize=7, frameon=False, ncol=2,
                       bbox_to_anchor=(0.0, 1.0))
    ax.add_artist(legend)
    lines = [f"{e.number:>2} {e.object_type} {e.short_id}" + (f" ({e.note})" if e.note else "") for e in entries]
    size = min(7.0, max(4.0, 7.0 * 34 / max(len(lines), 1)))  # one column: smaller type for long lists
    ax.text(0.0, 0.80, "\n".join(lines), transform=ax.transAxes, va="top", ha="left", family="monospace",
            fontsize=size)

def draw_map(ax: Any, key_ax: Any, controller: Any, scene: dict[str, Any], renderer: Any) -> list[Any]:
    """The whole map on `ax` and its key on `key_ax`; returns the label annotations."""
    from matplotlib.patches import Circle, FancyArrow, Rectangle

    performer = controller.performer
    dims = scene.get("roomDimensions") or {}
    rx, rz = float(dims.get("x") or 10), float(dims.get("z") or 10)
    ax.add_patch(Rectangle((-rx / 2, -rz / 2), rx, rz, fill=False, lw=2.5, ec="black"))
    entries, xs, zs = draw_objects(ax, controller, scene)
    px, pz, yaw = performer.x, performer.z, math.radians(performer.yaw)
    ax.add_patch(Circle((px, pz), 0.25, fc="#1e88e5", ec="black", zorder=6))
    ax.add_patch(FancyArrow(px, pz, 0.7 * math.sin(yaw), 0.7 * math.cos(yaw), width=0.06, head_width=0.22,
                            color="#0d47a1", zorder=7))
    xs += [-rx / 2, rx / 2, px]
    zs += [-rz / 2, rz / 2, pz]
    pad = 0.5
    lo_x, hi_x = min(xs) - pad, max(xs) + pad
    if scene.get("intuitivePhysics"):  # passive scenes park objects far off stage
        lo_x, hi_x = max(lo_x, -7.0), min(hi_x, 7.0)
    ax.set_xlim(lo_x, hi_x)
    ax.set_ylim(min(zs) - pad, max(zs) + pad)
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("z (m)")
    ax.grid(True, lw=0.3, alpha=0.5)
    ax.set_title("top-down map", fontsize=9)
    ax.apply_aspect()  # final axes box, so label extents are measured where they will be drawn
    labels = place_labels(ax, entries, renderer)
    draw_key(key_ax, entries)
    return labels
