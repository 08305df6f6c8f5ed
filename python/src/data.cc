// duet.data's C++ half: data::Dataset over flat elements (lists of tensors); duet/data.py keeps
// the elements' Python structure (tuples, dicts) and packs them (Note [Python datasets]).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "duet.h"
#include "python/src/callables.h"
#include "python/src/convert.h"
#include "python/src/errors.h"

namespace nb = nanobind;

namespace duet::python {
namespace {

using function_internal::ArgValue;
using function_internal::Tracer;

// Note [Python datasets]
// ~~~~~~~~~~~~~~~~~~~~~~
// A Python dataset is a C++ data::Dataset: its threads, buffers and kernels are C++, and
// iterating releases the GIL. map and filter trace their Python function into a graph, as
// tf.data does, through the C++ tracer (the engine under duet.function): the function runs once
// per input signature, with the GIL, on symbolic tensors, and every element after that runs the
// cached plan without Python. So a map is as fast from Python as from C++, parallel maps run on
// as many threads as asked, and a Python error in the function surfaces at iteration, naming
// the element (the tracer runs on the first element of each signature) with the Python
// traceback. flat_map's and interleave's functions return datasets, which a plan cannot: they
// run in Python, with the GIL, once per input element; so do generators.

std::vector<Tensor> TensorList(nb::handle values, const char* what) {
  std::vector<Tensor> out;
  for (nb::handle v : values) out.push_back(ToTensor(v, what));
  return out;
}

nb::list PyList(const data::Element& element) {
  nb::list out;
  for (const Tensor& t : element) out.append(nb::cast(t));
  return out;
}

// A Python function traced once per input signature (Note [Python datasets]): trace(symbolic
// tensors) returns the flat results.
class TracedPython {
 public:
  TracedPython(nb::callable trace, const std::string& name)
      : trace_(HoldCallable(std::move(trace))),
        tracer_(std::make_shared<Tracer>(FunctionOptions{.name = name})),
        what_(name) {}

  data::Element operator()(const data::Element& element) const {
    const std::vector<ArgValue> args(element.begin(), element.end());
    return tracer_->Call(args, [this](const std::vector<ArgValue>& symbolic) {
      nb::gil_scoped_acquire gil;
      try {
        nb::list inputs;
        for (const ArgValue& v : symbolic) inputs.append(nb::cast(std::get<Tensor>(v)));
        return TensorList((*trace_)(inputs), "a dataset function's result");
      } catch (const nb::python_error& e) {
        RethrowAsError(e, what_);
      }
    });
  }

 private:
  std::shared_ptr<nb::object> trace_;
  std::shared_ptr<Tracer> tracer_;
  std::string what_;
};

// A Python callable run with the GIL on every call (flat_map, interleave).
template <typename Result, typename Convert>
auto WithGil(nb::callable fn, const char* what, Convert convert) {
  return [fn = HoldCallable(std::move(fn)), what, convert](const data::Element& element) -> Result {
    nb::gil_scoped_acquire gil;
    try {
      return convert((*fn)(PyList(element)));
    } catch (const nb::python_error& e) {
      RethrowAsError(e, what);
    }
  };
}

data::Dataset AsDataset(nb::handle value, const char* what) {
  if (!nb::isinstance<data::Dataset>(value)) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat(what, " must return a duet.data.Dataset, not a ",
                     nb::cast<std::string>(nb::type_name(value.type())))));
  }
  return nb::cast<data::Dataset>(value);
}

// One iteration. Advancing releases the GIL (the pipeline's functions take it when they must),
// and so does ending the iteration, which joins the pipeline's threads: one of them may wait for
// the GIL.
class PyIterator {
 public:
  explicit PyIterator(data::Dataset dataset) : dataset_(std::move(dataset)) {}
  ~PyIterator() { Close(); }

  std::optional<nb::list> Next() {
    if (done_) return std::nullopt;
    {
      nb::gil_scoped_release release;
      if (!iterator_) {
        iterator_.emplace(dataset_.begin());
      } else {
        ++*iterator_;
      }
    }
    if (*iterator_ == std::default_sentinel) {
      Close();
      return std::nullopt;
    }
    return PyList(**iterator_);
  }

  void Close() {
    done_ = true;
    if (!iterator_) return;
    nb::gil_scoped_release release;
    iterator_.reset();
  }

 private:
  data::Dataset dataset_;
  std::optional<data::Dataset::Iterator> iterator_;
  bool done_ = false;
};

}  // namespace

