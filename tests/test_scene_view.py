"""`mcs-plugin view`: the top-down map + first-person frames figure."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from mcs_plugin.scenes import generator as gen
from mcs_plugin.scenes.cli import main as scenes_main
from mcs_plugin.scenes.view import FIGURE_SIZE, view_scene

SAMPLE = Path(__file__).parent / "data" / "scenes" / "retrieval_goal_example_with_soccer_ball.json"


def test_view_writes_png_of_expected_size(tmp_path):
    out = view_scene(SAMPLE, tmp_path / "sample.png")
    image = Image.open(out)
    assert image.format == "PNG" and image.size == FIGURE_SIZE
    pixels = np.asarray(image.convert("RGB"))
    assert pixels.std() > 10  # something was drawn


def test_view_generated_scenes_via_cli(tmp_path, capsys):
    gen.generate("retrieval", 1, "train", "hard", 1, tmp_path, image_size=16, progress=False)
    gen.generate("intuitive_physics", 1, "train", "easy", 1, tmp_path, progress=False)
    for scene in sorted((tmp_path / "train").glob("*.json"))[:2]:
        out = tmp_path / f"{scene.stem}.png"
        assert scenes_main(["view", str(scene), "--out", str(out)]) == 0
        assert Image.open(out).size == FIGURE_SIZE
    assert "wrote" in capsys.readouterr().out


def test_view_missing_file_fails_cleanly(tmp_path):
    assert scenes_main(["view", str(tmp_path / "nope.json"), "--out", str(tmp_path / "x.png")]) == 1
