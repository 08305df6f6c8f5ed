"""A tf.train.Saver checkpoint written in one mode and restored in the other: a graph-mode
program saves, an eager one restores (or the reverse), each with only TensorFlow 1.x's names.

    python examples/python/saver_across_modes.py save DIR            # graph mode, a Session
    python examples/python/saver_across_modes.py restore DIR --eager  # eager
    (and save --eager / restore without --eager)"""

import sys

import numpy as np

import duet.compat.v1 as tf

if "--eager" in sys.argv:
    tf.enable_eager_execution()
action, directory = sys.argv[1], sys.argv[2]

weights = tf.Variable(tf.zeros([3, 2]), name="weights")
bias = tf.Variable(tf.zeros([2]), name="bias")
saver = tf.train.Saver([weights, bias])
value = np.arange(6, dtype=np.float32).reshape(3, 2)

if tf.executing_eagerly():
    if action == "save":
        weights.assign(value)
        bias.assign([7.0, 8.0])
        print("saved", saver.save(None, directory + "/model", global_step=3))
    else:
        saver.restore(None, tf.train.latest_checkpoint(directory))
        print("restored", weights.numpy().tolist(), bias.numpy().tolist())
else:
    with tf.Session() as sess:
        if action == "save":
            sess.run(tf.global_variables_initializer())
            sess.run([tf.assign(weights, value), tf.assign(bias, [7.0, 8.0])])
            print("saved", saver.save(sess, directory + "/model", global_step=3))
        else:
            saver.restore(sess, tf.train.latest_checkpoint(directory))
            print("restored", sess.run(weights).tolist(), sess.run(bias).tolist())
