#!/usr/bin/env bash
# Creates the Python venv that runs the real-MCS (Unity) backend's host child: .venv-mcs with
# machine_common_sense 0.7.4 (needs Python < 3.11, pydantic 1), plus its undeclared dependency portalocker
# and numpy < 2 (opencv/scikit-image in its pins fail to import with numpy 2). Idempotent.
#
#   scripts/setup_unity_backend.sh                 # uses python3.10 (PYTHON=/path/to/python3.x to override)
#   MCS_VERSION=0.7.4 VENV=.venv-mcs scripts/setup_unity_backend.sh
#
# Then: MCSEnvironment("unity", config, python_executable=".venv-mcs/bin/python", unity_app_file_path=...)
# or export MCS_PLUGIN_UNITY_PYTHON=$PWD/.venv-mcs/bin/python. The Unity app itself is downloaded by
# machine_common_sense on first use (~/.mcs/<version>/) unless unity_app_file_path is given; it needs an X
# display ($DISPLAY, or Xvfb installed: apt-get install xvfb x11-utils).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv-mcs}
MCS_VERSION=${MCS_VERSION:-0.7.4}
PY=${PYTHON:-}
if [ -z "$PY" ]; then
  for candidate in python3.10 python3.9 python3.8; do
    if command -v "$candidate" >/dev/null && "$candidate" -c 'import sys' 2>/dev/null; then PY=$candidate; break; fi
  done
  # pyenv installs that are not on PATH's shims
  [ -z "$PY" ] && PY=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.10.*/bin/python3.10 2>/dev/null | tail -1 || true)
fi
if [ -z "$PY" ]; then
  echo "error: need Python 3.8-3.10 for machine_common_sense $MCS_VERSION (set PYTHON=/path/to/python3.10)" >&2
  exit 1
fi
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info < (3, 11) else 1)'; then
  echo "error: $PY is Python >= 3.11; machine_common_sense $MCS_VERSION needs < 3.11" >&2
  exit 1
fi
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install --disable-pip-version-check -q "machine-common-sense==$MCS_VERSION" portalocker "numpy<2"
"$VENV/bin/python" -c 'import machine_common_sense as m; print("machine_common_sense", m.__version__, "ready in '"$VENV"'")'
