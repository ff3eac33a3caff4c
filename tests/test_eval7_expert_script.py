"""`benchmarks/eval7_expert.py`: scenes run in worker processes, one record each, and a second run resumes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sim_scenes import ball, scene, wall

ROOT = Path(__file__).resolve().parents[1]
GOAL = {"category": "retrieval", "metadata": {"target": {"id": "ball"}}, "last_step": 200}


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "eval7_expert.py"), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_two_jobs_record_every_scene_once_and_resume(tmp_path):
    scenes = []
    for name, objects in (("open", [ball(z=1.5)]), ("walled", [wall(z=1.0, width=3.0), ball(z=2.6)])):
        path = tmp_path / f"retrieval_{name}.json"
        path.write_text(json.dumps(scene(*objects, name=name, goal=GOAL)))
        scenes.append(str(path))
    out = tmp_path / "runs.jsonl"
    first = _run(str(out), *scenes, "--jobs", "2", "--cap", "120")
    assert first.returncode == 0, first.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["scene"] for r in records) == sorted(scenes)
    assert all(r["success"] and r["steps"] > 0 for r in records), records
    again = _run(str(out), *scenes, "--jobs", "2")
    assert again.returncode == 0, again.stderr
    assert len(out.read_text().splitlines()) == 2  # nothing run twice
    assert "100.0%" in again.stdout


def test_jobs_below_one_is_refused(tmp_path):
    result = _run(str(tmp_path / "runs.jsonl"), "--jobs", "0")
    assert result.returncode == 2 and "--jobs must be at least 1" in result.stderr
