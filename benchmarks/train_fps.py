"""Training throughput of the retrieval experiments (frames/s as AllenAct reports them, `approx_fps`).

Reproduce (as recorded in benchmarks/RESULTS.md):
    .venv/bin/python benchmarks/train_fps.py --experiment ppo --steps 30000
    .venv/bin/python benchmarks/train_fps.py --experiment dagger --steps 30000
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FPS = re.compile(r"approx_fps ([0-9.]+)")


EXPERIMENTS = {"ppo": "experiments/mcs_retrieval_ppo.py", "dagger": "experiments/mcs_retrieval_dagger.py"}


def run(experiment: str, processes: int, sampler_processes: int, resolution: int, steps: int,
        rollout_steps: int, extra: dict | None = None) -> dict:
    """Train for `steps` steps on the easy training scenes; returns AllenAct's FPS readings (after the first), the
    wall time and the CPU time of all processes per frame (which a busy machine changes less than frames/s)."""
    from mcs_plugin.scenes import ensure_default_dataset

    root = ensure_default_dataset(quiet=True, progress=False)
    kwargs = {"train_steps": steps, "processes": processes, "resolution": resolution,
              "rollout_steps": rollout_steps, "save_interval": steps,
              "scenes": str(root / "train" / "retrieval-easy-*.json"), **(extra or {})}
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))  # the caller's entries kept
    env = {**os.environ, "PYTHONPATH": path, "OMP_NUM_THREADS": "1", "LP_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        cpu_before = _children_cpu_s()
        log = subprocess.run([sys.executable, "-m", "allenact.main", EXPERIMENTS[experiment], "-o", out, "-s", "1",
                              "--max_sampler_processes_per_worker", str(sampler_processes),
                              "--config_kwargs", json.dumps(kwargs)], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
        wall = time.perf_counter() - start
        cpu = _children_cpu_s() - cpu_before
    readings = [float(m) for m in FPS.findall(log)][1:]
    if not readings:
        raise RuntimeError(f"no FPS lines in the AllenAct log:\n{log[-2000:]}")
    return {"fps_median": statistics.median(readings), "fps_readings": len(readings), "wall_s": wall,
            "cpu_ms_per_frame": 1000.0 * cpu / steps}


def _children_cpu_s() -> float:
    """User + system CPU seconds of the finished child processes (the trainer and its sampler processes)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--experiment", choices=sorted(EXPERIMENTS), default="ppo")
    parser.add_argument("--processes", type=int, default=16, help="task samplers")
    parser.add_argument("--sampler-processes", type=int, default=os.cpu_count() or 2,
                        help="OS processes the samplers run in (AllenAct's --max_sampler_processes_per_worker)")
    parser.add_argument("--resolution", type=int, default=64)
    parser.add_argument("--steps", type=int, default=30000)
    parser.add_argument("--rollout-steps", type=int, default=64)
    parser.add_argument("--config-kwargs", type=json.loads, default={},
                        help='more of the experiment\'s config kwargs, as JSON (e.g. \'{"num_mini_batch": 2}\')')
    args = parser.parse_args()
    result = run(args.experiment, args.processes, args.sampler_processes, args.resolution, args.steps,
                 args.rollout_steps, args.config_kwargs)
    print(f"{args.experiment} training, {args.processes} samplers in {args.sampler_processes} processes, "
          f"{args.resolution}x{args.resolution}, "
          f"{args.steps} steps{' ' + json.dumps(args.config_kwargs) if args.config_kwargs else ''}: median {result['fps_median']:.1f} frames/s over {result['fps_readings']} "
          f"readings; wall {result['wall_s']:.0f} s (incl. start-up); "
          f"CPU {result['cpu_ms_per_frame']:.2f} ms per frame (all processes, incl. start-up)")


if __name__ == "__main__":
    main()
