"""Imports each duet-exported GraphDef in a directory into TensorFlow
(tf.compat.v1.import_graph_def), runs it on the input duet ran, and compares TensorFlow's output
with duet's (relative tolerance 1e-5). Exits 1 on any mismatch.

    python check_duet_graphs_in_tf.py DIR    # DIR written by export_duet_graphs
"""
import glob
import os
import sys

import numpy as np
import tensorflow as tf


def check(base):
    with open(base + ".names") as f:
        input_name, output_name = f.read().split()
    graph_def = tf.compat.v1.GraphDef()
    with open(base + ".pb", "rb") as f:
        graph_def.ParseFromString(f.read())
    with tf.Graph().as_default() as graph:
        tf.compat.v1.import_graph_def(graph_def, name="")
        with tf.compat.v1.Session(graph=graph) as sess:
            got = sess.run(output_name, {input_name: np.load(base + "_input.npy")})
    expected = np.load(base + "_expected.npy")
    ops = sorted({n.op for n in graph_def.node})
    ok = got.shape == expected.shape and np.allclose(got, expected, rtol=1e-5, atol=1e-6)
    print(f"{os.path.basename(base)}: {'ok' if ok else 'MISMATCH'} ({len(graph_def.node)} nodes, "
          f"ops {ops}; max abs difference {np.max(np.abs(got - expected)) if got.shape == expected.shape else 'shape ' + str(got.shape)})")
    return ok


def main():
    bases = sorted(p[: -len(".names")] for p in glob.glob(os.path.join(sys.argv[1], "*.names")))
    if not bases:
        print("no exported graphs found in", sys.argv[1])
        return 1
    results = [check(b) for b in bases]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
