#!/usr/bin/env bash
# The benchmarks on a CUDA GPU machine with many cores, in one pass: the renderer and simulator over the NVIDIA
# driver's EGL, training frames/s with torch on `cuda` (PPO and DAgger, as benchmarks/train_fps.py), then the oracle
# expert on Eval-7 scenes, one scene per core. Logs go to $OUT (default runs/gpu).
#   EVAL7_DIR   folder of Eval-7 scene files for the expert sweep (skipped when unset or missing)
#   STEPS       training steps of each train_fps run (default 30000)
#   SWEEP_S     wall-clock budget of the sweep in seconds (default 300); CAP_S per scene (default 280)
# Expects python3 with CUDA torch and the project's dependencies importable (PYTHONPATH), as in
# benchmarks/RESULTS.md's "On a CUDA GPU machine".
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-runs/gpu}
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" OMP_NUM_THREADS=1 PYTHONUNBUFFERED=1
PY=${PY:-python3}
log() { echo "== $(date +%T) $*"; }

log machine; getconf _NPROCESSORS_ONLN; nvidia-smi -L 2>/dev/null
$PY -c "import torch, mujoco, moderngl; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'mujoco', mujoco.__version__)" || exit 1
$PY -c "import moderngl; print('EGL renderer:', moderngl.create_standalone_context(backend='egl', require=330).info['GL_RENDERER'])"

log renderer; $PY benchmarks/render_throughput.py --seconds 2 2>&1 | tail -5
log simulator; $PY benchmarks/sim_throughput.py --steps 300 2>&1 | tail -6

for run in ${RUNS:-"ppo" "dagger"}; do
  log "train_fps $run"
  $PY benchmarks/train_fps.py --experiment $run --steps "${STEPS:-30000}" 2>&1 | grep -E "frames/s|Error" | tail -3
done

if [ -n "${EVAL7_DIR:-}" ] && [ -d "$EVAL7_DIR" ]; then
  log "expert sweep over $(ls "$EVAL7_DIR"/eval_7_interactive_*.json | wc -l) interactive scenes"
  # Families with the longest episodes first, so that the budget's end cuts the short ones' queue; a stopped sweep
  # keeps the scenes it finished.
  ls "$EVAL7_DIR"/eval_7_interactive_*.json | awk '
    /tool|holes|lava|ramps|set_rotation|knowledgeable|occluded|collision/ {print "0 " $0; next} {print "1 " $0}' \
    | sort -s -k1,1 | cut -d' ' -f2 > "$OUT/eval7_order.txt"
  timeout "${SWEEP_S:-300}" $PY benchmarks/eval7_expert.py "$OUT/eval7_sweep.jsonl" $(cat "$OUT/eval7_order.txt") \
    --cap "${CAP_S:-280}" --jobs "$(getconf _NPROCESSORS_ONLN)" > /dev/null 2>&1
  $PY benchmarks/eval7_expert.py "$OUT/eval7_sweep.jsonl" --report
fi
log done
