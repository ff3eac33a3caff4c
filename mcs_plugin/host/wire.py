"""The host's wire format: framed pickles (protocol 4) of plain dicts, lists and tuples, plus raw array buffers.

Both ends may run different Pythons and numpy major versions (the real-MCS child runs Python 3.10 with
numpy 1.x), so nothing on the wire references a numpy or project class. numpy arrays are never pickled: the
pickler replaces each one by a persistent id (dtype string, shape) and its bytes follow the pickle as a raw
buffer, which the reader receives straight into a fresh array (no intermediate copies). numpy scalars travel
as Python numbers, PIL images as uint8 arrays, enums as their values. Needs only the standard library and numpy.

Frame: 16-byte header (pickle length, total buffer length, big-endian uint64), the pickle, the buffers.
"""

from __future__ import annotations

import errno
import io
import os
import pickle
import select
import struct
import time
from enum import Enum
from typing import Any

import numpy as np

PROTOCOL = 4
_HEADER = struct.Struct("!QQ")
MAX_FRAME = 1 << 36  # 64 GiB: anything larger is a corrupt header

# StepMetadata field names (ours and machine_common_sense's share them); values default to these when absent.
STEP_FIELDS: dict[str, Any] = {
    "action_list": list, "camera_aspect_ratio": (0, 0), "camera_clipping_planes": (0.0, 0.0),
    "camera_field_of_view": 0.0, "camera_height": 0.0, "depth_map_list": list, "goal": None,
    "habituation_trial": None, "haptic_feedback": dict, "head_tilt": 0.0, "holes": None, "image_list": list,
    "lava": None, "object_list": list, "object_mask_list": list, "performer_radius": 0.0, "performer_reach": 0.0,
    "physics_frames_per_second": 0.0, "pose": "UNDEFINED", "position": None, "resolved_object": None,
    "resolved_receptacle": None, "return_status": "UNDEFINED", "reward": 0.0, "room_dimensions": None,
    "rotation": 0.0, "segmentation_colors": list, "step_number": 0, "steps_on_lava": 0,
    "structural_object_list": list, "triggered_by_sequence_incorrect": False,
}
IMAGE_LIST_FIELDS = ("image_list", "object_mask_list")
GOAL_FIELDS = ("action_list", "category", "description", "habituation_total", "last_preview_phase_step",
               "last_step", "metadata", "steps_allowed_in_lava", "triggered_by_target_sequence")
OBJECT_FIELDS = ("uuid", "color", "dimensions", "direction", "distance", "distance_in_steps", "distance_in_world",
                 "held", "mass", "material_list", "position", "rotation", "shape", "state_list",
                 "texture_color_list", "visible", "is_open", "openable", "locked", "associated_with_agent",
                 "simulation_agent_held_object", "simulation_agent_is_holding_held_object")


class WireTimeout(TimeoutError):
    """A frame was not read or written before its deadline."""


# -- values ------------------------------------------------------------------------------------------------
_ATOMS = frozenset({type(None), bool, int, float, str, bytes})


def plain(value: Any) -> Any:
    """Recursively turn a value into wire-safe Python: numpy scalars -> numbers, PIL images -> arrays (arrays stay),
    enums -> values, sets -> lists, other objects with attributes -> their public attribute dict."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is dict:
        return {(k if type(k) in _ATOMS else str(k)): (v if type(v) in _ATOMS else plain(v)) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _ATOMS else plain(v) for v in value]
    if kind is tuple:
        return tuple(v if type(v) in _ATOMS else plain(v) for v in value)
    return _plain_other(value)


def _plain_other(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value if isinstance(value.value, str) else value.name
    if isinstance(value, (bool, int, float, str, bytes)):  # subclasses (e.g. str enums handled above)
        return value
    if isinstance(value, dict):
        return plain(dict(value))
    if isinstance(value, (list, tuple)):
        return plain(tuple(value) if isinstance(value, tuple) else list(value))
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value
    if _is_pil_image(value):
        return np.asarray(value)
    if isinstance(value, (set, frozenset)):
        return [plain(v) for v in value]
    if hasattr(value, "__dict__"):
        return {k: plain(v) for k, v in vars(value).items() if not k.startswith("_")}
    return str(value)


def _is_pil_image(value: Any) -> bool:
    return hasattr(value, "getbands") and hasattr(value, "mode") and hasattr(value, "size")


# -- step outputs ---------------------------------------------------------------------------------------------
def _default(spec: Any) -> Any:
    return spec() if callable(spec) else spec


def encode_goal(goal: Any) -> dict[str, Any] | None:
    """A GoalMetadata (ours or machine_common_sense's) as a plain dict of its GOAL_FIELDS."""
    if goal is None:
        return None
    return {name: plain(getattr(goal, name, None)) for name in GOAL_FIELDS}


def encode_object(obj: Any) -> dict[str, Any]:
    """An ObjectMetadata (ours, or MCS's with `segment_color`) as a plain dict of OBJECT_FIELDS."""
    data = {name: plain(getattr(obj, name, None)) for name in OBJECT_FIELDS if name != "color"}
    color = getattr(obj, "color", None)
    if color is None:
        color = getattr(obj, "segment_color", None)
    data["color"] = plain(color) if color else None
    return data


def encode_step_metadata(output: Any) -> dict[str, Any]:
    """A StepMetadata (ours or machine_common_sense's) as a plain dict; images and depth maps as numpy arrays."""
    data: dict[str, Any] = {}
    for name, spec in STEP_FIELDS.items():
        value = getattr(output, name, _default(spec))
        if name == "goal":
            data[name] = encode_goal(value)
        elif name in ("object_list", "structural_object_list"):
            data[name] = [encode_object(o) for o in value or []]
        elif name == "action_list":
            data[name] = [(str(a), plain(dict(p or {}))) for a, p in (_action_pairs(value))]
        elif name == "return_status":
            data[name] = value.name if isinstance(value, Enum) else str(value)
        else:
            data[name] = plain(value)
    return data


def _action_pairs(action_list: Any) -> list[tuple[str, dict]]:
    pairs = []
    for entry in action_list or []:
        if isinstance(entry, str):
            pairs.append((entry, {}))
        else:
            action, params = entry
            pairs.append((getattr(action, "value", action), params))
    return pairs


def decode_step_metadata(data: dict[str, Any]):
    """Our StepMetadata (PIL images, float32 depth arrays) from an `encode_step_metadata` dict."""
    from PIL import Image

    from mcs_plugin.mcs import GoalMetadata, ObjectMetadata, StepMetadata

    fields: dict[str, Any] = {}
    for name, spec in STEP_FIELDS.items():
        value = data.get(name, _default(spec))
        if name in IMAGE_LIST_FIELDS:
            value = [Image.fromarray(v) for v in value or []]
        elif name == "depth_map_list":
            value = list(value or [])
        elif name == "goal":
            value = GoalMetadata(**{**value, "metadata": value.get("metadata") or {}}) if value else GoalMetadata()
        elif name in ("object_list", "structural_object_list"):
            value = [ObjectMetadata(**o) for o in value or []]
        elif name == "action_list":
            value = [(a, dict(p)) for a, p in value or []]
        elif name in ("camera_aspect_ratio", "camera_clipping_planes") and value is not None:
            value = tuple(value)
        elif name in ("holes", "lava") and value is not None:
            value = [tuple(v) for v in value]
        fields[name] = value
    return StepMetadata(**fields)


# -- frames ---------------------------------------------------------------------------------------------------
class _Pickler(pickle.Pickler):
    """Pickles everything but numpy arrays, which it sets aside as raw buffers."""

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=PROTOCOL)
        self.buffers: list[np.ndarray] = []

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, np.ndarray):
            array = np.ascontiguousarray(obj)
            if array.dtype.hasobject:
                raise TypeError("object arrays cannot go over the wire")
            self.buffers.append(array)
            return ("ndarray", array.dtype.str, tuple(int(n) for n in array.shape))
        return None


