"""Compares duet's OpDefs with TensorFlow's, for every op both register, and measures how much of
TensorFlow's op registry duet has.

    ~/.venvs/duet/bin/python tests/interop/compare_op_defs.py bazel-bin/tools/duet

duet's OpDefs come from `duet ops --opdefs` (a text OpList, generated from the registry), and
TensorFlow's from its OpDef registry. For each shared op it compares what a GraphDef depends on:
input and output argument names and kinds (type, type attr, number attr, type-list attr, ref),
attr names, kinds and defaults, and that duet allows no dtype TensorFlow does not. duet allowing
fewer dtypes, or an attr order that differs, is not a mismatch. keras_zoo.py writes the result
into docs/tf_coverage.md; run alone, this prints it.
"""
import os
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from google.protobuf import text_format  # noqa: E402
from tensorflow.core.framework import op_def_pb2, types_pb2  # noqa: E402


def duet_op_defs(duet_bin):
    """{name: OpDef} of every op duet registers."""
    text = subprocess.run([duet_bin, "ops", "--opdefs"], check=True, capture_output=True,
                          text=True).stdout
    op_list = text_format.Parse(text, op_def_pb2.OpList())
    return {op.name: op for op in op_list.op}


def tf_op_defs():
    """{name: OpDef} of every op in TensorFlow's registry (what this TensorFlow can import)."""
    from tensorflow.python.client import pywrap_tf_session

    buffer = pywrap_tf_session.TF_GetAllOpList()
    op_list = op_def_pb2.OpList.FromString(pywrap_tf_session.TF_GetBuffer(buffer))
    return {op.name: op for op in op_list.op}


def tf_raw_op_names():
    """The ops tf.raw_ops exposes (TensorFlow's public ops; the registry also has internal ones)."""
    import tensorflow as tf

    return {name for name in dir(tf.raw_ops) if not name.startswith("_")}


def _arg(arg):
    kind = (f"type {types_pb2.DataType.Name(arg.type)}" if arg.type else f"type_attr {arg.type_attr}" if arg.type_attr
            else f"type_list_attr {arg.type_list_attr}")
    if arg.number_attr:
        kind += f", number_attr {arg.number_attr}"
    if arg.is_ref:
        kind += ", ref"
    return f"{arg.name} ({kind})"


def _value(attr_value):
    return text_format.MessageToString(attr_value, as_one_line=True) or "(empty)"


def compare_op(duet, tf):
    """The differences between duet's and TensorFlow's OpDef of one op, as sentences."""
    problems = []
    for what, ours, theirs in (("inputs", duet.input_arg, tf.input_arg),
                               ("outputs", duet.output_arg, tf.output_arg)):
        a, b = [_arg(x) for x in ours], [_arg(x) for x in theirs]
        if a != b:
            problems.append(f"{what}: duet [{', '.join(a)}], TensorFlow [{', '.join(b)}]")
    ours = {a.name: a for a in duet.attr}
    theirs = {a.name: a for a in tf.attr}
    if set(ours) - set(theirs):
        problems.append(f"attrs only duet has: {', '.join(sorted(set(ours) - set(theirs)))}")
    if set(theirs) - set(ours):
        problems.append(f"attrs only TensorFlow has: {', '.join(sorted(set(theirs) - set(ours)))}")
    for name in sorted(set(ours) & set(theirs)):
        a, b = ours[name], theirs[name]
        if a.type != b.type:
            problems.append(f"attr {name}: duet {a.type}, TensorFlow {b.type}")
            continue
        if a.HasField("default_value") != b.HasField("default_value"):
            problems.append(
                f"attr {name}: default " +
                (f"only in duet ({_value(a.default_value)})" if a.HasField("default_value")
                 else f"only in TensorFlow ({_value(b.default_value)})"))
        elif a.HasField("default_value") and a.default_value != b.default_value:
            problems.append(f"attr {name}: default duet {_value(a.default_value)}, "
                            f"TensorFlow {_value(b.default_value)}")
        if a.type in ("type", "list(type)") and b.HasField("allowed_values"):
            extra = set(a.allowed_values.list.type) - set(b.allowed_values.list.type)
            if not a.HasField("allowed_values"):
                problems.append(f"attr {name}: duet allows any dtype, TensorFlow a list")
            elif extra:
                names = sorted(types_pb2.DataType.Name(t) for t in extra)
                problems.append(f"attr {name}: duet allows dtypes TensorFlow does not: "
                                f"{', '.join(names)}")
        if a.type in ("string", "list(string)") and b.HasField("allowed_values"):
            extra = set(a.allowed_values.list.s) - set(b.allowed_values.list.s)
            if extra:
                problems.append(f"attr {name}: duet allows values TensorFlow does not: "
                                f"{sorted(x.decode() for x in extra)}")
    return problems


def compare(duet_ops, tf_ops):
    """{op: [problems]} for the shared ops that differ."""
    result = {}
    for name in sorted(set(duet_ops) & set(tf_ops)):
        problems = compare_op(duet_ops[name], tf_ops[name])
        if problems:
            result[name] = problems
    return result


def main():
    duet_bin = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("DUET_BIN", "bazel-bin/tools/duet")
    duet_ops, tf_ops = duet_op_defs(duet_bin), tf_op_defs()
    shared = set(duet_ops) & set(tf_ops)
    print(f"duet registers {len(duet_ops)} ops, TensorFlow {len(tf_ops)}; {len(shared)} shared "
          f"({100 * len(shared) / len(tf_ops):.1f}% of TensorFlow's)")
    print(f"duet-only: {', '.join(sorted(set(duet_ops) - set(tf_ops)))}")
    mismatches = compare(duet_ops, tf_ops)
    print(f"{len(mismatches)} of the shared ops differ:")
    for name, problems in mismatches.items():
        for problem in problems:
            print(f"  {name}: {problem}")


if __name__ == "__main__":
    main()
