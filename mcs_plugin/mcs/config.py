"""Controller configuration: MCS 0.7.4 config keys (INI section [MCS] or dict) plus this project's extensions."""

from __future__ import annotations

import configparser
import dataclasses
import math
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from mcs_plugin.constants import TIER_ALIASES, TIERS
from mcs_plugin.mcs.limits import MAX_CONFIG_INT, MAX_CONFIG_NUMBER, MAX_IMAGE_SIZE

CONFIG_FILE_ENV_VAR = "MCS_CONFIG_FILE_PATH"
CONFIG_SECTION = "MCS"

REWARD_MODES: tuple[str, ...] = ("seed", "mcs074")

# Valid MCS keys that only drive MCS's own debug/video writers; accepted with a warning.
UNSUPPORTED_MCS_KEYS: frozenset[str] = frozenset(
    {"save_debug_images", "save_debug_json", "video_enabled", "top_down_camera", "top_down_plotter"}
)
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


def normalize_tier(name: str | None) -> str:
    """Canonical 0.7.4 tier for a metadata name (oracle/level2/level1/none/default, or full/no_navigation/no_vision)."""
    key = "default" if name is None else str(name).strip().lower()
    key = TIER_ALIASES.get(key, key or "default")
    if key not in TIERS:
        allowed = ", ".join(TIERS + tuple(TIER_ALIASES))
        raise ValueError(f"unknown metadata tier {name!r}; allowed: {allowed}")
    return key


def parse_bool(value: Any) -> bool:
    """A config boolean: bool, 0/1, or a true/false/yes/no/on/off/1/0 string (any case)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"not a boolean: {value!r}")


def _parse_number(value: Any) -> float:
    """A finite real within MAX_CONFIG_NUMBER: a number (not a bool) or a numeric string."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"not a number: {value!r}")
    try:
        number = float(value)
    except (ValueError, OverflowError):
        raise ValueError(f"not a number: {value!r}") from None
    if not math.isfinite(number) or abs(number) > MAX_CONFIG_NUMBER:
        raise ValueError(f"{value!r} is not a finite number within +-{MAX_CONFIG_NUMBER:g}")
    return number


def _parse_int(value: Any) -> int:
    """An integer within MAX_CONFIG_INT: an int, an integral float or a numeric string (not a bool)."""
    number = _parse_number(value)
    if not number.is_integer() or abs(number) > MAX_CONFIG_INT:
        raise ValueError(f"not an integer within +-{MAX_CONFIG_INT}: {value!r}")
    return int(number)


def _parse_str(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"not a string: {value!r}")
    return value


def _parse_terminal_output(value: Any) -> bool | str:
    try:
        return parse_bool(value)
    except ValueError:
        return _parse_str(value).strip()


@dataclass
class MCSConfig:
    """Controller settings; field names are the config keys; `width`/`height` fill `image_width`/`image_height`.

    Extensions beyond MCS 0.7.4: width/height, reward_mode, render (False = no images), seed (noise and
    randomised looks), max_held_objects (1 = one hand as in the seed API, HAND_IS_FULL beyond; 0 = unlimited as
    in MCS 0.7.4) and randomize_rendering (True = lights and surface patterns drawn anew for every scene start,
    from the seed, for training).
    """

    metadata: str = "default"
    size: int = 600
    image_width: int | None = None
    image_height: int | None = None
    disable_depth_maps: bool = False
    disable_object_masks: bool = False
    disable_position: bool = False
    only_return_goal_object: bool = False
    noise_enabled: bool = False
    steps_allowed_in_lava: int = 0
    lava_penalty: float = 100.0
    step_penalty: float = 0.001
    goal_reward: float = 1.0
    reward_mode: str = "seed"
    history_enabled: bool = False
    timeout: int = 3600
    controller_timeout: int = 600
    terminal_output: bool | str = True
    evaluation_name: str = ""
    team: str = ""
    render: bool = True
    seed: int = 0
    max_held_objects: int = 1
    randomize_rendering: bool = False

    def __post_init__(self) -> None:
        self.metadata = normalize_tier(self.metadata)
        self.reward_mode = str(self.reward_mode).strip().lower()
        if self.reward_mode not in REWARD_MODES:
            raise ValueError(f"unknown reward_mode {self.reward_mode!r}; allowed: {', '.join(REWARD_MODES)}")
        width_key = "width" if self.image_width is not None else "size"
        height_key = "height" if self.image_height is not None else width_key  # else the height follows the width
        for key, value in (("size", self.size), (width_key, self.width), (height_key, self.height)):
            if not 1 <= value <= MAX_IMAGE_SIZE:
                raise ValueError(f"config {key}: image size {value} must be 1 to {MAX_IMAGE_SIZE} pixels "
                                 f"(image {self.width} x {self.height})")
        for key in ("max_held_objects", "steps_allowed_in_lava", "timeout", "controller_timeout"):
            if getattr(self, key) < 0:
                raise ValueError(f"config {key} must be >= 0, got {getattr(self, key)}")

    @property
    def tier(self) -> str:
        """Normalised metadata tier: oracle, level2, level1, none or default."""
        return self.metadata

    @property
    def width(self) -> int:
        """Image width: the explicit `width` key, else `size` (MCS: no clamping here, any size is allowed)."""
        return self.image_width if self.image_width is not None else self.size

    @property
    def height(self) -> int:
        """Image height: the explicit `height` key, else int(width / 3 * 2) as MCS computes it."""
        return self.image_height if self.image_height is not None else int(self.width / 3 * 2)

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> MCSConfig:
        """Build from config keys with string or typed values; unknown keys warn and are ignored."""
        kwargs: dict[str, Any] = {}
        for raw_key, value in values.items():
            key = str(raw_key).strip().lower()
            if key in UNSUPPORTED_MCS_KEYS:
                warnings.warn(f"MCS config key {key!r} is not supported by this simulator; ignored", stacklevel=3)
                continue
            field_name = _KEY_TO_FIELD.get(key, key)
            parser = _PARSERS.get(field_name)
            if parser is None:
                warnings.warn(f"unknown MCS config key {raw_key!r}; ignored", stacklevel=3)
                continue
            try:
                kwargs[field_name] = parser(value)
            except (TypeError, ValueError) as error:
                raise ValueError(f"config key {key!r}: {error}") from error
        return cls(**kwargs)