class _Unpickler(pickle.Unpickler):
    """Unpickles a frame's pickle, making an empty array for each buffer that follows it."""

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file)
        self.arrays: list[np.ndarray] = []

    def persistent_load(self, pid: Any) -> Any:
        kind, dtype, shape = pid
        if kind != "ndarray":
            raise pickle.UnpicklingError(f"unknown persistent id {kind!r}")
        array = np.empty(shape, dtype=np.dtype(dtype))
        self.arrays.append(array)
        return array


def _bytes_view(array: np.ndarray) -> memoryview:
    return memoryview(array.reshape(-1).view(np.uint8))


def encode_frame(message: Any) -> list[memoryview | bytes]:
    """The pieces of one frame: header, pickle, then each array's raw bytes."""
    file = io.BytesIO()
    pickler = _Pickler(file)
    pickler.dump(message)
    payload = file.getbuffer()
    views = [_bytes_view(a) for a in pickler.buffers if a.nbytes]
    return [_HEADER.pack(len(payload), sum(v.nbytes for v in views)), payload, *views]


def _wait(fd: int, events: int, deadline: float | None) -> None:
    if deadline is None:
        return
    poller = select.poll()
    poller.register(fd, events)
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise WireTimeout("deadline passed")
        if poller.poll(remaining * 1000.0 + 1):
            return


def write_frame(fd: int, message: Any, deadline: float | None = None) -> None:
    """Send one message; with a deadline the fd must be non-blocking. BrokenPipeError when the peer is gone."""
    for piece in encode_frame(message):
        view = memoryview(piece)
        while view.nbytes:
            _wait(fd, select.POLLOUT, deadline)
            try:
                written = os.write(fd, view)
            except BlockingIOError:
                continue
            view = view[written:]


def _read_into(stream: io.FileIO, fd: int, view: memoryview, deadline: float | None) -> None:
    got, size = 0, view.nbytes
    while got < size:
        _wait(fd, select.POLLIN, deadline)
        try:
            count = stream.readinto(view[got:])
        except BlockingIOError:
            continue
        except OSError as error:
            if error.errno == errno.EAGAIN:
                continue
            raise
        if count is None:  # non-blocking and nothing there yet
            continue
        if count == 0:
            raise EOFError("the other end closed the pipe")
        got += count


def read_frame(stream: io.FileIO, deadline: float | None = None) -> Any:
    """Receive one message from a raw file (io.FileIO over the pipe fd). EOFError when the writer is gone."""
    fd = stream.fileno()
    header = bytearray(_HEADER.size)
    _read_into(stream, fd, memoryview(header), deadline)
    size, total = _HEADER.unpack(header)
    if size > MAX_FRAME or total > MAX_FRAME:
        raise EOFError(f"corrupt frame header ({size}, {total})")
    payload = bytearray(size)
    _read_into(stream, fd, memoryview(payload), deadline)
    unpickler = _Unpickler(io.BytesIO(payload))
    message = unpickler.load()
    arrays = [a for a in unpickler.arrays if a.nbytes]
    if sum(a.nbytes for a in arrays) != total:
        raise EOFError("corrupt frame: buffer sizes do not match the header")
    for array in arrays:
        _read_into(stream, fd, _bytes_view(array), deadline)
    return message


def enlarge_pipe(fd: int, size: int = 1 << 20) -> None:
    """Best effort: grow a Linux pipe buffer so a large step output needs fewer wake-ups."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), size)
    except (OSError, ImportError, ValueError):
        pass
