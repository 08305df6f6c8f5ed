"""duet in one process with TensorFlow: the extension exports only PyInit__core
(python/exports.lds), so its libprotobuf, Abseil and oneDNN never meet TensorFlow's."""

import os
import subprocess
import sys
import textwrap

import pytest


def _require(module):
    try:
        __import__(module)
    except ImportError:
        if os.environ.get("DUET_REQUIRE_PEERS") == "1":
            raise
        pytest.skip(f"{module} is not installed (tools/dev.sh deps installs it)")


def _run(code):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


EXCHANGE = """
    import numpy as np
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    d = duet.reduce_sum(duet.matmul(duet.constant(a), duet.transpose(duet.constant(a))))
    t = tf.reduce_sum(tf.matmul(tf.constant(a), tf.transpose(tf.constant(a))))
    assert float(d) == float(t) == float((a @ a.T).sum())
    assert np.array_equal(tf.constant(duet.constant(a).numpy()).numpy(), a)
    assert np.array_equal(duet.constant(tf.constant(a).numpy()).numpy(), a)
    print("ok")
"""


@pytest.mark.parametrize("first", ["tensorflow", "duet"])
def test_duet_and_tensorflow_share_a_process(first):
    _require("tensorflow")
    imports = ["import duet", "import tensorflow as tf"]
    if first == "tensorflow":
        imports.reverse()
    assert _run("\n".join(imports) + "\n" + textwrap.dedent(EXCHANGE)).strip() == "ok"
