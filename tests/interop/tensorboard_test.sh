#!/usr/bin/env bash
# TensorBoard reads duet's event files: tensorboard's EventAccumulator finds every scalar,
# histogram, image, text and the graph export_duet_summaries writes, with TensorFlow's values.
# Skips (passing, with a message) when TensorFlow or TensorBoard cannot be imported: set
# DUET_TF_PYTHON to an interpreter that has them.
set -euo pipefail
source tests/interop/peer_python.sh tensorflow tensorboard
dir="${TEST_TMPDIR:-$(mktemp -d)}/duet_summaries"
rm -rf "$dir"
mkdir -p "$dir"
tests/interop/export_duet_summaries "$dir"
TF_CPP_MIN_LOG_LEVEL=2 "$python" tests/interop/check_duet_summaries_in_tb.py "$dir"
