#!/usr/bin/env bash
# TensorFlow reads the checkpoints of duet models and optimizers, and tf_keras restores them into
# the equivalent Keras models. Skips (passing, with a message) when TensorFlow cannot be imported:
# set DUET_TF_PYTHON to an interpreter that has it.
set -euo pipefail
source tests/interop/peer_python.sh tensorflow
dir="${TEST_TMPDIR:-$(mktemp -d)}/duet_checkpoints"
mkdir -p "$dir"
tests/interop/export_duet_checkpoints "$dir"
TF_USE_LEGACY_KERAS=1 TF_CPP_MIN_LOG_LEVEL=2 "$python" tests/interop/check_duet_checkpoints_in_tf.py "$dir"
