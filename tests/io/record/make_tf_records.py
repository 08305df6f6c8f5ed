"""Writes the TFRecord fixtures of record_writer_test with TensorFlow's own writer.

Run from the repository root: ~/.venvs/duet/bin/python tests/io/record/make_tf_records.py
"""
import tensorflow as tf

RECORDS = [b"", b"a", b"hello, records", bytes(range(256)) * 40]

for suffix, compression in (("", ""), (".zlib", "ZLIB"), (".gz", "GZIP")):
    path = "tests/io/record/testdata/tf_records" + suffix
    with tf.io.TFRecordWriter(path, options=compression) as writer:
        for record in RECORDS:
            writer.write(record)
