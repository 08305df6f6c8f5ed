"""Python functions for every op of duet's registry, generated at import (one source of truth).

duet.raw_ops.<Op>(inputs..., attrs..., name=None) takes the OpDef's own argument names, as
tf.raw_ops does. The public op functions (duet.add, duet.nn.relu, ...) are in duet/_api.py.
"""

import keyword
import re
import types

from duet import _core


def _snake(name):
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    return re.sub(r"(\d)_d", r"\1d", s.lower())


def _py(name):
    return name + "_" if keyword.iskeyword(name) else name


def _make(op, doc, inputs, outputs, attrs, stateful):
    in_names = [_py(n) for n, _ in inputs]
    attr_names = [_py(a) for a, _, _ in attrs]
    params = ", ".join(in_names + [f"{a}=None" for a in attr_names] + ["name=None"])
    attr_dict = ", ".join(f"{a!r}: {p}" for (a, _, _), p in zip(attrs, attr_names))
    src = (f"def {op}({params}):\n"
           f"    return _execute(_op, [{', '.join(in_names)}], {{{attr_dict}}}, name)\n")
    scope = {"_execute": _core.execute, "_op": _core.op_def(op)}
    exec(compile(src, f"<duet raw_ops.{op}>", "exec"), scope)  # noqa: S102 (registry names only)
    fn = scope[op]
    arg_lines = [f"  {n}: {'a list of tensors' if is_list else 'a tensor'}" for n, is_list in inputs]
    arg_lines += [f"  {a}: {kind}" + (f" (default {d})" if d is not None else "")
                  for a, kind, d in attrs]
    fn.__doc__ = doc + ("\n\nArgs:\n" + "\n".join(arg_lines) if arg_lines else "")
    fn.__module__ = "duet.raw_ops"
    fn.__qualname__ = op
    return fn


def _build():
    raw = types.ModuleType("duet.raw_ops", "Every op of duet's registry under its own name.")
    for op, doc, inputs, outputs, attrs, stateful in _core.op_defs():
        setattr(raw, op, _make(op, doc, inputs, outputs, attrs, stateful))
    return raw


raw_ops = _build()
