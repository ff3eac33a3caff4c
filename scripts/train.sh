#!/usr/bin/env bash
# The main job: generate the default retrieval dataset if missing, train PPO with the real AllenAct CLI on the
# embedded simulator for a bounded number of steps, then evaluate the last checkpoint on the test split.
# Leaves checkpoints, tensorboard logs and metrics__test_*.json under $OUT (default runs/ppo).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
OUT=${OUT:-runs/ppo}
TRAIN_STEPS=${TRAIN_STEPS:-10000}
PROCESSES=${PROCESSES:-2}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" OMP_NUM_THREADS=1 LP_NUM_THREADS=1

"$VENV/bin/python" -c "from mcs_plugin.scenes import ensure_default_dataset; print('scenes:', ensure_default_dataset())"
"$VENV/bin/allenact" experiments/mcs_retrieval_ppo.py -o "$OUT" -s 1 \
  --config_kwargs "{\"train_steps\": $TRAIN_STEPS, \"processes\": $PROCESSES, \"save_interval\": $TRAIN_STEPS}"
checkpoint=$(ls -t "$OUT"/checkpoints/mcs-retrieval-ppo/*/*.pt 2>/dev/null | head -n 1)
if [ -z "$checkpoint" ]; then
  echo "training wrote no checkpoint: see the log above" >&2
  exit 1
fi
"$VENV/bin/allenact" experiments/mcs_retrieval_ppo.py -o "$OUT" -s 1 --eval -c "$checkpoint"
metrics=$(ls -t "$OUT"/metrics/mcs-retrieval-ppo/*/metrics__test_*.json 2>/dev/null | head -n 1)
[ -n "$metrics" ] || { echo "evaluation wrote no metrics: see the log above" >&2; exit 1; }
"$VENV/bin/python" - "$metrics" <<'PY'
import json, sys
tasks = json.load(open(sys.argv[1]))[0]["tasks"]
success = sum(t["success"] for t in tasks) / len(tasks)
print(f"test episodes: {len(tasks)}  success: {success:.2f}  metrics: {sys.argv[1]}")
PY
