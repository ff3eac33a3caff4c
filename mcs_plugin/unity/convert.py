"""machine_common_sense StepMetadata -> this package's StepMetadata (through the host's plain wire dict).

The child calls `to_wire` (standard library + numpy only; works on any MCS version's output object, since it
reads attributes by name with defaults: 0.7.4's `segment_color`, an enum `return_status`, a missing `pose`);
the parent calls `from_wire`. `to_step_metadata` does both, for code that has both libraries at hand.
"""

from __future__ import annotations

from typing import Any

from mcs_plugin.host import wire


def to_wire(output: Any) -> dict[str, Any]:
    """A plain dict (images and depth maps as array dicts) from an MCS StepMetadata of any version."""
    return wire.encode_step_metadata(output)


def from_wire(data: dict[str, Any]):
    """This package's StepMetadata (PIL images, float32 depth maps) from a `to_wire` dict."""
    return wire.decode_step_metadata(data)


def to_step_metadata(output: Any):
    """This package's StepMetadata from an MCS StepMetadata object."""
    return from_wire(to_wire(output))
