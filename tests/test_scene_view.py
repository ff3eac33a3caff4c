"""`mcs-plugin view`: the top-down map + first-person frames figure."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mcs_plugin.scenes import generator as gen
from mcs_plugin.scenes.cli import main as scenes_main
from mcs_plugin.scenes.topdown import HOLE_COLOUR, LAVA_COLOUR, draw_map, draw_objects, short_ids
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


SCENES = Path(__file__).parent / "data" / "scenes"


def _map(scene_file: str):
    """The map of a scene drawn on a figure: (scene dict, axes, entries keyed, label annotations)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from mcs_plugin.mcs import load_scene_json_file
    from mcs_plugin.scenes.view import scene_frames

    scene = load_scene_json_file(SCENES / scene_file)
    controller, _ = scene_frames(scene, width=64, height=64)
    figure = Figure(figsize=(9, 8), dpi=100)
    canvas = FigureCanvasAgg(figure)
    ax, key = figure.subplots(1, 2)
    labels = draw_map(ax, key, controller, scene, canvas.get_renderer())
    controller.stop_simulation()
    return scene, ax, labels, canvas.get_renderer()


def _cells(ax, colour: str) -> int:
    from matplotlib.colors import to_rgba

    return sum(1 for p in ax.patches if p.get_facecolor()[:3] == to_rgba(colour)[:3])


def test_map_draws_lava_and_holes_cell_by_cell():
    scene, ax, _, _ = _map("eval_7_interactive_lava_0001_01.json")
    assert scene["lava"] and _cells(ax, LAVA_COLOUR) == len(scene["lava"])
    scene, ax, _, _ = _map("eval_7_interactive_holes_0001_01.json")
    assert scene["holes"] and _cells(ax, HOLE_COLOUR) == len(scene["holes"])


def test_map_keys_ramps_platforms_and_the_target_an_agent_holds():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from mcs_plugin.mcs import load_scene_json_file
    from mcs_plugin.scenes.view import scene_frames

    scene = load_scene_json_file(SCENES / "eval_7_interactive_ramps_0001_01.json")
    controller, _ = scene_frames(scene, width=64, height=64)
    ax = Figure().add_subplot()
    FigureCanvasAgg(ax.figure)
    entries, _, _ = draw_objects(ax, controller, scene)
    controller.stop_simulation()
    roles = sorted(e.role for e in entries)
    assert roles == ["agent", "platform", "platform", "ramp", "ramp", "target"]  # no lips: parts of platforms
    held = next(e for e in entries if e.role == "target")
    assert held.object_type == "soccer_ball" and held.note.startswith("held by agent ") and held.beside
    assert all("top" in e.note for e in entries if e.role in ("ramp", "platform"))
    assert [e.number for e in entries] == list(range(1, len(entries) + 1))


@pytest.mark.parametrize("scene_file", ["playroom.json", "eval_7_interactive_ramps_0001_01.json"])
def test_map_labels_never_overlap(scene_file):
    """Crowded rooms: every label's text box is clear of every other (labels move out, with leader lines)."""
    from matplotlib.text import Text

    _, _, labels, renderer = _map(scene_file)
    boxes = [Text.get_window_extent(label, renderer) for label in labels]
    assert len(boxes) > 5
    overlapping = [(a.get_text(), b.get_text()) for i, (a, box_a) in enumerate(zip(labels, boxes))
                   for b, box_b in zip(labels[i + 1:], boxes[i + 1:]) if box_a.overlaps(box_b)]
    assert overlapping == []
    assert any(label.xyann != (0.0, 0.0) for label in labels)  # some had to move


def test_short_ids_are_short_unique_and_drop_word_prefixes():
    ids = ["771279e0-9cfa-41ef", "agent_4e2c679e-6a9c", "platform_cd1c451f-655c", "platform_cd1c0000-1111",
           "occluder_wall_1b4d2270", "occluder_pole_1b4d2270", "ball_a", "target"]
    short = short_ids(ids)
    assert short["771279e0-9cfa-41ef"] == "7712" and short["agent_4e2c679e-6a9c"] == "4e2c"
    assert (short["platform_cd1c451f-655c"], short["platform_cd1c0000-1111"]) == ("cd1c4", "cd1c0")
    assert (short["occluder_wall_1b4d2270"], short["occluder_pole_1b4d2270"]) == ("wall:1b4d", "pole:1b4d")
    assert short["ball_a"] == "ball_a" and short["target"] == "target"
    assert len(set(short.values())) == len(ids)
