"""Ramps for the navigation graph: a ramp (MCS's `ramp_*` structure, a triangular prism that climbs toward its local
+z) becomes thin slices across its slope, each a surface at the ramp's height at the slice's upper end, plus its two
side faces, which stop the body where they rise more than a step above the surface it stands on.

The graph stands on discrete surfaces (`NavigationGraph.levels`); slices rising at most `SLICE_RISE` apart let a
0.1 m move climb from one to the next as MCS's height matching does (ramps up to `MAX_CLIMB_DEGREES`). A slice is
never in the way itself: its surface is what the body walks on, where a disc model of the body would call the slope
ahead a wall.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from mcs_plugin.constants import MAX_CLIMB_DEGREES
from mcs_plugin.experts.poses import forward_xz
from mcs_plugin.geometry import convex_hull

if TYPE_CHECKING:  # pragma: no cover
    from mcs_plugin.experts.boxes import Box
    from mcs_plugin.mcs import ObjectMetadata

RAMP_PREFIX = "ramp"  # MCS names ramps `ramp_<uuid>` (their shape is that of any structure)
SLICE_RISE = 0.1  # metres a slice rises above the one below it (a 45-degree ramp: one slice per 0.1 m move)
SIDE_WIDTH = 0.02  # metres: the band along each side of a ramp that stands for its side face

RAMP, RAMP_SIDE = "ramp", "ramp side"  # extent kinds: a surface never in the way; in the way, never a surface


class RampPiece(NamedTuple):
    """One x-z polygon of a ramp with its vertical extent and kind (`RAMP` or `RAMP_SIDE`)."""

    polygon: np.ndarray
    bottom: float
    top: float
    kind: str


def is_ramp(obj: ObjectMetadata) -> bool:
    """Whether a structural object is a ramp."""
    return obj.uuid.startswith(RAMP_PREFIX)


def ramp_pieces(box: Box, yaw: float) -> list[RampPiece] | None:
    """The slices and side bands of a ramp whose bounding box is `box` and which climbs toward `yaw` (its rotation,
    degrees); None when it is too steep to climb (then it is a block like any structure)."""
    up = np.array(forward_xz(yaw))
    along = max((0, 2), key=lambda i: abs(float(box.axes[i, [0, 2]] @ up)))  # the box's axis 1 is the vertical one
    across = 2 - along
    u = box.axes[along, [0, 2]] * math.copysign(1.0, float(box.axes[along, [0, 2]] @ up))
    v = box.axes[across, [0, 2]]
    length, width = box.half[along], box.half[across]
    bottom, rise = box.bottom, box.top - box.bottom
    if rise > 2 * length * math.tan(math.radians(MAX_CLIMB_DEGREES)):
        return None
    centre = box.center[[0, 2]]
    count = max(1, math.ceil(rise / SLICE_RISE))
    pieces = []
    for k in range(count):
        s0, s1 = -length + 2 * length * k / count, -length + 2 * length * (k + 1) / count
        top = bottom + rise * (k + 1) / count
        pieces.append(RampPiece(_band(centre, u, v, s0, s1, -width, width), bottom, top, RAMP))
        for side in (-1.0, 1.0):
            low, high = sorted((side * width, side * (width - SIDE_WIDTH)))
            pieces.append(RampPiece(_band(centre, u, v, s0, s1, low, high), bottom, top, RAMP_SIDE))
    return pieces


def _band(centre: np.ndarray, u: np.ndarray, v: np.ndarray, s0: float, s1: float, t0: float, t1: float) -> np.ndarray:
    """The counter-clockwise rectangle {centre + s u + t v : s0 <= s <= s1, t0 <= t <= t1} (x-z)."""
    return convex_hull(np.array([centre + s * u + t * v for s, t in ((s0, t0), (s1, t0), (s1, t1), (s0, t1))]))
