#!/usr/bin/env bash
# TensorFlow loads a SavedModel duet exported and serves its outputs; saved_model_cli lists it.
# Skips (passing, with a message) when TensorFlow cannot be imported: set DUET_TF_PYTHON to an
# interpreter that has it.
set -euo pipefail
source tests/interop/peer_python.sh tensorflow
dir="${TEST_TMPDIR:-$(mktemp -d)}/duet_saved_model"
rm -rf "$dir" && mkdir -p "$dir"
tests/interop/export_duet_saved_model "$dir"
TF_CPP_MIN_LOG_LEVEL=2 "$python" tests/interop/check_duet_saved_model_in_tf.py "$dir"
