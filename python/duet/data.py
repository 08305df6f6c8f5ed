"""duet.data: tf.data's input pipelines over duet's C++ datasets (io/data, docs/data.md).

    ds = (duet.data.Dataset.from_tensor_slices((images, labels))
          .shuffle(60000, seed=1).map(lambda x, y: (x / 255, y), num_parallel_calls=2)
          .batch(32).prefetch(2))
    for x, y in ds: ...

Elements are tensors, tuples or dicts of them, as they were made. `map` and `filter` trace their
Python function into a graph once per input signature, as tf.data does: later elements run the
traced plan on the pipeline's threads without the GIL (Note [Python datasets] in
python/src/data.cc). `flat_map`, `interleave` and generators run Python for every element."""

import os

from duet import _core
from duet._api import constant
from duet._tensor import Tensor

AUTOTUNE = _core.AUTOTUNE
INFINITE_CARDINALITY = _core.INFINITE_CARDINALITY
UNKNOWN_CARDINALITY = _core.UNKNOWN_CARDINALITY


class _Leaf:
    """Where a tensor sits in an element's structure."""

    __slots__ = ()

    def __repr__(self):
        return "Tensor"


_LEAF = _Leaf()


def _flatten(value, leaves):
    """The structure of `value` (tuples, namedtuples and dicts; anything else is a tensor),
    appending its tensors to `leaves`."""
    if isinstance(value, dict):
        return {k: _flatten(value[k], leaves) for k in sorted(value)}
    if isinstance(value, tuple):
        items = [_flatten(v, leaves) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    leaves.append(value)
    return _LEAF


def _pack(structure, leaves):
    it = iter(leaves)

    def build(s):
        if s is _LEAF:
            return next(it)
        if isinstance(s, dict):
            return {k: build(v) for k, v in s.items()}
        items = [build(v) for v in s]
        return type(s)(*items) if hasattr(s, "_fields") else tuple(items)
    return build(structure)


def _tensor(value):
    return value if isinstance(value, Tensor) else constant(value)


class _Structure:
    """An element structure that a traced function's first trace may set later: a map's output
    is known when the function has run on the first element (Note [Python datasets])."""

    def __init__(self, value=None):
        self.value = value

    def get(self):
        if self.value is None:
            raise RuntimeError("the dataset function has not been traced yet")
        return self.value


class Dataset:
    """tf.data.Dataset's sources, transformations and iteration."""

    def __init__(self, dataset, structure):
        self._dataset = dataset
        self._structure = structure if isinstance(structure, _Structure) else _Structure(structure)

    # Sources.
    @classmethod
    def from_tensor_slices(cls, tensors):
        leaves = []
        structure = _flatten(tensors, leaves)
        return cls(_core._Dataset.from_tensor_slices([_tensor(t) for t in leaves]), structure)

    @classmethod
    def from_tensors(cls, tensors):
        leaves = []
        structure = _flatten(tensors, leaves)
        return cls(_core._Dataset.from_tensors([_tensor(t) for t in leaves]), structure)

    @classmethod
    def range(cls, *args):
        """int64 scalars, as Python's range(stop) / range(start, stop[, step])."""
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
        return cls(_core._Dataset.range(start, stop, step), _LEAF)

    @classmethod
    def zip(cls, datasets):
        """Elements of `datasets` (a tuple or dict of datasets) side by side."""
        is_dict = isinstance(datasets, dict)
        keys = sorted(datasets) if is_dict else range(len(datasets))
        parts = [datasets[k] for k in keys]
        zipped = _core._Dataset.zip([d._dataset for d in parts])

        def structure():
            inner = [d._structure.get() for d in parts]
            return dict(zip(keys, inner)) if is_dict else tuple(inner)
        return cls(zipped, _LazyStructure(structure))

    @classmethod
    def from_generator(cls, generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None):
        """The elements `generator(*args)` yields (a fresh generator per iteration), converted
        to tensors of output_signature's (or output_types') dtypes when given. Runs Python for
        every element."""
        declared = output_signature if output_signature is not None else output_types
        structure, dtypes = _Structure(), None
        if declared is not None:
            dtypes = []
            structure.value = _flatten(declared, dtypes)
            dtypes = [getattr(d, "dtype", d) for d in dtypes]

        def start():
            items = iter(generator(*(args or ())))

            def next_element():
                try:
                    value = next(items)
                except StopIteration:
                    return None
                leaves = []
                found = _flatten(value, leaves)
                if structure.value is None:
                    structure.value = found
                types = dtypes or [None] * len(leaves)
                return [t if isinstance(t, Tensor) else constant(t, d)
                        for t, d in zip(leaves, types)]
            return next_element
        return cls(_core._Dataset.from_generator(start), structure)

    # Transformations.
    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """map_func on every element (a tuple unpacked into arguments, as tf.data does), traced
        once per input signature."""
        output = _Structure()
        trace = self._tracer(map_func, output)
        parallel = 0 if num_parallel_calls is None else num_parallel_calls
        return self._derived(self._dataset.map(trace, _name(map_func, name), parallel,
                                               deterministic is not False), output)

    def filter(self, predicate, name=None):
        trace = self._tracer(predicate, _Structure())
        return self._same(self._dataset.filter(trace, _name(predicate, name)))

    def flat_map(self, map_func, name=None):
        output = _Structure()
        return self._derived(self._dataset.flat_map(self._python_fn(map_func, output)), output)

    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None):
        output = _Structure()
        return self._derived(self._dataset.interleave(
            self._python_fn(map_func, output), cycle_length or os.cpu_count(), block_length or 1,
            num_parallel_calls or 0), output)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        return self._same(self._dataset.shuffle(buffer_size, seed, reshuffle_each_iteration))

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        return self._same(self._dataset.batch(batch_size, drop_remainder))

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        """batch for elements of different shapes: padded_shapes has a shape per tensor (None
        dims: the batch's largest), in the element's tuples and dicts; a tuple of ints and
        Nones is one shape. Without it, every dim is the batch's largest."""
        shapes = values = None
        if padded_shapes is not None:
            shapes = []
            _flatten_shapes(padded_shapes, shapes)
        if padding_values is not None:
            values = []
            _flatten(padding_values, values)
            values = [_tensor(v) for v in values]
        return self._same(self._dataset.padded_batch(batch_size, shapes, values, drop_remainder))

    def unbatch(self, name=None):
        return self._same(self._dataset.unbatch())

    def repeat(self, count=None, name=None):
        return self._same(self._dataset.repeat(-1 if count is None else count))

    def take(self, count, name=None):
        return self._same(self._dataset.take(count))

    def skip(self, count, name=None):
        return self._same(self._dataset.skip(count))

    def shard(self, num_shards, index, name=None):
        """Elements index, index + num_shards, ...: one worker's part (shard before shuffling)."""
        return self._same(self._dataset.shard(num_shards, index))

    def auto_shard(self, num_shards, index):
        """One worker's part as tf.data's AUTO policy: whole files (files index, index +
        num_shards, ...) of a TFRecordDataset with at least num_shards files, else elements."""
        return self._same(self._dataset.auto_shard(num_shards, index))

    def concatenate(self, dataset, name=None):
        return self._same(self._dataset.concatenate(dataset._dataset))

    def prefetch(self, buffer_size, name=None):
        return self._same(self._dataset.prefetch(buffer_size))

    def cache(self, filename="", name=None):
        if filename:
            raise NotImplementedError("duet's Dataset.cache keeps elements in memory; a file "
                                      "cache (filename) is not implemented")
        return self._same(self._dataset.cache())

    def ignore_errors(self, log_warning=False, name=None):
        return self._same(self._dataset.ignore_errors())

    def enumerate(self, start=0, name=None):
        return type(self).zip((Dataset.range(start, 2 ** 62), self))

    def cardinality(self):
        """The number of elements, INFINITE_CARDINALITY or UNKNOWN_CARDINALITY."""
        return self._dataset.cardinality()

    def __len__(self):
        n = self.cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError("the dataset is infinite")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("the dataset's length is unknown")
        return n

    # Iteration.
    def __iter__(self):
        return _Iterator(self)

    def as_numpy_iterator(self):
        """The elements with NumPy arrays in place of tensors."""
        for element in self:
            yield _map_structure(lambda t: t.numpy(), element)

    def _derived(self, dataset, structure):
        """A dataset of this class (a subclass's transformations return the subclass)."""
        return type(self)(dataset, structure)

    def _same(self, dataset):
        return self._derived(dataset, self._structure)

    def _tracer(self, fn, output):
        """The callable the C++ tracer runs on symbolic tensors: it packs them as the element,
        calls fn and flattens (and records) its results."""
        structure = self._structure

        def trace(symbolic):
            element = _pack(structure.get(), symbolic)
            result = fn(*element) if type(element) is tuple else fn(element)
            if isinstance(result, list):
                result = tuple(result)
            leaves = []
            output.value = _flatten(result, leaves)
            return [_tensor(t) for t in leaves]
        return trace

    def _python_fn(self, fn, output):
        """flat_map's and interleave's function, called with the GIL on every element: the
        dataset it returns, whose structure is the output's."""
        structure = self._structure

        def call(flat):
            element = _pack(structure.get(), flat)
            result = fn(*element) if type(element) is tuple else fn(element)
            if not isinstance(result, Dataset):
                raise TypeError(f"the function must return a duet.data.Dataset, not a "
                                f"{type(result).__name__}")
            output.value = result._structure.get()
            return result._dataset
        return call

    def __repr__(self):
        return f"<duet.data.Dataset cardinality={self.cardinality()}>"


