#!/usr/bin/env bash
# Deployment check: the SavedModel examples/fashion_mnist exports for its CNN (trained for a few
# steps, so that the batch-norm statistics and weights have moved) runs in TensorFlow with the
# logits duet's model gave. Skips (passing, with a message) when TensorFlow cannot be imported:
# set DUET_TF_PYTHON to an interpreter that has it.
set -euo pipefail
source tests/interop/peer_python.sh tensorflow
out="${TEST_TMPDIR:-$(mktemp -d)}/tf_fashion_mnist"
rm -rf "$out"
examples/fashion_mnist --model=cnn --epochs=1 --steps=10 --out="$out"
TF_CPP_MIN_LOG_LEVEL=2 "$python" tests/interop/check_fashion_mnist_in_tf.py "$out/cnn"
