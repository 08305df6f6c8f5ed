"""duet.compat.v1: TensorFlow 1.x programs with only the import changed. The examples in
examples/python run on duet (eagerly and as graphs) and, where TensorFlow 2 still has their
names, under TensorFlow's tensorflow.compat.v1, and the results are compared; graph-mode rules
(initialization, feeds, random ops, iterators) and misuse are checked in programs of their own."""

import os
import subprocess
import sys
import textwrap

import pytest

from peers import require

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "python")
SHIM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_compat_v1_shim.py")


def run(args, tensorflow=False):
    """Runs a program (a path and its arguments) on duet, or under TensorFlow through the shim
    (with Keras 2, tf.keras in TensorFlow 1.x); its stdout lines as {first word: rest}."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_USE_LEGACY_KERAS="1")
    command = [sys.executable] + ([SHIM] if tensorflow else []) + args
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    lines = [line.split(" ", 1) for line in result.stdout.splitlines() if line]
    return {words[0]: words[1] if len(words) > 1 else "" for words in lines}


def example(name):
    return os.path.join(EXAMPLES, name)


def floats(text):
    return [float(v) for v in text.split()]


def test_write_once_runs_eagerly_and_as_a_graph_with_tensorflows_losses():
    graph = run([example("write_once.py")])
    eager = run([example("write_once.py"), "--eager"])
    assert graph["mode"] == "graph" and eager["mode"] == "eager"
    assert graph["steps"] == eager["steps"] == "12"
    assert graph["py_func"] == eager["py_func"] == "[2.0, 4.0]"
    assert floats(graph["losses"]) == pytest.approx(floats(eager["losses"]), rel=1e-5)
    require("tensorflow")
    require("tf_keras")
    for args in ([], ["--eager"]):
        tf = run([example("write_once.py")] + args, tensorflow=True)
        assert tf["steps"] == "12"
        assert floats(tf["losses"]) == pytest.approx(floats(eager["losses"]), rel=1e-4)


def test_the_revnet_blocks_reconstructed_gradients_are_backprops():
    out = run([example("revnet_block.py")])
    assert float(out["reconstruction"].split()[-1]) < 1e-5
    assert float(out["input"].split()[-1]) < 1e-5
    assert float(out["weight"].split()[-1]) < 1e-5
    assert out["variables"] == "6"


def test_the_eager_guides_programs():
    out = run([example("eager_guide.py")])
    assert out["a*b"] == "[[2, 6], [12, 20]]"
    assert out["fizzbuzz"] == "1 2 Fizz 4 Buzz Fizz 7 8 Fizz Buzz 11 Fizz 13 14 FizzBuzz"
    assert out["layer"] == "[[4.0, 4.0, 4.0], [4.0, 4.0, 4.0]] ['my_simple_layer/kernel']"
    assert out["models"] == "[1, 10] [1, 10] 4"
    w, b = (float(part.split("=")[1]) for part in out["regression"].split()[:2])
    assert abs(w - 3) < 0.15 and abs(b - 2) < 0.15  # y = 3x + 2 + N(0, 1) noise
    assert out["derivatives"] == "12.0 12.0 6.0"  # x^3 at 2: 3x^2, 6x, 6
    assert out["log1pexp'"] == "0.5 1.0"  # finite at x = 100, thanks to the custom gradient
    assert out["mean"] == "3.0"
    assert out["restored"] == "7840.0 ckpt-1"
    assert out["device"].startswith("[[2.0, 2.0], [2.0, 2.0]] gpus")


def test_the_mnist_loop_learns_and_logs(tmp_path):
    if not os.path.exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"):
        pytest.skip("Debian's dataset-fashion-mnist is not installed (tools/dev.sh deps)")
    out = run([example("mnist_eager.py"), "--steps", "200", "--logdir", str(tmp_path)])
    steps, accuracy = out["steps"].split(", test accuracy ")
    assert steps == "200" and float(accuracy) > 0.7
    assert out["checkpoint"] == "ckpt-1"
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(tmp_path))


def test_a_saver_checkpoint_crosses_modes(tmp_path):
    for writer, reader in ((["--eager"], []), ([], ["--eager"])):
        directory = str(tmp_path / ("from_eager" if writer else "from_graph"))
        run([example("saver_across_modes.py"), "save", directory] + writer)
        out = run([example("saver_across_modes.py"), "restore", directory] + reader)
        assert out["restored"] == "[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]] [7.0, 8.0]"


def run_program(code, tmp_path):
    path = tmp_path / "program.py"
    path.write_text(textwrap.dedent(code))
    return run([str(path)])


def test_graph_mode_rules(tmp_path):
    out = run_program("""
        import numpy as np
        import duet.compat.v1 as tf
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable(tf.ones([2, 1]), name="w")
        y = tf.matmul(x, w, name="y")
        noise = tf.random_normal([3], seed=5)
        assert tf.get_default_graph().get_tensor_by_name("y:0").name == "y:0"
        with tf.Session() as sess:
            try:
                sess.run(y, feed_dict={x: np.ones((1, 2))})
            except tf.errors.FailedPreconditionError as e:
                print("uninitialized", "w" in str(e))
            sess.run(tf.global_variables_initializer())
            print("fed", sess.run(y, feed_dict={x: [[1., 2.]]}).tolist())
            a, b = sess.run(noise), sess.run(noise)
            print("fresh", bool((a != b).all()))
            print("numpy", type(sess.run(y, {x: [[1., 1.]]})).__name__)
        other = tf.Graph()
        with other.as_default():
            z = tf.square(tf.placeholder(tf.float32, [], name="p"))
        with tf.Session() as sess:
            try:
                sess.run(z)
            except tf.errors.InvalidArgumentError as e:
                print("other_graph", "another graph" in str(e))
        it = tf.data.make_one_shot_iterator(tf.data.Dataset.range(2))
        nxt = it.get_next()
        with tf.Session() as sess:
            print("iterate", sess.run(nxt), sess.run(nxt))
            try:
                sess.run(nxt)
            except tf.errors.OutOfRangeError:
                print("end", "OutOfRangeError")
        try:
            tf.enable_eager_execution()
        except ValueError as e:
            print("late_eager", "program startup" in str(e))
    """, tmp_path)
    assert out["uninitialized"] == "True"
    assert out["fed"] == "[[3.0]]"
    assert out["fresh"] == "True"
    assert out["numpy"] == "ndarray"
    assert out["other_graph"] == "True"
    assert out["iterate"] == "0 1"
    assert out["end"] == "OutOfRangeError"
    assert out["late_eager"] == "True"


# The names API.md lists for programs of that era (module path -> names).
API_NAMES = {
    "": """enable_eager_execution executing_eagerly constant convert_to_tensor add multiply matmul
        square reduce_mean reduce_sum random_normal zeros ones split concat reshape identity exp
        log clip_by_norm placeholder Session device float32 int32 GradientTape Variable
        custom_gradient get_default_graph global_variables_initializer py_func""",
    "nn": "relu softmax xw_plus_b",
    "losses": "sparse_softmax_cross_entropy",
    "train": """GradientDescentOptimizer AdamOptimizer MomentumOptimizer Checkpoint Saver
        latest_checkpoint get_or_create_global_step""",
    "keras.layers": "Layer Dense Conv2D BatchNormalization",
    "keras": "Model Sequential",
    "data": "Dataset",
    "contrib.eager": """Variable defun gradients_function value_and_gradients_function
        Checkpoint num_gpus py_func""",
    "contrib.eager.metrics": "Mean Accuracy",
    "contrib.summary": """create_file_writer record_summaries_every_n_global_steps
        always_record_summaries scalar""",
}


def test_the_names_of_that_era_exist(tmp_path):
    out = run_program(f"""
        import duet.compat.v1 as tf
        from duet.compat.v1.resource_variable_ops import ResourceVariable
        missing = []
        for path, names in {API_NAMES!r}.items():
            module = tf
            for part in filter(None, path.split(".")):
                module = getattr(module, part)
            missing += [f"{{path}}.{{n}}" for n in names.split() if not hasattr(module, n)]
        for method in ("shuffle", "repeat", "batch", "map", "prefetch",
                       "make_one_shot_iterator"):
            if not hasattr(tf.data.Dataset, method):
                missing.append("data.Dataset." + method)
        print("missing", *missing)
    """, tmp_path)
    assert out["missing"] == ""


def test_a_tapes_gradients_in_graph_mode_are_fetched_by_a_session(tmp_path):
    out = run_program("""
        import duet.compat.v1 as tf
        x = tf.placeholder(tf.float32, [None])
        w = tf.Variable(3.0)
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(w * x * x)
        dw, dx = tape.gradient(loss, [w, x])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            g_w, g_x = sess.run([dw, dx], feed_dict={x: [1.0, 2.0]})
            print("grads", float(g_w), g_x.tolist())
    """, tmp_path)
    assert out["grads"] == "5.0 [6.0, 12.0]"


def test_random_numbers_are_reproducible_under_a_seed(tmp_path):
    code = """
        import duet.compat.v1 as tf
        tf.set_random_seed(3)
        r = tf.random_normal([2])
        with tf.Session() as sess:
            print("draws", *(v for _ in range(2) for v in sess.run(r).tolist()))
    """
    first, second = run_program(code, tmp_path), run_program(code, tmp_path)
    assert first["draws"] == second["draws"]
    assert len(set(first["draws"].split())) == 4
