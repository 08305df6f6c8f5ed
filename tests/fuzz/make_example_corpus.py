"""Writes the seed corpus of example_fuzz (tests/fuzz/corpus_example/) with TensorFlow's protos.

Run from the repository root: ~/.venvs/duet/bin/python tests/fuzz/make_example_corpus.py
"""
import tensorflow as tf

F = tf.train.Feature


def example(**features):
    return tf.train.Example(features=tf.train.Features(feature=features)).SerializeToString()


SEEDS = {
    "mnist_like": example(image=F(float_list=tf.train.FloatList(value=[0.5, 1.0, -2.0, 3.25])),
                          label=F(int64_list=tf.train.Int64List(value=[7]))),
    "every_kind": example(
        image=F(float_list=tf.train.FloatList(value=[1, 2, 3, 4])),
        label=F(int64_list=tf.train.Int64List(value=[-(1 << 40)])),
        name=F(bytes_list=tf.train.BytesList(value=[b"duet"])),
        tags=F(bytes_list=tf.train.BytesList(value=[b"a", b"", b"ccc"])),
        weights=F(float_list=tf.train.FloatList(value=[0.25])),
        ids=F(int64_list=tf.train.Int64List(value=[1, 300, -5]))),
    "wrong_kinds": example(image=F(int64_list=tf.train.Int64List(value=[1, 2, 3, 4])),
                           label=F(float_list=tf.train.FloatList(value=[1.0])),
                           name=F()),
    "empty": b"",
}

for name, data in SEEDS.items():
    with open("tests/fuzz/corpus_example/" + name, "wb") as f:
        f.write(data)
