#!/usr/bin/env bash
# duet's ops against TensorFlow's CPU kernels, case by case (op_diff.py): the CI run, with the
# default seed and budget. Skips (passing, with a message) when TensorFlow cannot be imported: set
# DUET_TF_PYTHON to an interpreter that has it (tools/dev.sh sets it to $HOME/.venvs/tf/bin/python
# when that exists).
set -euo pipefail
python="${DUET_TF_PYTHON:-python3}"
if ! "$python" -c "import tensorflow" >/dev/null 2>&1; then
  echo "SKIPPED: $python cannot import tensorflow (pip install tensorflow-cpu, or set DUET_TF_PYTHON)"
  exit 0
fi
TF_CPP_MIN_LOG_LEVEL=3 "$python" tests/interop/op_diff.py --duet tools/duet \
  --runner tests/interop/run_op_cases "$@"
