"""duet.saved_model: SavedModels from traced functions (TensorFlow, TF Serving and
saved_model_cli load them), and any SavedModel (TensorFlow's, Keras' export, duet's) loaded to
call its signatures.

    serve = step.get_concrete_function(duet.TensorSpec([None, 784], duet.float32, name="images"))
    duet.saved_model.save(model, "export/1", signatures=serve)
    loaded = duet.saved_model.load("export/1")
    loaded.signatures["serving_default"](images=batch)     # {"output_0": tensor}

The variables the functions read stay variables, restored from variables/ on load."""

from duet import _core
from duet._api import constant
from duet._function import ConcreteFunction
from duet._tensor import Tensor


def save(obj, export_dir, signatures=None):
    """Writes `export_dir`/saved_model.pb and variables/. `signatures`: a ConcreteFunction
    (exported as "serving_default") or a dict of key -> ConcreteFunction; when None, `obj`
    itself must be a ConcreteFunction. Inputs are named by the specs' names, else by the
    function's arguments; outputs "output_0", "output_1", ..."""
    if signatures is None:
        signatures = obj
    if isinstance(signatures, ConcreteFunction):
        signatures = {"serving_default": signatures}
    if not isinstance(signatures, dict) or not all(isinstance(f, ConcreteFunction)
                                                   for f in signatures.values()):
        raise TypeError("duet.saved_model.save: signatures must be a ConcreteFunction "
                        "(fn.get_concrete_function(duet.TensorSpec(...))) or a dict of them")
    _core._save_saved_model(str(export_dir), [
        (key, f._function._tracer, f._export[0], f._export[1], f._input_names, [])
        for key, f in sorted(signatures.items())])


class _Signature:
    """A loaded signature: called with its inputs by name, returns its outputs by name."""

    def __init__(self, model, key):
        self._model, self._key = model, key
        self.input_names = model.input_names(key)

    def __call__(self, *args, **kwargs):
        if args:
            if len(args) != len(self.input_names) or kwargs:
                raise TypeError(f"signature '{self._key}' takes its inputs by name: "
                                f"{self.input_names}")
            kwargs = dict(zip(self.input_names, args))
        inputs = {k: v if isinstance(v, Tensor) else constant(v) for k, v in kwargs.items()}
        return self._model.call(self._key, inputs)


class _Loaded:
    def __init__(self, model):
        self._model = model
        self.signatures = {key: _Signature(model, key) for key in model.signature_keys}


def load(export_dir, tags=None):
    """A SavedModel's signatures: load(dir).signatures["serving_default"](x=...)."""
    tag = "serve" if not tags else (tags if isinstance(tags, str) else list(tags)[0])
    return _Loaded(_core._load_saved_model(str(export_dir), tag))
