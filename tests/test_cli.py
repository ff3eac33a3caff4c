"""The `mcs-plugin` command line: validate, run-scene, conformance, --version."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mcs_plugin import __version__
from mcs_plugin.cli import SUBCOMMANDS, build_parser, depth_to_image, main, random_action

DATA = Path(__file__).parent / "data"
GOOD_SCENE = DATA / "scenes" / "retrieval_goal_example_with_soccer_ball.json"
CORPUS = DATA / "conformance"



def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert __version__ in capsys.readouterr().out


def test_subcommands_registered_in_one_place():
    names = [c.name for c in SUBCOMMANDS]
    assert {"run-scene", "validate", "conformance"} <= set(names)
    parser = build_parser()
    args = parser.parse_args(["conformance", "somewhere", "--metadata", "oracle", "--metadata", "level1",
                              "--test", "001", "002", "--json"])
    assert args.metadata == ["oracle", "level1"] and args.test == ["001", "002"] and args.json
    assert main([]) == 2  # no subcommand: usage, exit 2


def test_validate_good_scene(capsys):
    assert main(["validate", str(GOOD_SCENE)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out == ["1 files, 0 with problems"]


def test_validate_bad_scene(tmp_path, capsys):
    bad = json.loads(GOOD_SCENE.read_text(encoding="utf-8-sig"))
    bad["objects"][0]["shows"][0]["position"]["x"] = "far away"
    bad_path = tmp_path / "bad_scene.json"
    bad_path.write_text(json.dumps(bad))
    broken = tmp_path / "broken.json"
    broken.write_text('{"name": "x", ')
    assert main(["validate", str(GOOD_SCENE), str(tmp_path)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    problems = [line for line in lines if line.startswith(str(bad_path))]
    assert problems, lines
    assert any("objects[0].shows[0].position.x" in line for line in problems), problems
    assert any(line.startswith(f"{broken}:") and "JSON" in line for line in lines), lines
    assert lines[-1] == "3 files, 2 with problems"


def test_validate_recurses_into_folders_and_checks_goal_consistency(tmp_path, capsys):
    scene = json.loads(GOOD_SCENE.read_text(encoding="utf-8-sig"))
    scene["goal"]["metadata"]["target"]["id"] = "nobody"
    scene["objects"][0]["type"] = "soccer_bal"
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    (nested / "scene.json").write_text(json.dumps(scene))
    assert main(["validate", str(tmp_path)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == f"{nested / 'scene.json'}: objects[0].type: unknown MCS object type 'soccer_bal'; " \
                       "did you mean 'soccer_ball'?"
    scene["objects"][0]["type"] = "soccer_ball"  # now it loads: only the goal target is left
    (nested / "scene.json").write_text(json.dumps(scene))
    assert main(["validate", str(tmp_path)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines == [f"{nested / 'scene.json'}: goal.metadata.target.id: goal target 'nobody' is not an object of "
                     "the scene", "1 files, 1 with problems"]


def test_validate_missing_path(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nope.json")]) == 1
    assert "nope.json: no such file" in capsys.readouterr().out


def test_depth_to_image_nearest_is_bright():
    depth = np.array([[1.0, 2.0], [4.0, 0.0]], dtype=np.float32)
    pixels = np.asarray(depth_to_image(depth))
    assert pixels.dtype == np.uint8 and pixels.shape == (2, 2)
    assert pixels[0, 0] == 255 and pixels[0, 0] > pixels[0, 1] > pixels[1, 0] > 0 and pixels[1, 1] == 0


def test_random_action_targets_use_image_coords():
    rng = random.Random(3)
    for _ in range(50):
        name, params = random_action(rng, [("PickupObject", {}), ("PutObject", {}), ("EndScene", {})], 60, 40)
        assert name in ("PickupObject", "PutObject")  # EndScene avoided while anything else is allowed
        assert 0 <= params["objectImageCoordsX"] < 60 and 0 <= params["objectImageCoordsY"] < 40
        if name == "PutObject":
            assert 0 <= params["receptacleObjectImageCoordsX"] < 60
    assert random_action(rng, [("Pass", {})], 60, 40) == ("Pass", {})
    assert random_action(rng, [("PickupObject", {"objectId": "ball"})], 60, 40) == ("PickupObject", {"objectId": "ball"})


def test_run_scene_random_writes_images_and_json(tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["run-scene", str(GOOD_SCENE), "--random", "5", "--seed", "7", "--size", "150", "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out.strip().splitlines()
    assert printed[0].startswith("step    0") and len([p for p in printed if p.startswith("step ")]) == 6
    summary = json.loads((out / "summary.json").read_text())
    assert summary["steps"] == 5 and sum(summary["return_status_counts"].values()) == 6
    assert isinstance(summary["final_reward"], (int, float))
    for index in range(6):
        meta = json.loads((out / f"step_{index:04d}.json").read_text())
        assert meta["step_number"] == index
        with Image.open(out / f"step_{index:04d}.png") as rgb:
            assert rgb.mode == "RGB" and rgb.size == (150, 100)
        with Image.open(out / f"depth_{index:04d}.png") as depth:
            assert depth.mode == "L" and depth.size == (150, 100)
        with Image.open(out / f"mask_{index:04d}.png") as mask:
            assert mask.size == (150, 100)


def test_run_scene_actions_file_quiet(tmp_path, capsys):
    actions = tmp_path / "actions.txt"
    actions.write_text("# a comment\nMoveAhead\n\nRotateLeft\n")
    out = tmp_path / "run"
    assert main(["run-scene", str(GOOD_SCENE), "--actions", str(actions), "--metadata", "level1", "--size", "120",
                 "--out", str(out), "--quiet"]) == 0
    assert capsys.readouterr().out == ""
    summary = json.loads((out / "summary.json").read_text())
    assert summary["actions"] == ["MoveAhead", "RotateLeft"]
    assert not (out / "mask_0001.png").exists()  # level1 has no masks


def test_conformance_json_one_test(capsys):
    assert main(["conformance", str(CORPUS), "--metadata", "oracle", "--test", "001", "--json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)  # exactly one JSON object on stdout
    assert set(data) == {"oracle"}
    tier = data["oracle"]
    assert set(tier) == {"passed", "total", "pass_rate", "failures", "errors"}
    assert tier["total"] == 1 and tier["passed"] in (0, 1)
    assert all(isinstance(tests, list) and all(isinstance(t, str) for t in tests) for tests in tier["failures"].values())


def test_conformance_text_report(capsys):
    assert main(["conformance", str(CORPUS), "--metadata", "level1", "--test", "001", "--no-progress"]) == 0
    assert "level1: " in capsys.readouterr().out


def test_conformance_details_and_plot_show_every_failing_value(doctored_corpus, tmp_path, capsys):
    folder = tmp_path / "pictures"
    assert main(["conformance", str(doctored_corpus), "--metadata", "oracle", "--no-progress", "--details",
                 "--plot", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "001.empty_room_movement (oracle): 3 failing values" in out
    listed = [line.strip() for line in out.splitlines() if line.startswith("  step ")]
    assert listed[0].startswith("step 5 position_x: expected 0.7, got 0.2") and len(listed) == 3
    assert sorted(p.name for p in folder.iterdir()) == [
        "001.empty_room_movement.oracle.png", "001.empty_room_movement.oracle.replayed.json"]


def test_conformance_writes_the_passing_tests(tmp_path, capsys):
    out = tmp_path / "passing.json"
    assert main(["conformance", str(CORPUS), "--metadata", "level1", "--test", "001", "004", "--no-progress",
                 "--write-passing", str(out)]) == 0
    passing = json.loads(out.read_text())
    assert set(passing) == {"level1"}
    assert [name[:4] for name in passing["level1"]] == ["001.", "004."]  # both reproduced (see passing.json)
    assert "level1: " in capsys.readouterr().out