_KEY_TO_FIELD: dict[str, str] = {"width": "image_width", "height": "image_height"}
_PARSERS: dict[str, Callable[[Any], Any]] = {
    "metadata": normalize_tier,
    "size": _parse_int,
    "image_width": _parse_int,
    "image_height": _parse_int,
    "disable_depth_maps": parse_bool,
    "disable_object_masks": parse_bool,
    "disable_position": parse_bool,
    "only_return_goal_object": parse_bool,
    "noise_enabled": parse_bool,
    "steps_allowed_in_lava": _parse_int,
    "lava_penalty": _parse_number,
    "step_penalty": _parse_number,
    "goal_reward": _parse_number,
    "reward_mode": _parse_str,
    "history_enabled": parse_bool,
    "timeout": _parse_int,
    "controller_timeout": _parse_int,
    "terminal_output": _parse_terminal_output,
    "evaluation_name": _parse_str,
    "team": _parse_str,
    "render": parse_bool,
    "seed": _parse_int,
    "max_held_objects": _parse_int,
    "randomize_rendering": parse_bool,
}
assert set(_PARSERS) == {f.name for f in dataclasses.fields(MCSConfig)}


def read_config_file(path: str | os.PathLike[str]) -> dict[str, str]:
    """The key/value pairs of the [MCS] section of an INI file (`key: value` or `key = value`)."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        with open(path, encoding="utf-8-sig") as handle:
            parser.read_file(handle)
    except UnicodeDecodeError as error:
        raise ValueError(f"{os.fspath(path)}: byte {error.start}: not UTF-8 text ({error.reason})") from None
    except configparser.Error as error:
        raise ValueError(f"{os.fspath(path)}: not a valid INI config file: {error}") from error
    if not parser.has_section(CONFIG_SECTION):
        warnings.warn(f"{os.fspath(path)}: no [{CONFIG_SECTION}] section; using default config", stacklevel=2)
        return {}
    return dict(parser.items(CONFIG_SECTION))


def load_config(config: Mapping[str, Any] | str | os.PathLike[str] | MCSConfig | None = None) -> MCSConfig:
    """Config from a dict, an INI file path or an MCSConfig; the MCS_CONFIG_FILE_PATH env var overrides all (as MCS)."""
    env_path = os.environ.get(CONFIG_FILE_ENV_VAR)
    if env_path:
        if not Path(env_path).is_file():
            raise FileNotFoundError(f"{CONFIG_FILE_ENV_VAR}={env_path!r}: no such config file")
        config = Path(env_path)
    if config is None:
        return MCSConfig()
    if isinstance(config, MCSConfig):
        return config
    if isinstance(config, Mapping):
        return MCSConfig.from_dict(config)
    if not isinstance(config, (str, os.PathLike)):  # an int would be opened as a file descriptor
        raise ValueError(f"config must be a dict, an INI file path or an MCSConfig, got {type(config).__name__}")
    return MCSConfig.from_dict(read_config_file(config))
