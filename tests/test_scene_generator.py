"""The scene generator: schema validity, determinism, splits, reachability, difficulty properties, workers."""

from __future__ import annotations

import copy
import hashlib
import json
import random
from pathlib import Path

import pytest

from mcs_plugin.mcs import parse_scene, validate_scene_file
from mcs_plugin.scenes import generator as gen
from mcs_plugin.scenes.candidate import Candidate
from mcs_plugin.scenes.checks import check_candidate, nav_grid, scene_failures, visible_at_start
from mcs_plugin.scenes.cli import main as scenes_main
from mcs_plugin.scenes.intuitive_physics import SCENARIOS, build_pair
from mcs_plugin.scenes.manifest import read_manifest
from mcs_plugin.scenes.navgrid import NavGrid
from mcs_plugin.scenes.placement import Footprint
from mcs_plugin.scenes.walk import walk_and_pick_up

IMAGE = 16  # small goal images keep the tests fast


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("scenes")
    for goal, difficulty, count in (("retrieval", "easy", 5), ("retrieval", "hard", 6), ("traversal", "medium", 2),
                                    ("transferral", "easy", 2), ("transferral", "hard", 1),
                                    ("intuitive_physics", "easy", 3)):
        gen.generate(goal, count, "train", difficulty, 7, out, image_size=IMAGE, progress=False)
    return out


def _scenes(root: Path, prefix: str = "") -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((root / "train").glob(f"{prefix}*.json"))]


def test_every_scene_is_valid_and_checked(dataset):
    paths = sorted((dataset / "train").glob("*.json"))
    assert len(paths) == 5 + 6 + 2 + 2 + 1 + 2 * 3
    for path in paths:
        assert validate_scene_file(path) == [], path
        scene = json.loads(path.read_text())
        parse_scene(scene)
        assert scene_failures(scene).ok, (path, scene_failures(scene))


def test_scenes_run_in_the_embedded_simulator(dataset):
    from mcs_plugin.sim.controller import EmbeddedController

    controller = EmbeddedController({"metadata": "oracle", "render": False})
    for name in ("retrieval-hard-train-s7-00000", "transferral-easy-train-s7-00000",
                 "traversal-medium-train-s7-00001", "intuitive_physics-easy-train-s7-00000-implausible"):
        scene = json.loads((dataset / "train" / f"{name}.json").read_text())
        output = controller.start_scene(scene)
        ids = {o.uuid for o in output.object_list} | {o.uuid for o in output.structural_object_list}
        for target in output.goal.target_ids():
            assert target in ids
        passive = scene.get("intuitivePhysics", False)
        for action in (["Pass"] * 3 if passive else ["MoveAhead", "RotateRight", "Pass"]):
            assert controller.step(action) is not None


def test_goal_metadata_is_complete(dataset):
    for scene in _scenes(dataset, "retrieval"):
        goal = scene["goal"]
        assert goal["category"] == "retrieval" and goal["last_step"] > 0
        target = goal["metadata"]["target"]
        assert target["id"] in {o["id"] for o in scene["objects"]}
        assert target["match_image"] is True
        assert len(target["info"]) >= 4 and goal["description"].startswith("Find and pick up the ")
        assert target["info"][-1] in goal["description"]
        image = target["image"]
        assert len(image) == IMAGE and len(image[0]) == IMAGE and len(image[0][0]) == 3
        flat = [v for row in image for px in row for v in px]
        assert all(isinstance(v, int) and 0 <= v <= 255 for v in flat)
        assert min(flat) < 200  # the object is drawn on the white background
    for scene in _scenes(dataset, "transferral"):
        metadata = scene["goal"]["metadata"]
        assert metadata["relationship"][0] == "target_1" and metadata["relationship"][2] == "target_2"
        assert metadata["relationship"][1] in ("next_to", "on_top_of")
        by_id = {o["id"]: o for o in scene["objects"]}
        assert by_id[metadata["target_1"]["id"]].get("pickupable") is True
        assert by_id[metadata["target_2"]["id"]].get("receptacle") is True
        assert "image" in metadata["target_1"] and "image" in metadata["target_2"]
    for scene in _scenes(dataset, "traversal"):
        assert scene["goal"]["category"] == "traversal" and "image" in scene["goal"]["metadata"]["target"]


