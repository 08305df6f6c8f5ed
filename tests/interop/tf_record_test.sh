#!/usr/bin/env bash
# TFRecord files of Examples both ways (plain, ZLIB, GZIP; float, int64, bytes and a
# variable-length feature): TensorFlow reads duet's with tf.data.TFRecordDataset +
# tf.io.parse_example, duet reads TensorFlow's with RecordReader + parse_example. Skips (passing,
# with a message) when TensorFlow cannot be imported: set DUET_TF_PYTHON to an interpreter that
# has it.
set -euo pipefail
source tests/interop/peer_python.sh tensorflow
dir="${TEST_TMPDIR:-$(mktemp -d)}/tf_records"
mkdir -p "$dir"
tests/interop/duet_tf_records write "$dir"
# One interpreter for both steps: importing TensorFlow is most of this test's time.
TF_CPP_MIN_LOG_LEVEL=2 "$python" tests/interop/tf_records.py check,write "$dir"
tests/interop/duet_tf_records check "$dir"