void init_data(nb::module_& m) {
  nb::class_<data::Dataset>(m, "_Dataset")
      .def_static("from_tensor_slices",
                  [](nb::handle components) {
                    return data::Dataset::from_tensor_slices(TensorList(components, "component"));
                  })
      .def_static("from_tensors",
                  [](nb::handle components) {
                    return data::Dataset::from_tensors(TensorList(components, "component"));
                  })
      .def_static("range", [](int64_t start, int64_t stop,
                              int64_t step) { return data::Dataset::range(start, stop, step); })
      .def_static("zip", &data::Dataset::zip)
      // A generator function called (with the GIL) once per iteration; each next() of what it
      // returns gives the flat element, None at the end.
      .def_static("from_generator",
                  [](nb::callable start) {
                    auto held = HoldCallable(std::move(start));
                    return data::Dataset::from_generator([held]() -> data::Generator {
                      nb::gil_scoped_acquire gil;
                      std::shared_ptr<nb::object> next;
                      try {
                        next = HoldCallable(nb::borrow<nb::callable>((*held)()));
                      } catch (const nb::python_error& e) {
                        RethrowAsError(e, "generator");
                      }
                      return [next]() -> std::optional<data::Element> {
                        nb::gil_scoped_acquire gil;
                        try {
                          nb::object element = (*next)();
                          if (element.is_none()) return std::nullopt;
                          return TensorList(element, "a generator's element");
                        } catch (const nb::python_error& e) {
                          RethrowAsError(e, "generator");
                        }
                      };
                    });
                  })
      .def_static("tfrecord",
                  [](std::vector<std::string> files, const std::string& compression) {
                    return data::TFRecordDataset(std::move(files), compression);
                  })
      .def(
          "map",
          [](const data::Dataset& ds, nb::callable trace, const std::string& name, int parallel,
             bool deterministic) {
            return ds.map(TracedPython(std::move(trace), name), parallel, deterministic);
          },
          nb::arg("trace"), nb::arg("name"), nb::arg("num_parallel_calls"),
          nb::arg("deterministic"))
      .def(
          "filter",
          [](const data::Dataset& ds, nb::callable trace, const std::string& name) {
            TracedPython predicate(std::move(trace), name);
            return ds.filter([predicate](const data::Element& e) {
              const data::Element result = predicate(e);
              return data::dataset_adapters::PredicateValue(result.at(0));
            });
          },
          nb::arg("trace"), nb::arg("name"))
      .def("flat_map",
           [](const data::Dataset& ds, nb::callable fn) {
             return ds.interleave(
                 WithGil<data::Dataset>(
                     std::move(fn), "flat_map function",
                     [](nb::handle r) { return AsDataset(r, "flat_map's function"); }),
                 1);
           })
      .def("interleave",
           [](const data::Dataset& ds, nb::callable fn, int64_t cycle_length, int64_t block_length,
              int parallel) {
             return ds.interleave(
                 WithGil<data::Dataset>(
                     std::move(fn), "interleave function",
                     [](nb::handle r) { return AsDataset(r, "interleave's function"); }),
                 cycle_length, block_length, parallel);
           })
      .def("shuffle", &data::Dataset::shuffle, nb::arg("buffer_size"),
           nb::arg("seed").none() = nb::none(), nb::arg("reshuffle_each_iteration") = true)
      .def("batch", &data::Dataset::batch, nb::arg("batch_size"), nb::arg("drop_remainder") = false)
      .def(
          "padded_batch",
          [](const data::Dataset& ds, int64_t batch_size,
             std::optional<std::vector<std::vector<int64_t>>> padded_shapes,
             nb::handle padding_values, bool drop_remainder) {
            std::vector<Shape> shapes;
            if (padded_shapes) {
              for (const auto& dims : *padded_shapes) shapes.push_back(Shape(dims));
            }
            data::Element values;
            if (!padding_values.is_none()) values = TensorList(padding_values, "padding_values");
            return ds.padded_batch(batch_size, std::move(shapes), std::move(values),
                                   drop_remainder);
          },
          nb::arg("batch_size"), nb::arg("padded_shapes").none(), nb::arg("padding_values").none(),
          nb::arg("drop_remainder"))
      .def("unbatch", &data::Dataset::unbatch)
      .def("repeat", &data::Dataset::repeat, nb::arg("count") = -1)
      .def("take", &data::Dataset::take, nb::arg("count"))
      .def("skip", &data::Dataset::skip, nb::arg("count"))
      .def("shard", &data::Dataset::shard, nb::arg("num_shards"), nb::arg("index"))
      .def("auto_shard", &data::Dataset::auto_shard, nb::arg("num_shards"), nb::arg("index"))
      .def("concatenate", &data::Dataset::concatenate, nb::arg("other"))
      .def("prefetch", &data::Dataset::prefetch, nb::arg("buffer_size"))
      .def("cache", &data::Dataset::cache)
      .def("ignore_errors", &data::Dataset::ignore_errors)
      .def("cardinality", &data::Dataset::cardinality);

  nb::class_<PyIterator>(m, "_DatasetIterator")
      .def(nb::init<data::Dataset>())
      .def("next", &PyIterator::Next)
      .def("close", &PyIterator::Close);

  // ((train images, train labels), (test images, test labels)): uint8 (N, 28, 28), int64 (N,).
  m.def(
      "_fashion_mnist",
      [](const std::string& dir) {
        data::FashionMnist fm;
        {
          nb::gil_scoped_release release;
          fm = data::fashion_mnist(dir);
        }
        return nb::make_tuple(nb::make_tuple(fm.train[0], fm.train[1]),
                              nb::make_tuple(fm.test[0], fm.test[1]));
      },
      nb::arg("dir") = "");

  m.attr("INFINITE_CARDINALITY") = data::kInfiniteCardinality;
  m.attr("UNKNOWN_CARDINALITY") = data::kUnknownCardinality;
  m.attr("AUTOTUNE") = data::kAutotune;
}

}  // namespace duet::python
