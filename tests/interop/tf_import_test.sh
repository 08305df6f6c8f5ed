#!/usr/bin/env bash
# TensorFlow imports and runs graphs duet exported, and gets duet's outputs. Skips (passing, with
# a message) when TensorFlow cannot be imported: set DUET_TF_PYTHON to an interpreter that has
# it (tools/dev.sh sets it to $HOME/.venvs/duet/bin/python when that exists).
set -euo pipefail
source tests/interop/peer_python.sh tensorflow
dir="${TEST_TMPDIR:-$(mktemp -d)}/duet_graphs"
mkdir -p "$dir"
tests/interop/export_duet_graphs "$dir"
TF_CPP_MIN_LOG_LEVEL=2 "$python" tests/interop/check_duet_graphs_in_tf.py "$dir"
