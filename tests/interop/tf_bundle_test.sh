#!/usr/bin/env bash
# TensorFlow reads a TensorBundle checkpoint duet wrote (every dtype, strings, 20,000 keys) and
# writes byte-identical files from the same tensors. Skips (passing, with a message) when
# TensorFlow cannot be imported: set DUET_TF_PYTHON to an interpreter that has it.
set -euo pipefail
source tests/interop/peer_python.sh tensorflow
dir="${TEST_TMPDIR:-$(mktemp -d)}/duet_bundle"
mkdir -p "$dir"
tests/interop/export_duet_bundle "$dir"
TF_CPP_MIN_LOG_LEVEL=2 "$python" tests/interop/check_duet_bundle_in_tf.py "$dir"
