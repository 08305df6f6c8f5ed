"""Runs a duet.compat.v1 program under TensorFlow's own tensorflow.compat.v1: `import
duet.compat.v1 as tf` gets TensorFlow's module. Graph mode unless --eager is among the program's
arguments (TensorFlow 2 starts eager; TensorFlow 1.x started in graph mode).

    python tf_compat_v1_shim.py PROGRAM [ARGS...]"""

import runpy
import sys
import types

import tensorflow.compat.v1 as tf

if "--eager" not in sys.argv:
    tf.disable_eager_execution()
duet = sys.modules["duet"] = types.ModuleType("duet")
duet.compat = sys.modules["duet.compat"] = types.ModuleType("duet.compat")
duet.compat.v1 = sys.modules["duet.compat.v1"] = tf
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
