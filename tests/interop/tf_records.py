"""TFRecord files of Examples between duet and TensorFlow (tests/interop/tf_record_test.sh).

    python tf_records.py write DIR   TensorFlow writes DIR/tf_examples{,.zlib,.gz}
    python tf_records.py check DIR   TensorFlow reads duet's DIR/duet_examples{,.zlib,.gz} with
                                     tf.data.TFRecordDataset + tf.io.parse_example and checks
                                     every value

Both sides write the same Examples (duet's side: tests/interop/duet_tf_records.cc): Example i
of N = 5 has "image" = [i + j / 4 for j in 0..3] (float32), "label" = 100 - i (int64), "name" =
b"ex<i>" (bytes) and "tags" = [b"tag<i>_<k>" for k in 0..i-1] (a variable-length bytes list).
"""
import sys

import numpy as np
import tensorflow as tf

N = 5
FILES = (("", ""), (".zlib", "ZLIB"), (".gz", "GZIP"))


def image(i):
    return [i + j / 4 for j in range(4)]


def tags(i):
    return [f"tag{i}_{k}".encode() for k in range(i)]


def write(dir_):
    for suffix, compression in FILES:
        with tf.io.TFRecordWriter(f"{dir_}/tf_examples{suffix}", options=compression) as out:
            for i in range(N):
                feature = {
                    "image": tf.train.Feature(float_list=tf.train.FloatList(value=image(i))),
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[100 - i])),
                    "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"ex%d" % i])),
                    "tags": tf.train.Feature(bytes_list=tf.train.BytesList(value=tags(i))),
                }
                example = tf.train.Example(features=tf.train.Features(feature=feature))
                out.write(example.SerializeToString())


def check(dir_):
    spec = {"image": tf.io.FixedLenFeature([4], tf.float32),
            "label": tf.io.FixedLenFeature([], tf.int64),
            "name": tf.io.FixedLenFeature([], tf.string),
            "tags": tf.io.VarLenFeature(tf.string)}
    for suffix, compression in FILES:
        path = f"{dir_}/duet_examples{suffix}"
        ds = tf.data.TFRecordDataset(path, compression_type=compression).batch(N + 1)
        batches = [tf.io.parse_example(s, spec) for s in ds]
        assert len(batches) == 1, (path, len(batches))
        parsed = batches[0]
        np.testing.assert_array_equal(parsed["image"].numpy(),
                                      np.array([image(i) for i in range(N)], np.float32))
        np.testing.assert_array_equal(parsed["label"].numpy(), [100 - i for i in range(N)])
        assert list(parsed["name"].numpy()) == [b"ex%d" % i for i in range(N)], path
        dense = tf.sparse.to_dense(parsed["tags"], default_value=b"").numpy()
        for i in range(N):
            assert list(dense[i][:i]) == tags(i), (path, i, dense[i])
            assert all(v == b"" for v in dense[i][i:]), (path, i, dense[i])
        print(f"TensorFlow read {N} Examples from {path}")


if __name__ == "__main__":
    {"write": write, "check": check}[sys.argv[1]](sys.argv[2])