def test_intuitive_physics_pairs(dataset):
    records = {r["id"]: r for r in read_manifest(dataset)}
    scenarios = set()
    for i in range(3):
        base = f"intuitive_physics-easy-train-s7-{i:05d}"
        plausible = json.loads((dataset / "train" / f"{base}-plausible.json").read_text())
        implausible = json.loads((dataset / "train" / f"{base}-implausible.json").read_text())
        for scene, answer in ((plausible, "plausible"), (implausible, "implausible")):
            goal = scene["goal"]
            assert scene["intuitivePhysics"] is True and goal["category"] == "intuitive physics"
            assert goal["answer"] == {"choice": answer}
            assert len(goal["action_list"]) == goal["last_step"] and all(a == ["Pass"] for a in goal["action_list"])
            walls = [o["id"][len("occluder_wall_"):] for o in scene["objects"] if o["id"].startswith("occluder_wall_")]
            poles = [o["id"][len("occluder_pole_"):] for o in scene["objects"] if o["id"].startswith("occluder_pole_")]
            assert walls and sorted(walls) == sorted(poles)
            assert any(o.get("moves") for o in scene["objects"] if not o["id"].startswith("occluder"))
        scenario = records[f"{base}-plausible"]["scenario"]
        scenarios.add(scenario)
        movers = lambda s: [o for o in s["objects"] if not o["id"].startswith("occluder")]  # noqa: E731
        if scenario == "object_permanence":
            assert not any(o.get("hides") for o in movers(plausible))
            assert any(o.get("hides") for o in movers(implausible))
        elif scenario == "shape_constancy":
            assert len({o["type"] for o in movers(plausible)}) == 1
            assert len({o["type"] for o in movers(implausible)}) == 2
        else:
            tp = movers(plausible)[0]["teleports"][0]["position"]["x"]
            ti = movers(implausible)[0]["teleports"][0]["position"]["x"]
            assert tp != ti
    assert scenarios == set(SCENARIOS)


def test_intuitive_physics_event_must_be_hidden():
    """A snapshot whose object is in the open where it should be hidden is rejected as event_visible."""
    plausible, _ = build_pair(random.Random(3), "medium", "ip-test", "object_permanence")
    assert check_candidate(plausible).ok
    broken = copy.deepcopy(plausible)
    hidden = next(s for s in broken.snapshots if s.reason == "event_visible")
    for obj in hidden.scene["objects"]:
        if obj["id"].startswith("occluder"):
            obj["shows"][0]["position"]["x"] += 3.0  # move the occluder away from the object
    assert check_candidate(broken).reason == "event_visible"


