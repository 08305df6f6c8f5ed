#!/usr/bin/env bash
# duet's ops against TensorFlow's CPU kernels, case by case (op_diff.py): the CI run, with the
# default seed and budget. Skips (passing, with a message) when TensorFlow cannot be imported,
# unless DUET_REQUIRE_PEERS=1 (tests/interop/peer_python.sh).
set -euo pipefail
source tests/interop/peer_python.sh tensorflow
TF_CPP_MIN_LOG_LEVEL=3 "$python" tests/interop/op_diff.py --duet tools/duet \
  --runner tests/interop/run_op_cases "$@"
