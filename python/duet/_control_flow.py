"""duet.cond, duet.while_loop and duet.py_function: Python control flow eagerly, TensorFlow's
functional If/While (and a host-function node) in graphs and traced functions."""

from duet import _core
from duet._autodiff import _flatten, _unflatten
from duet import dtypes


def _as_list(result):
    return (list(result), True) if isinstance(result, (list, tuple)) else ([result], False)


def cond(pred, true_fn, false_fn, name=None):
    """true_fn() when pred (a bool scalar) is true, else false_fn(); in a graph both are traced
    and must return the same structure of tensors of the same dtypes."""
    shape = {}

    def branch(fn):
        def run():
            values, is_list = _as_list(fn())
            shape.setdefault("list", is_list)
            return values
        return run

    results = _core._cond(pred, branch(true_fn), branch(false_fn))
    return results if shape.get("list", True) else results[0]


def while_loop(cond, body, loop_vars, maximum_iterations=None, name=None):
    """loop_vars while cond(*loop_vars): loop_vars = body(*loop_vars), as tf.while_loop; the loop
    variables may be a nested structure of tensors. At most maximum_iterations iterations when
    given. Differentiable by tapes and gradients(), eagerly and traced."""
    structure = loop_vars

    def call(fn):
        return lambda flat: fn(*_unflatten(structure, iter(flat)))

    def run_body(flat):
        out = call(body)(flat)
        return _flatten(out if isinstance(out, (list, tuple)) else [out])

    limit = -1 if maximum_iterations is None else int(maximum_iterations)
    flat = _core._while_loop(call(cond), run_body, _flatten(loop_vars), limit)
    return _unflatten(structure, iter(flat))


def py_function(func, inp, Tout, name=None):  # noqa: N803 (tf.py_function's argument name)
    """func(*inp values) as an op: eagerly now, in a graph each time the node runs (the function
    gets eager tensors and returns tensors or arrays of the Tout dtypes)."""
    single = not isinstance(Tout, (list, tuple))
    touts = [Tout] if single else list(Tout)
    results = _core._py_function(
        lambda values: list(_as_list(func(*values))[0]), list(inp),
        [dtypes.as_dtype(t) for t in touts])
    return results[0] if single else results