class _LazyStructure(_Structure):
    def __init__(self, compute):
        super().__init__()
        self._compute = compute

    def get(self):
        if self.value is None:
            self.value = self._compute()
        return self.value


class _Iterator:
    """One iteration of a dataset (a fresh one per iter()): next() releases the GIL while the
    pipeline works."""

    def __init__(self, dataset):
        self._structure = dataset._structure
        self._iterator = _core._DatasetIterator(dataset._dataset)

    def __iter__(self):
        return self

    def __next__(self):
        flat = self._iterator.next()
        if flat is None:
            raise StopIteration
        return _pack(self._structure.get(), flat)

    def get_next(self):
        return next(self)

    def close(self):
        self._iterator.close()


def _flatten_shapes(shapes, out):
    """padded_shapes as a list of dims lists (-1: unknown), one per tensor."""
    if isinstance(shapes, dict):
        for k in sorted(shapes):
            _flatten_shapes(shapes[k], out)
    elif isinstance(shapes, tuple) and not all(d is None or isinstance(d, int) for d in shapes):
        for s in shapes:
            _flatten_shapes(s, out)
    else:
        out.append([-1 if d is None else int(d) for d in shapes])


def _map_structure(fn, value):
    if isinstance(value, dict):
        return {k: _map_structure(fn, v) for k, v in value.items()}
    if isinstance(value, tuple):
        items = [_map_structure(fn, v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return fn(value)


def _name(fn, name):
    return name or getattr(fn, "__name__", "dataset_function").replace("<lambda>", "lambda")


def fashion_mnist(dir=""):
    """Fashion-MNIST from Debian's dataset-fashion-mnist package (or `dir`, or
    $DUET_FASHION_MNIST_DIR): ((train_images, train_labels), (test_images, test_labels)), uint8
    images (N, 28, 28) and int64 labels, as keras.datasets.fashion_mnist.load_data() gives."""
    return _core._fashion_mnist(dir)


def TFRecordDataset(filenames, compression_type=None, buffer_size=None,  # noqa: N802
                    num_parallel_reads=None, name=None):
    """The records of TFRecord files as scalar string tensors (tf.data.TFRecordDataset)."""
    files = [filenames] if isinstance(filenames, str) else list(filenames)
    return Dataset(_core._Dataset.tfrecord(files, compression_type or ""), _LEAF)

