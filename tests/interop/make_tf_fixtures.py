"""Writes the TensorFlow-made fixtures duet's interop test runs: frozen GraphDefs (.pb) built by
TensorFlow, an input and TensorFlow's output for each (.npy), into tests/interop/testdata/.

    python make_tf_fixtures.py            # needs tensorflow (pip install tensorflow-cpu)

The C++ test (tf_fixtures_test.cc) needs only the committed files, not TensorFlow.
"""
import os

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import convert_to_constants

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")


def freeze(fn, spec, lower_control_flow):
    """The frozen GraphDef of a tf.function (variables folded into Const nodes); control flow
    stays functional (If/While with a function library) unless lowered to Switch/Merge."""
    concrete = fn.get_concrete_function(spec)
    frozen = convert_to_constants.convert_variables_to_constants_v2(
        concrete, lower_control_flow=lower_control_flow)
    return frozen.graph.as_graph_def(), frozen.inputs[0].name, frozen.outputs[0].name


def save(name, fn, x, lower_control_flow=True):
    spec = tf.TensorSpec([None] + list(x.shape[1:]), tf.float32)
    graph_def, input_name, output_name = freeze(fn, spec, lower_control_flow)
    with open(os.path.join(OUT, name + ".pb"), "wb") as f:
        f.write(graph_def.SerializeToString())
    # Run the frozen graph itself in TensorFlow: the expected output is what the .pb computes.
    with tf.Graph().as_default() as g:
        tf.compat.v1.import_graph_def(graph_def, name="")
        with tf.compat.v1.Session(graph=g) as sess:
            y = sess.run(output_name, {input_name: x})
    np.save(os.path.join(OUT, name + "_input.npy"), x)
    np.save(os.path.join(OUT, name + "_expected.npy"), y)
    with open(os.path.join(OUT, name + ".names"), "w") as f:
        f.write(input_name + "\n" + output_name + "\n")
    ops = sorted({n.op for n in graph_def.node} |
                 {n.op for f in graph_def.library.function for n in f.node_def})
    print(f"{name}: {len(graph_def.node)} nodes, ops {ops}, {input_name} -> {output_name} {y.shape}")