def test_determinism_by_seed(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        gen.generate("retrieval", 3, "train", "medium", 11, out, image_size=IMAGE, progress=False)
        gen.generate("intuitive_physics", 1, "train", "hard", 11, out, progress=False)
    assert _files(a) == _files(b) and len(_files(a)) == 3 + 2 + 1
    c = tmp_path / "c"
    gen.generate("retrieval", 3, "train", "medium", 12, c, image_size=IMAGE, progress=False)
    first = lambda root, seed: (root / "train" / f"retrieval-medium-train-s{seed}-00000.json").read_text()  # noqa: E731
    assert json.loads(first(a, 11))["objects"] != json.loads(first(c, 12))["objects"]


def test_workers_give_identical_output(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    gen.generate("retrieval", 4, "val", "easy", 5, one, workers=1, image_size=IMAGE, progress=False)
    gen.generate("retrieval", 4, "val", "easy", 5, two, workers=2, image_size=IMAGE, progress=False)
    assert _files(one) == _files(two)


def _content_hash(scene: dict) -> str:
    body = {k: v for k, v in scene.items() if k != "name"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def test_splits_are_disjoint(tmp_path):
    for split in gen.SPLITS:
        gen.generate("retrieval", 3, split, "easy", 0, tmp_path, image_size=0, progress=False)
    records = read_manifest(tmp_path)
    assert len(records) == 9
    ids, hashes, seeds = {}, {}, {}
    for split in gen.SPLITS:
        mine = [r for r in records if r["split"] == split]
        ids[split] = {r["id"] for r in mine}
        seeds[split] = {r["seed"] for r in mine}
        hashes[split] = {_content_hash(json.loads((tmp_path / r["path"]).read_text())) for r in mine}
        assert all(split in r["id"] and r["path"].startswith(f"{split}/") for r in mine)
    for x, y in (("train", "val"), ("train", "test"), ("val", "test")):
        assert not ids[x] & ids[y] and not hashes[x] & hashes[y] and not seeds[x] & seeds[y]
    assert gen.scene_seed("retrieval", "easy", "train", 0, 0) != gen.scene_seed("retrieval", "easy", "val", 0, 0)


def test_manifest_records(dataset):
    records = read_manifest(dataset)
    assert [r["id"] for r in records] == sorted(r["id"] for r in records)
    for r in records:
        assert (dataset / r["path"]).exists()
        for key in ("id", "path", "goal", "category", "difficulty", "split", "seed", "base_seed", "index"):
            assert key in r
        if r["goal"] != "intuitive_physics":
            for key in ("target_type", "distance", "visible_at_start", "n_obstacles", "in_container", "path_length"):
                assert key in r, key


def test_navgrid_bfs():
    grid = NavGrid(4.0, 4.0, (0.0, -1.5))
    assert grid.start_free and grid.reachable_fraction() == 1.0
    target = Footprint(0.0, 1.5, 0.1, 0.1)
    assert grid.path_length(target, 0.5) == pytest.approx(2.3, abs=0.11)
    # a wall across the whole room cuts the target off
    walled = NavGrid(4.0, 4.0, (0.0, -1.5), [Footprint(0.0, 0.0, 2.0, 0.05)])
    assert walled.path_length(target, 0.5) is None and walled.reachable_fraction() < 0.6
    assert grid.to_networkx().number_of_nodes() == int(grid.free.sum())


def _walled_scene(walls: bool) -> dict:
    scene = {
        "name": "walled", "roomDimensions": {"x": 8, "y": 3, "z": 8},
        "performerStart": {"position": {"x": -2.5, "y": 0, "z": 0}, "rotation": {"x": 0, "y": 90}},
        "objects": [{"id": "target", "type": "soccer_ball", "pickupable": True, "mass": 1,
                     "shows": [{"stepBegin": 0, "position": {"x": 2.0, "y": 0.11, "z": 0.0}}]}],
        "goal": {"category": "retrieval", "last_step": 100, "metadata": {"target": {"id": "target"}}},
    }
    if walls:
        for i, (dx, dz, sx, sz) in enumerate(((0, 1.0, 1.9, 0.1), (0, -1.0, 1.9, 0.1), (1.0, 0, 0.1, 1.9),
                                              (-1.0, 0, 0.1, 1.9))):
            scene["objects"].append({
                "id": f"wall_box_{i}", "type": "cube", "kinematic": True, "structure": True, "mass": 100,
                "shows": [{"stepBegin": 0, "position": {"x": 2.0 + dx, "y": 1.0, "z": dz},
                           "scale": {"x": sx, "y": 2.0, "z": sz}}]})
    return scene


def test_walled_in_target_is_rejected():
    open_scene, boxed = _walled_scene(False), _walled_scene(True)
    result = scene_failures(open_scene)
    assert result.ok and result.measured["path_length"]["target"] == pytest.approx(3.8, abs=0.15)
    assert nav_grid(boxed).start_free
    assert scene_failures(boxed).reason == "unreachable"
    assert check_candidate(Candidate(boxed, {})).reason == "unreachable"
    assert check_candidate(Candidate(open_scene, {}, visible_target="target", require_visible=True)).ok


def test_overlap_and_blocked_start_are_rejected(dataset):
    scene = _scenes(dataset, "retrieval-hard")[0]
    clash = copy.deepcopy(scene)
    other = copy.deepcopy(next(o for o in clash["objects"] if not o["id"].startswith("wall_")))
    other["id"] = "clash"
    clash["objects"].append(other)
    assert scene_failures(clash).reason == "overlap"
    blocked = copy.deepcopy(scene)
    pos = blocked["objects"][0]["shows"][0]["position"]
    blocked["performerStart"]["position"].update(x=pos["x"], z=pos["z"])
    assert scene_failures(blocked).reason == "start_blocked"


def test_difficulty_properties(dataset):
    records = read_manifest(dataset)
    easy = [r for r in records if r["goal"] == "retrieval" and r["difficulty"] == "easy"]
    hard = [r for r in records if r["goal"] == "retrieval" and r["difficulty"] == "hard"]
    assert easy and hard
    assert all(r["visible_at_start"] for r in easy) and all(r["distance"] <= 3.0 for r in easy)
    assert not any(r["visible_at_start"] for r in hard)
    assert sum(r["distance"] for r in easy) / len(easy) < sum(r["distance"] for r in hard) / len(hard)
    assert any(r["in_container"] for r in hard)
    # measured again in the simulator from the written files
    for r in easy[:2] + hard[:2]:
        scene = json.loads((dataset / r["path"]).read_text())
        assert visible_at_start(scene)[r["target_id"]] is (r["difficulty"] == "easy")


def test_summary_table_counts_rejections(tmp_path):
    summary = gen.generate("retrieval", 6, "train", "easy", 0, tmp_path, image_size=0, progress=False)
    assert summary.written == 6 and summary.candidates == 6 + sum(summary.rejected.values())
    text = gen.format_summary(summary)
    assert "rejected candidates by reason" in text and "retrieval" in text
    for reason, n in summary.rejected.items():
        assert reason in text


def test_cli_generate(tmp_path, capsys):
    code = scenes_main(["generate", "--goal", "traversal", "--count", "2", "--split", "test", "--difficulty", "hard",
                        "--seed", "3", "--out", str(tmp_path), "--image-size", "0", "--no-progress"])
    assert code == 0
    assert len(list((tmp_path / "test").glob("traversal-hard-test-s3-*.json"))) == 2
    assert "rejected candidates by reason" in capsys.readouterr().out


def test_register_adds_subcommands():
    import argparse

    from mcs_plugin.scenes.cli import register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["generate", "--goal", "retrieval", "--count", "1", "--out", "x"])
    assert args.split == "train" and args.difficulty == "easy" and args.workers == 1 and callable(args.handler)
    assert callable(parser.parse_args(["view", "s.json", "--out", "s.png"]).handler)


def test_ensure_default_dataset(tmp_path, monkeypatch):
    monkeypatch.setattr(gen, "DEFAULT_DATASET_SPEC", (("retrieval", "easy", "train", 2), ("retrieval", "medium", "val", 1)))
    root = gen.ensure_default_dataset(tmp_path / "default", image_size=0, progress=False, quiet=True)
    assert len(read_manifest(root)) == 3 and (root / "train").is_dir()
    stamp = (root / "DATASET.json").stat().st_mtime_ns
    assert gen.ensure_default_dataset(tmp_path / "default", image_size=0, progress=False) == root
    assert (root / "DATASET.json").stat().st_mtime_ns == stamp  # not generated again


def test_a_target_in_a_lidded_container_is_reached_from_in_front_of_its_hinge():
    """The chest's lid, hinged along its back edge, stands up there once opened and hides what the chest holds from
    behind: the reach region keeps the performer off the far side of that edge (here a chest turned 180 degrees,
    its back toward +z), and the path from behind ends beside or in front of it."""
    from mcs_plugin.scenes.checks import reach_region

    chest = {"id": "chest", "type": "chest_4", "openable": True, "receptacle": True,
             "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0, "z": 0}, "rotation": {"x": 0, "y": 180, "z": 0}}]}
    ball = {"id": "ball", "type": "soccer_ball", "pickupable": True,
            "shows": [{"stepBegin": 0, "position": {"x": 0, "y": 0.13, "z": 0}}]}
    scene = {"name": "lidded", "roomDimensions": {"x": 8, "y": 3, "z": 8}, "objects": [chest, ball],
             "performerStart": {"position": {"x": 0, "y": 0, "z": 3}, "rotation": {"x": 0, "y": 180}},
             "goal": {"category": "retrieval", "metadata": {"target": {"id": "ball"}}}}
    target, reach, (nx, nz, least) = reach_region(scene, "ball")
    assert (nx, nz) == pytest.approx((0.0, -1.0), abs=1e-9) and least == pytest.approx(-0.17)
    path = nav_grid(scene).path(target, reach, (nx, nz, least))
    assert path is not None and path[-1][1] <= 0.17  # not behind the back edge, z = 0.17
    assert nav_grid(scene).path(target, reach)[-1][1] > 0.17  # unconstrained, it stops behind the lid


def test_reachable_targets_can_be_picked_up_in_the_simulator(dataset):
    """The grid's notion of reachable holds in the simulator: walking its path, the target can be picked up
    (also from a closed container)."""
    records = read_manifest(dataset)
    chosen = [r for r in records if r["goal"] == "retrieval" and r["difficulty"] == "easy"][:1]
    chosen += [r for r in records if r["goal"] == "retrieval" and r["in_container"]][:1]
    assert len(chosen) == 2
    for r in chosen:
        assert walk_and_pick_up(json.loads((dataset / r["path"]).read_text())) == "SUCCESSFUL", r["id"]
