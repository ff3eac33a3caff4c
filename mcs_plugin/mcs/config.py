"""Controller configuration: MCS 0.7.4 config keys (INI section [MCS] or dict) plus this project's extensions."""

from __future__ import annotations

import configparser
import math
import os
import warnings
from pathlib import Path
from typing import Annotated, Any, Mapping

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

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


def _parse_reward_mode(value: Any) -> str:
    mode = _parse_str(value).strip().lower()
    if mode not in REWARD_MODES:
        raise ValueError(f"unknown reward_mode {mode!r}; allowed: {', '.join(REWARD_MODES)}")
    return mode


# Field types: each parses a config value as MCS does (strings from INI files, or typed values from a dict).
Tier = Annotated[str, BeforeValidator(normalize_tier)]
Int = Annotated[int, BeforeValidator(_parse_int)]
Count = Annotated[int, BeforeValidator(_parse_int), Field(ge=0)]
Number = Annotated[float, BeforeValidator(_parse_number)]
Bool = Annotated[bool, BeforeValidator(parse_bool)]
Str = Annotated[str, BeforeValidator(_parse_str)]


class MCSConfig(BaseModel):
    """Controller settings; field names are the config keys; `width`/`height` fill `image_width`/`image_height`.

    Extensions beyond MCS 0.7.4: width/height, reward_mode, render (False = no images), seed (noise and
    randomised looks), max_held_objects (1 = one hand as in the seed API, HAND_IS_FULL beyond; 0 = unlimited as
    in MCS 0.7.4) and randomize_rendering (True = lights and surface patterns drawn anew for every scene start,
    from the seed, for training).
    """

    model_config = ConfigDict(extra="forbid")

    metadata: Tier = "default"
    size: Int = 600
    image_width: Int | None = None
    image_height: Int | None = None
    disable_depth_maps: Bool = False
    disable_object_masks: Bool = False
    disable_position: Bool = False
    only_return_goal_object: Bool = False
    noise_enabled: Bool = False
    steps_allowed_in_lava: Count = 0
    lava_penalty: Number = 100.0
    step_penalty: Number = 0.001
    goal_reward: Number = 1.0
    reward_mode: Annotated[str, BeforeValidator(_parse_reward_mode)] = "seed"
    history_enabled: Bool = False
    timeout: Count = 3600
    controller_timeout: Count = 600
    terminal_output: Annotated[bool | str, BeforeValidator(_parse_terminal_output)] = True
    evaluation_name: Str = ""
    team: Str = ""
    render: Bool = True
    seed: Int = 0
    max_held_objects: Count = 1
    randomize_rendering: Bool = False

    @model_validator(mode="after")
    def _image_size(self) -> MCSConfig:
        """Every image side the keys give (size, width, height) is 1 to MAX_IMAGE_SIZE pixels."""
        width_key = "width" if self.image_width is not None else "size"
        height_key = "height" if self.image_height is not None else width_key  # else the height follows the width
        for key, value in (("size", self.size), (width_key, self.width), (height_key, self.height)):
            if not 1 <= value <= MAX_IMAGE_SIZE:
                raise ValueError(f"config {key}: image size {value} must be 1 to {MAX_IMAGE_SIZE} pixels "
                                 f"(image {self.width} x {self.height})")
        return self

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
            if field_name not in cls.model_fields:
                warnings.warn(f"unknown MCS config key {raw_key!r}; ignored", stacklevel=3)
                continue
            kwargs[field_name] = value
        try:
            return cls(**kwargs)
        except ValidationError as error:
            raise ValueError(_message(error)) from None


_KEY_TO_FIELD: dict[str, str] = {"width": "image_width", "height": "image_height"}
_FIELD_TO_KEY: dict[str, str] = {field: key for key, field in _KEY_TO_FIELD.items()}


def _message(error: ValidationError) -> str:
    """The first problem of a config, naming its key as the user wrote it (`config key 'width': ...`)."""
    detail = error.errors()[0]
    cause = detail.get("ctx", {}).get("error")
    if not detail["loc"]:  # a check across keys: its message names them
        return str(cause)
    key = _FIELD_TO_KEY.get(str(detail["loc"][0]), str(detail["loc"][0]))
    if cause is None:  # a constraint of the field type itself (a count below 0)
        return f"config {key} must be >= 0, got {detail['input']}"
    return f"config key {key!r}: {cause}"


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
