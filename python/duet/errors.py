"""duet.errors: the exceptions duet raises, one per status code, named as TensorFlow names them.

Each is a duet.errors.OpError; those a Python user would catch as a ValueError (bad arguments,
shapes, dtypes) or a RuntimeError (everything else) are also subclasses of those.
"""


class OpError(Exception):
    """An op, or another duet call, failed. `message` names the op, its inputs and your line."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message

    @property
    def error_code(self):
        return self._code

    def __str__(self):
        return self.message


def _define(name, code, *bases):
    cls = type(name, (OpError,) + bases, {"_code": code, "__module__": __name__})
    globals()[name] = cls
    return cls


# absl's status codes, which are TensorFlow's.
_BY_CODE = {
    code: _define(name, code, *bases)
    for name, code, bases in [
        ("CancelledError", 1, (RuntimeError,)),
        ("UnknownError", 2, (RuntimeError,)),
        ("InvalidArgumentError", 3, (ValueError,)),
        ("DeadlineExceededError", 4, (RuntimeError,)),
        ("NotFoundError", 5, (LookupError,)),
        ("AlreadyExistsError", 6, (RuntimeError,)),
        ("PermissionDeniedError", 7, (RuntimeError,)),
        ("ResourceExhaustedError", 8, (RuntimeError,)),
        ("FailedPreconditionError", 9, (RuntimeError,)),
        ("AbortedError", 10, (RuntimeError,)),
        ("OutOfRangeError", 11, (IndexError,)),
        ("UnimplementedError", 12, (NotImplementedError,)),
        ("InternalError", 13, (RuntimeError,)),
        ("UnavailableError", 14, (RuntimeError,)),
        ("DataLossError", 15, (RuntimeError,)),
        ("UnauthenticatedError", 16, (RuntimeError,)),
    ]
}


def _error_class(code):
    """The exception class of a status code (called by the extension's error translator)."""
    return _BY_CODE.get(code, UnknownError)  # noqa: F821 (defined by _define)
