"""tf.data (TensorFlow 1.x): duet.data's Dataset plus make_one_shot_iterator(). In graph mode
get_next() is a node that yields the next element at every Session run (a py_function over
the dataset's iterator) and raises OutOfRangeError at the end, as TensorFlow 1.x's does."""

import duet
import duet.data as _data


class Dataset(_data.Dataset):
    """duet.data.Dataset with TensorFlow 1.x's make_one_shot_iterator()."""

    def make_one_shot_iterator(self):
        return _OneShotIterator(self)


def make_one_shot_iterator(dataset):
    return _OneShotIterator(dataset)


class _OneShotIterator:
    def __init__(self, dataset):
        self._iterator = iter(dataset)
        self._next = None

    def get_next(self, name=None):
        if duet.executing_eagerly():
            return next(self._iterator)
        if self._next is None:
            self._next = self._graph_next()
        return self._next

    def _graph_next(self):
        # The first element gives the dtypes, shapes and structure; it is yielded first.
        try:
            first = next(self._iterator)
        except StopIteration:
            raise duet.errors.OutOfRangeError(None, None,
                                              "get_next(): the dataset is empty") from None
        leaves = []
        structure = _data._flatten(first, leaves)
        pending = [leaves]

        def produce():
            if pending:
                return pending.pop()
            try:
                element = next(self._iterator)
            except StopIteration:
                raise duet.errors.OutOfRangeError(None, None, "End of sequence") from None
            flat = []
            _data._flatten(element, flat)
            return flat

        outputs = duet.py_function(produce, [], [t.dtype for t in leaves])
        if not isinstance(outputs, (list, tuple)):
            outputs = [outputs]
        shaped = [duet.ensure_shape(o, [None] + list(t.shape)[1:] if t.ndim else [])
                  for o, t in zip(outputs, leaves)]
        return _data._pack(structure, shaped)


def TFRecordDataset(filenames, compression_type=None, buffer_size=None,  # noqa: N802
                    num_parallel_reads=None, name=None):
    return Dataset(_data.TFRecordDataset(filenames, compression_type)._dataset, _data._LEAF)
