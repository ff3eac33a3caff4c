"""Imitation on real Eval-7 families: the family / variant split, the Eval-7 DAgger experiment's samplers and expert
labels on real scenes (tests/data/scenes: copies of ../shared/mcs/eval7), and evaluation per family."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from experiments.mcs_eval7_dagger import MCSEval7DAggerExperimentConfig, eval7_scenes
from mcs_plugin.evaluation import evaluate, summarise
from mcs_plugin.evaluation.policy import TrainedPolicy
from mcs_plugin.evaluation.runner import format_report
from mcs_plugin.scenes.families import family_of, main as families_main, select, split_of, variant_of
from mcs_plugin.tasks import ImitationTask, RetrievalTask

SCENES = Path(__file__).resolve().parent / "data" / "scenes"
CONTAINERS = SCENES / "eval_7_interactive_containers_0001_01.json"
OBSTACLES = SCENES / "eval_7_interactive_obstacles_0001_01.json"
IMITATION = SCENES / "eval_7_interactive_imitation_0001_01.json"


@pytest.fixture()
def eval7_dir(tmp_path: Path) -> Path:
    """A folder shaped like ../shared/mcs/eval7: real scenes as train variants (01) and copies as held-out ones (03)."""
    for scene in (CONTAINERS, OBSTACLES, IMITATION):
        shutil.copy(scene, tmp_path / scene.name)
        shutil.copy(scene, tmp_path / scene.name.replace("_0001_01", "_0001_03"))
    shutil.copy(SCENES / "eval_7_interactive_ramps_0001_01.json", tmp_path)  # a family left out by default
    return tmp_path


def test_family_and_variant_come_from_the_file_name_or_the_scene_name(tmp_path):
    assert family_of("x/eval_7_interactive_spatial_reference_0001_07.json") == "spatial_reference"
    assert family_of("eval_7_passive_physics_gravity_support_0001_03.json") == "passive_physics_gravity_support"
    assert variant_of("eval_7_interactive_holes_0001_23.json") == 23 and variant_of("scene.json") is None
    renamed = tmp_path / "scene.json"
    shutil.copy(CONTAINERS, renamed)  # the file no longer names its family; the scene's own `name` does
    assert family_of(renamed) == "containers"
    assert family_of(renamed, "eval_7_interactive_lava_0001_05") == "lava"
    assert family_of(SCENES / "retrieval_goal_example_with_soccer_ball.json") == "other"


def test_variant_split_alternates_and_never_overlaps():
    names = [f"eval_7_interactive_lava_0001_{v:02d}.json" for v in range(1, 24, 2)]
    train, heldout = select(names, split="train"), select(names, split="heldout")
    assert [variant_of(p) for p in train] == [1, 5, 9, 13, 17, 21]
    assert [variant_of(p) for p in heldout] == [3, 7, 11, 15, 19, 23]
    assert split_of("other.json") == "train"
    assert select(names + ["eval_7_interactive_ramps_0001_01.json"], ["lava"], "train") == train
    with pytest.raises(ValueError, match="split"):
        select(names, split="test")


def test_families_command_lists_a_split(eval7_dir, capsys):
    assert families_main([str(eval7_dir), "--interactive", "--split", "heldout", "--families", "containers"]) == 0
    assert capsys.readouterr().out.split() == [str(eval7_dir / "eval_7_interactive_containers_0001_03.json")]


def test_experiment_trains_on_the_train_variants_and_tests_on_the_held_out_ones(eval7_dir):
    config = MCSEval7DAggerExperimentConfig(eval7_dir=str(eval7_dir), resolution=32, processes=1)
    train = config.train_task_sampler_args(process_ind=0, total_processes=1)
    test = config.test_task_sampler_args(process_ind=0, total_processes=1)
    names = lambda paths: sorted(Path(p).name for p in paths)  # noqa: E731
    assert names(train["scenes"]) == sorted(p.name for p in (CONTAINERS, IMITATION, OBSTACLES))
    assert all("_0001_03" in n for n in names(test["scenes"])) and len(test["scenes"]) == 3
    assert not set(names(train["scenes"])) & set(names(test["scenes"]))
    assert train["max_steps"] == 500 and train["task_class"] is None
    with pytest.raises(FileNotFoundError, match="Eval-7"):
        MCSEval7DAggerExperimentConfig(eval7_dir=str(eval7_dir / "missing")).train_task_sampler_args(0, 1)
    with pytest.raises(FileNotFoundError, match="no train scenes"):
        eval7_scenes(eval7_dir, ["tool_choice"], "train")


def test_experiment_samplers_take_steps_with_expert_labels(eval7_dir):
    """Each scene gets its goal's task (imitation too), one action space, and the oracle expert's labels."""
    config = MCSEval7DAggerExperimentConfig(eval7_dir=str(eval7_dir), resolution=32, processes=1,
                                            families=["imitation", "obstacles"])
    sampler = config.make_sampler_fn(**config.train_task_sampler_args(process_ind=0, total_processes=1))
    seen = set()
    try:
        for _ in range(2):
            task = sampler.next_task()
            seen.add(type(task))
            assert task.action_space.n == config.action_count()
            labelled = 0
            for _ in range(4):
                action, ok = task.get_observations()["expert_action"]  # the ExpertActionSensor asks the expert
                labelled += int(ok)
                task.step(int(action))
            assert labelled >= 1 or type(task) is ImitationTask  # imitation starts with a Pass-only preview
    finally:
        sampler.close()
    assert seen == {ImitationTask, RetrievalTask}


def test_evaluation_reports_success_per_family(eval7_dir):
    config = MCSEval7DAggerExperimentConfig(eval7_dir=str(eval7_dir), resolution=32)
    policy = TrainedPolicy(config, config.create_model().eval(), Path("untrained.pt"))
    records = evaluate(policy, [str(eval7_dir)], max_steps=3, progress=False)
    assert sorted(r.family for r in records) == ["containers", "containers", "imitation", "imitation", "obstacles",
                                                  "obstacles", "ramps"]
    summary = summarise(records)
    assert summary["by_family"]["containers"]["episodes"] == 2 and summary["by_family"]["ramps"]["success"] == 0.0
    assert json.dumps(summary)  # JSON-ready
    report = format_report(records)
    assert "family" in report and "spatial" not in report and "obstacles" in report


def test_evaluate_command_reports_a_random_policy_per_family(capsys):
    """`mcs-plugin evaluate random SCENES --experiment FILE --json`: the measured random reference, by family."""
    from mcs_plugin.cli import main

    experiment = str(Path(__file__).resolve().parents[1] / "experiments" / "mcs_eval7_dagger.py")
    code = main(["evaluate", "random", str(CONTAINERS), str(OBSTACLES), "--experiment", experiment, "--json",
                 "--max-steps", "4", "--config-kwargs", '{"resolution": 32}'])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["by_family"]) == {"containers", "obstacles"} and report["episodes"] == 2
    assert [row["family"] for row in report["per_scene"]] == ["containers", "obstacles"]
    assert all(row["ep_length"] == 4 and row["success"] == 0.0 for row in report["per_scene"])
    assert main(["evaluate", "random", str(CONTAINERS)]) == 2
    assert "needs --experiment" in capsys.readouterr().err


def test_collect_expert_records_a_real_eval7_scene(tmp_path):
    """`mcs-plugin collect-expert` on an Eval-7 scene: a BC dataset with the expert's solved episode."""
    from mcs_plugin.imitation.dataset import collect_expert_trajectories, read_index

    stats = collect_expert_trajectories([OBSTACLES], tmp_path / "data", resolution=32, max_steps=150, progress=False)
    assert stats["episodes"] == stats["successful"] == 1 and 30 <= stats["steps"] <= 150
    assert [family_of(e["scene_path"]) for e in read_index(tmp_path / "data")] == ["obstacles"]


def test_experts_of_a_process_share_a_graphs_half_grid_refinement():
    """Under DAgger every episode has its own expert: the half-grid graph (built where the graph finds no path, seconds
    in an Eval-7 room) is built once per graph, not once per expert."""
    from mcs_plugin.experts import make_expert
    from mcs_plugin.sim.controller import EmbeddedController
    from tests.sim_scenes import ball, scene

    controller = EmbeddedController({"metadata": "oracle", "render": False})
    try:
        output = controller.start_scene(scene(ball(z=2.0), goal={"category": "retrieval",
                                                                 "metadata": {"target": {"id": "ball"}}}))
        first, second = make_expert("retrieval"), make_expert("retrieval")
        graph = first.graph_for(output)
        assert second.graph_for(output) is graph  # shared per scene start already
        fine = first.fine_graph_for(output, graph)
        assert fine.grid == pytest.approx(graph.grid / 2)
        assert second.fine_graph_for(output, graph) is fine
    finally:
        controller.end_scene()
