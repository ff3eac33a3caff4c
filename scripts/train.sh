#!/usr/bin/env bash
# The main job: make the datasets if missing, train with the real AllenAct CLI on the embedded simulator, then
# evaluate the final checkpoint with `mcs-plugin evaluate` on held-out easy retrieval scenes (another seed and split
# than training) and on the default test split. Leaves checkpoints, tensorboard logs, evaluation JSON and episode
# GIFs under $OUT (default runs/train).
#   EXPERIMENT  experiment file (default experiments/mcs_retrieval_dagger.py)
#   TRAIN_STEPS training steps (default 80000); SCENES training scenes (default: the default dataset's easy ones)
#   PROCESSES   task samplers (default 16), run in SAMPLER_PROCS OS processes (default: the core count)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
OUT=${OUT:-runs/train}
EXPERIMENT=${EXPERIMENT:-experiments/mcs_retrieval_dagger.py}
TRAIN_STEPS=${TRAIN_STEPS:-80000}
PROCESSES=${PROCESSES:-16}
SAMPLER_PROCS=${SAMPLER_PROCS:-$(nproc)}
SCENES=${SCENES:-data/scenes/default/train/retrieval-easy-*.json}
HELDOUT=data/scenes/heldout_easy
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" OMP_NUM_THREADS=1 LP_NUM_THREADS=1
start=$(date +%s)

"$VENV/bin/python" -c "from mcs_plugin.scenes import ensure_default_dataset; print('scenes:', ensure_default_dataset(progress=False))"
[ -d "$HELDOUT/test" ] || "$VENV/bin/mcs-plugin" generate --goal retrieval --count 40 --split test --difficulty easy \
  --seed 12345 --out "$HELDOUT" --no-progress
"$VENV/bin/allenact" "$EXPERIMENT" -o "$OUT" -s 1 --max_sampler_processes_per_worker "$SAMPLER_PROCS" --callbacks training_progress \
  --config_kwargs "{\"train_steps\": $TRAIN_STEPS, \"processes\": $PROCESSES, \"save_interval\": $(( TRAIN_STEPS / 4 )), \"scenes\": \"$SCENES\"}"
checkpoint=$(ls -t "$OUT"/checkpoints/*/*/*.pt 2>/dev/null | head -n 1)
if [ -z "$checkpoint" ]; then
  echo "training wrote no checkpoint: see the log above" >&2
  exit 1
fi
echo "trained in $(( $(date +%s) - start )) s: $checkpoint"
"$VENV/bin/mcs-plugin" evaluate "$checkpoint" data/scenes/default/test --json > "$OUT/evaluation_test.json"
"$VENV/bin/mcs-plugin" evaluate "$checkpoint" "$HELDOUT/test" --video "$OUT/videos" --json > "$OUT/evaluation_heldout_easy.json"
"$VENV/bin/python" - "$OUT" <<'PY'
import json, sys
for name in ("test", "heldout_easy"):
    r = json.load(open(f"{sys.argv[1]}/evaluation_{name}.json"))
    print(f"{name}: {r['episodes']} episodes  success {r['success']:.2f}  spl {r['spl']:.2f}  "
          f"episode length {r['ep_length']:.1f}  ({sys.argv[1]}/evaluation_{name}.json)")
PY
echo "make train finished in $(( $(date +%s) - start )) s; episode videos in $OUT/videos"
