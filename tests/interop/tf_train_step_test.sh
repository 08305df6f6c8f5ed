#!/usr/bin/env bash
# TensorFlow runs training steps duet traced and exported (every optimizer's fused ResourceApply*
# op) and updates the variables as duet did. Skips (passing, with a message) when TensorFlow
# cannot be imported: set DUET_TF_PYTHON to an interpreter that has it.
set -euo pipefail
source tests/interop/peer_python.sh tensorflow
dir="${TEST_TMPDIR:-$(mktemp -d)}/duet_train_steps"
mkdir -p "$dir"
tests/interop/export_duet_train_steps "$dir"
TF_CPP_MIN_LOG_LEVEL=2 "$python" tests/interop/check_duet_train_steps_in_tf.py "$dir"
