"""Runs each duet-exported training step in TensorFlow once and compares the variables it
updates (and the loss) with what duet's step did (relative tolerance 1e-5). Exits 1 on any
mismatch.

    python check_duet_train_steps_in_tf.py DIR    # DIR written by export_duet_train_steps

Each variable (a VarHandleOp, by shared_name) is first given duet's value before the step; the
step runs with the loss ("output_0") fetched and every stateful update node as a target, since
TensorFlow runs only what a fetch needs.
"""
import glob
import os
import sys

import numpy as np
import tensorflow as tf


def check(base):
    directory, name = os.path.dirname(base), os.path.basename(base)
    graph_def = tf.compat.v1.GraphDef()
    with open(base + ".pb", "rb") as f:
        graph_def.ParseFromString(f.read())
    manifest = [line.split("\t") for line in open(base + ".vars").read().splitlines()]
    handles = {n.attr["shared_name"].s.decode(): n.name for n in graph_def.node
               if n.op == "VarHandleOp"}
    updates = [n.name for n in graph_def.node
               if n.op.startswith(("ResourceApply", "AssignVariableOp", "AssignAddVariableOp",
                                   "AssignSubVariableOp"))]
    ok = True
    with tf.Graph().as_default() as graph:
        tf.compat.v1.import_graph_def(graph_def, name="")
        with tf.compat.v1.Session(graph=graph) as sess:
            for var, before, _ in manifest:
                if var in handles:
                    handle = graph.get_tensor_by_name(handles[var] + ":0")
                    sess.run(tf.raw_ops.AssignVariableOp(
                        resource=handle, value=np.load(os.path.join(directory, before))))
            loss, _ = sess.run(["output_0:0", updates],
                               {"arg0:0": np.load(base + "_x.npy"), "arg1:0": np.load(base + "_y.npy")})
            ok = np.allclose(loss, np.load(base + "_loss.npy"), rtol=1e-5, atol=1e-6)
            worst = 0.0
            for var, _, after in manifest:
                if var not in handles:
                    continue  # not used by the step (none expected)
                expected = np.load(os.path.join(directory, after))
                handle = graph.get_tensor_by_name(handles[var] + ":0")
                got = sess.run(tf.raw_ops.ReadVariableOp(resource=handle, dtype=expected.dtype))
                close = np.allclose(got, expected, rtol=1e-5, atol=1e-6)
                worst = max(worst, float(np.max(np.abs(got - expected))))
                if not close:
                    print(f"  {name}: variable {var} differs: TensorFlow {got}, duet {expected}")
                ok = ok and close
    ops = sorted({n.op for n in graph_def.node if n.op.startswith("ResourceApply")})
    print(f"{name}: {'ok' if ok else 'MISMATCH'} ({len(manifest)} variables, updates {ops}, "
          f"max abs difference {worst:.3g})")
    return ok


def main():
    bases = sorted(p[: -len(".vars")] for p in glob.glob(os.path.join(sys.argv[1], "*.vars")))
    if not bases:
        print("no exported training steps found in", sys.argv[1])
        return 1
    results = [check(b) for b in bases]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
