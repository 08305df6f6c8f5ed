#!/usr/bin/env bash
# TFRecord files of Examples both ways (plain, ZLIB, GZIP; float, int64, bytes and a
# variable-length feature): TensorFlow reads duet's with tf.data.TFRecordDataset +
# tf.io.parse_example, duet reads TensorFlow's with RecordReader + parse_example. Skips (passing,
# with a message) when TensorFlow cannot be imported: set DUET_TF_PYTHON to an interpreter that
# has it.
set -euo pipefail
python="${DUET_TF_PYTHON:-$HOME/.venvs/tf/bin/python}"
if ! "$python" -c "import tensorflow" >/dev/null 2>&1; then
  echo "SKIPPED: $python cannot import tensorflow (pip install tensorflow-cpu, or set DUET_TF_PYTHON)"
  exit 0
fi
dir="${TEST_TMPDIR:-$(mktemp -d)}/tf_records"
mkdir -p "$dir"
tests/interop/duet_tf_records write "$dir"
TF_CPP_MIN_LOG_LEVEL=2 "$python" tests/interop/tf_records.py check "$dir"
TF_CPP_MIN_LOG_LEVEL=2 "$python" tests/interop/tf_records.py write "$dir"
tests/interop/duet_tf_records check "$dir"
