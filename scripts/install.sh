#!/usr/bin/env bash
# The one install recipe: a virtualenv in .venv with CPU torch, AllenAct 0.5.4 (--no-deps, its runtime
# deps pinned) and this package in editable mode. Used by `make`, the README and .ci/run. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
VENV=${VENV:-.venv}
STAMP="$VENV/.mcs-plugin-installed"
if [ -f "$STAMP" ] && [ "$STAMP" -nt setup.cfg ] && [ "$STAMP" -nt scripts/install.sh ]; then
  exit 0
fi
# Rendering needs EGL (Mesa on CPU machines). Install it when missing and we can.
if ! ldconfig -p 2>/dev/null | grep -q "libEGL.so.1"; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq libegl1 libegl-mesa0 libgl1-mesa-dri >/dev/null
  else
    echo "warning: libEGL not found; install Debian packages libegl1 libegl-mesa0 libgl1-mesa-dri" >&2
  fi
fi
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
PIP="$VENV/bin/python -m pip --disable-pip-version-check -q"
$PIP install --upgrade pip
$PIP install torch==2.13.0
$PIP install --no-deps allenact==0.5.4 allenact-plugins==0.5.4
$PIP install gym==0.17.3 moviepy==1.0.3 "tensorboardx>=2.1" setproctitle filelock "numpy>=1.19.1" \
  "Pillow>=8.2.0" "matplotlib>=3.3.1" networkx opencv-python-headless "wheel>=0.36.2" "attrs>=21.4.0" "scipy>=1.5.4"
$PIP install -e ".[test]"
touch "$STAMP"