def main():
    rng = np.random.default_rng(0)
    tf.random.set_seed(0)

    w1 = tf.Variable(rng.normal(0, 0.3, (12, 16)).astype(np.float32))
    b1 = tf.Variable(rng.normal(0, 0.1, (16,)).astype(np.float32))
    w2 = tf.Variable(rng.normal(0, 0.3, (16, 5)).astype(np.float32))
    b2 = tf.Variable(rng.normal(0, 0.1, (5,)).astype(np.float32))

    @tf.function
    def mlp(x):
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
        return tf.nn.softmax(tf.nn.bias_add(tf.matmul(h, w2), b2))

    save("tf_mlp", mlp, rng.normal(size=(4, 12)).astype(np.float32))

    k = tf.Variable(rng.normal(0, 0.3, (3, 3, 2, 4)).astype(np.float32))
    kb = tf.Variable(rng.normal(0, 0.1, (4,)).astype(np.float32))
    dense = tf.Variable(rng.normal(0, 0.3, (4 * 4 * 4, 3)).astype(np.float32))

    @tf.function
    def conv_net(x):
        y = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, k, strides=1, padding="SAME"), kb))
        y = tf.nn.max_pool2d(y, ksize=2, strides=2, padding="VALID")
        y = tf.reshape(y, [-1, 4 * 4 * 4])
        return tf.nn.softmax(tf.matmul(y, dense))

    save("tf_conv", conv_net, rng.normal(size=(2, 8, 8, 2)).astype(np.float32))

    @tf.function
    def shapes(x):
        m = tf.reduce_mean(tf.reshape(x, [-1, 3, 4]), axis=1)
        return tf.transpose(tf.concat([m, m * 2.0], axis=1), perm=[1, 0])

    save("tf_shapes", shapes, rng.normal(size=(2, 12)).astype(np.float32))

    @tf.function
    def control_flow(x):
        y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: tf.tanh(x) - 1.0)
        _, y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 0.5 + x),
                             (tf.constant(0), y))
        return y

    save("tf_control_flow", control_flow, rng.normal(size=(3, 4)).astype(np.float32),
         lower_control_flow=False)

    # Keras MultiHeadAttention/EinsumDense equations, frozen to Einsum nodes.
    wq = tf.Variable(rng.normal(0, 0.3, (6, 2, 3)).astype(np.float32))
    wo = tf.Variable(rng.normal(0, 0.3, (2, 3, 6)).astype(np.float32))
    wd = tf.Variable(rng.normal(0, 0.3, (6, 5)).astype(np.float32))

    @tf.function
    def einsum_attention(x):
        q = tf.einsum("abc,cde->abde", x, wq)
        p = tf.nn.softmax(tf.einsum("aecd,abcd->acbe", q, q))
        y = tf.einsum("abcd,cde->abe", tf.einsum("acbe,aecd->abcd", p, q), wo)
        return tf.einsum("...b,bc->...c", y, wd)

    save("tf_einsum", einsum_attention, rng.normal(size=(2, 4, 6)).astype(np.float32))

    # Keras RNNs: a While whose loop variables include TensorLists (TensorListFromTensor of the
    # inputs, TensorListReserve of the outputs, GetItem/SetItem in the body, TensorListStack
    # after). The batch dim stays unknown, so the graphs keep the Shape/StridedSlice/Pack/Fill
    # chain of the initial state and the Range of the loop bound, as users' frozen RNNs do.
    tf.keras.utils.set_random_seed(0)
    for name, layer in [("tf_simple_rnn", tf.keras.layers.SimpleRNN(4, return_sequences=True)),
                        ("tf_lstm", tf.keras.layers.LSTM(3, return_sequences=True)),
                        ("tf_gru", tf.keras.layers.GRU(3, return_sequences=True))]:
        inputs = tf.keras.Input((5, 2))
        model = tf.keras.Model(inputs, layer(inputs))
        save(name, tf.function(lambda x, model=model: model(x)),
             rng.normal(size=(2, 5, 2)).astype(np.float32), lower_control_flow=False)

    # A channels-first network, as TensorFlow's GPU graphs are written: Conv2D (NCHW-ordered
    # strides), BiasAdd, an inference FusedBatchNormV3, MaxPool and AvgPool, all data_format NCHW.
    kc = tf.Variable(rng.normal(0, 0.3, (3, 3, 2, 4)).astype(np.float32))
    bc = tf.Variable(rng.normal(0, 0.1, (4,)).astype(np.float32))
    stats = [tf.constant(v.astype(np.float32)) for v in (
        rng.uniform(0.5, 1.5, 4), rng.normal(0, 0.1, 4), rng.normal(0, 0.1, 4),
        rng.uniform(0.5, 1.5, 4))]

    @tf.function
    def nchw_net(x):
        y = tf.nn.conv2d(x, kc, strides=[1, 1, 1, 2], padding="SAME", data_format="NCHW")
        y = tf.nn.bias_add(y, bc, data_format="NCHW")
        y, _, _ = tf.compat.v1.nn.fused_batch_norm(y, *stats, epsilon=1e-3, data_format="NCHW",
                                                   is_training=False)
        y = tf.nn.max_pool2d(tf.nn.relu(y), ksize=2, strides=2, padding="VALID",
                             data_format="NCHW")
        return tf.nn.avg_pool2d(y, ksize=[1, 1, 2, 2], strides=1, padding="SAME",
                                data_format="NCHW")

    save("tf_nchw", nchw_net, rng.normal(size=(2, 2, 8, 12)).astype(np.float32))


if __name__ == "__main__":
    main()
