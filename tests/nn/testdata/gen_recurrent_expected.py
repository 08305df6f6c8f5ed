"""Expected outputs of Keras 3's recurrent layers for tests/nn/recurrent_test.cc.

Inputs and weights come from the integer formulas of gen_layer_expected.py, which the C++ test
repeats:  X(i) = ((i * 7) % 11 - 5) * 0.25,  W(i) = ((i * 5 + k) % 13 - 6) * 0.1 for weight k.
Run with the TensorFlow venv:  ~/.venvs/duet/bin/python tests/nn/testdata/gen_recurrent_expected.py
and paste the printed lines into the test.
"""
import os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import keras


def X(shape, scale=0.25):
    n = int(np.prod(shape))
    return np.array([((i * 7) % 11 - 5) * scale for i in range(n)], np.float32).reshape(shape)


def W(shape, offset=0):
    n = int(np.prod(shape))
    return np.array([((i * 5 + offset) % 13 - 6) * 0.1 for i in range(n)], np.float32).reshape(shape)


def emit(name, values):
    values = [np.asarray(v) for v in (values if isinstance(values, (list, tuple)) else [values])]
    for k, y in enumerate(values):
        suffix = "" if len(values) == 1 else "[%d]" % k
        print("// %s%s: shape %s" % (name, suffix, list(y.shape)))
        print("{%s}" % ", ".join("%.9g" % v for v in y.flatten()))


def run(name, layer, x, **kwargs):
    layer.build(x.shape)
    layer.set_weights([W(w.shape, k) for k, w in enumerate(layer.get_weights())])
    emit(name, layer(x, **kwargs))


x = X((2, 5, 3))
run("simple_rnn_sequences", keras.layers.SimpleRNN(4, return_sequences=True), x)
run("lstm_last", keras.layers.LSTM(3), x)
run("lstm_sequences_state", keras.layers.LSTM(2, return_sequences=True, return_state=True), x)
run("lstm_backwards", keras.layers.LSTM(3, go_backwards=True, return_sequences=True), x)
run("gru_sequences", keras.layers.GRU(3, return_sequences=True), x)
run("gru_reset_before", keras.layers.GRU(3, reset_after=False, return_sequences=True), x)
h0, c0 = X((2, 3), 0.1), X((2, 3), -0.2)
run("lstm_initial_state", keras.layers.LSTM(3), x, initial_state=[h0, c0])
run("bidirectional_concat", keras.layers.Bidirectional(keras.layers.LSTM(2, return_sequences=True)), x)
run("bidirectional_sum_gru", keras.layers.Bidirectional(keras.layers.GRU(2), merge_mode="sum"), x)
