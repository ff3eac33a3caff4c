"""Controller config: dict, INI file and MCS_CONFIG_FILE_PATH sources, tiers, sizes, booleans, unknown keys."""

import warnings
from pathlib import Path

import pytest

from mcs_plugin.mcs import MCSConfig, load_config

CONFORMANCE = Path(__file__).parent / "data" / "conformance"


@pytest.fixture(autouse=True)
def no_env_config(monkeypatch):
    monkeypatch.delenv("MCS_CONFIG_FILE_PATH", raising=False)


def test_defaults():
    config = load_config()
    assert config == MCSConfig() == load_config({})
    assert (config.tier, config.width, config.height) == ("default", 600, 400)
    assert config.steps_allowed_in_lava == 0
    assert (config.lava_penalty, config.step_penalty, config.goal_reward) == (100.0, 0.001, 1.0)
    assert config.reward_mode == "seed" and config.history_enabled is False and config.render is True
    assert (config.timeout, config.controller_timeout, config.seed) == (3600, 600, 0)
    assert config.max_held_objects == 1


def test_from_dict_with_strings_and_typed_values():
    config = load_config(
        {"metadata": "level2", "steps_allowed_in_lava": "3", "lava_penalty": 50, "disable_depth_maps": "yes",
         "disable_object_masks": True, "noise_enabled": "0", "team": "us", "render": "False", "seed": 7,
         "reward_mode": "MCS074", "terminal_output": "actions,performer", "max_held_objects": "0"}
    )  # fmt: skip
    assert config.tier == "level2" and config.steps_allowed_in_lava == 3 and config.lava_penalty == 50.0
    assert config.disable_depth_maps is True and config.disable_object_masks is True
    assert config.noise_enabled is False and config.render is False
    assert (config.team, config.seed, config.reward_mode) == ("us", 7, "mcs074")
    assert config.terminal_output == "actions,performer" and config.max_held_objects == 0


def test_load_config_passes_an_mcsconfig_through():
    config = MCSConfig(metadata="oracle")
    assert load_config(config) is config


def test_ini_file_with_colon_and_equals_syntax(tmp_path):
    path = tmp_path / "config.ini"
    path.write_text(
        "\ufeff[MCS]\nmetadata: full\nsize = 900\nhistory_enabled: true\nterminal_output: false\n"
        "evaluation_name = eval 7 %\n",
        encoding="utf-8",
    )
    config = load_config(path)
    assert config.tier == "oracle" and (config.width, config.height) == (900, 600)
    assert config.history_enabled is True and config.terminal_output is False
    assert config.evaluation_name == "eval 7 %"
    assert load_config(str(path)) == config


@pytest.mark.parametrize("tier", ["oracle", "level1", "level2"])
def test_conformance_ini_files(tier):
    config = load_config(CONFORMANCE / f"config_{tier}.ini")
    assert config.tier == tier
    assert config.disable_depth_maps and config.disable_object_masks and not config.history_enabled
    assert config.steps_allowed_in_lava == 1000


def test_ini_without_mcs_section_warns_and_uses_defaults(tmp_path):
    path = tmp_path / "config.ini"
    path.write_text("[Other]\nmetadata: oracle\n")
    with pytest.warns(UserWarning, match=r"no \[MCS\] section"):
        assert load_config(path) == MCSConfig()


def test_env_var_overrides_the_argument(tmp_path, monkeypatch):
    path = tmp_path / "env.ini"
    path.write_text("[MCS]\nmetadata: no_vision\n")
    monkeypatch.setenv("MCS_CONFIG_FILE_PATH", str(path))
    assert load_config({"metadata": "oracle"}).tier == "level1"
    assert load_config().tier == "level1"
    monkeypatch.setenv("MCS_CONFIG_FILE_PATH", str(tmp_path / "missing.ini"))
    with pytest.raises(FileNotFoundError, match="MCS_CONFIG_FILE_PATH"):
        load_config()


@pytest.mark.parametrize(
    "name, tier",
    [
        ("oracle", "oracle"), ("level2", "level2"), ("level1", "level1"), ("none", "none"), ("default", "default"),
        ("full", "oracle"), ("no_navigation", "level2"), ("no_vision", "level1"),
        (" ORACLE ", "oracle"), ("", "default"),
    ],
)  # fmt: skip
def test_tier_names_and_aliases(name, tier):
    assert load_config({"metadata": name}).tier == tier
    assert MCSConfig(metadata=name).tier == tier


def test_unknown_tier_names_the_allowed_values():
    with pytest.raises(ValueError) as error:
        load_config({"metadata": "level3"})
    for allowed in ("oracle", "level2", "level1", "none", "default", "full", "no_navigation", "no_vision"):
        assert allowed in str(error.value)


def test_unknown_and_unsupported_keys_warn_without_crashing():
    with pytest.warns(UserWarning, match="bogus_key"):
        config = load_config({"bogus_key": 1, "metadata": "oracle"})
    assert config.tier == "oracle"
    with pytest.warns(UserWarning, match="video_enabled"):
        load_config({"video_enabled": "true"})


def test_known_keys_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_config({"metadata": "oracle", "size": 600, "width": 128, "height": 128, "timeout": 10})


@pytest.mark.parametrize(
    "values, size",
    [
        ({"size": 300}, (300, 200)),  # MCS would clamp <450 to 600; we do not
        ({"size": 1200}, (1200, 800)),
        ({"width": 128, "height": 128}, (128, 128)),
        ({"size": 600, "width": 64, "height": 64}, (64, 64)),
        ({"width": 96}, (96, 64)),
        ({"height": 100}, (600, 100)),
        ({"size": "450"}, (450, 300)),
    ],
)
def test_sizes(values, size):
    config = load_config(values)
    assert (config.width, config.height) == size


@pytest.mark.parametrize(
    "values",
    [
        {"size": 0}, {"width": -5}, {"size": "big"}, {"size": 600.5}, {"render": "maybe"}, {"reward_mode": "dense"},
        {"max_held_objects": -1},
    ],
)
def test_bad_values_raise_naming_the_problem(values):
    with pytest.raises(ValueError):
        load_config(values)


@pytest.mark.parametrize(
    "text, expected", [("true", True), ("Yes", True), ("1", True), ("FALSE", False), ("no", False), ("0", False)]
)
def test_boolean_strings(text, expected):
    assert load_config({"disable_position": text}).disable_position is expected
