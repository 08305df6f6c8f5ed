// duet.Variable and the gradient tape's C++ half (duet/_autodiff.py is the Python half: context
// managers and nested structures of sources).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "duet.h"
#include "python/src/callables.h"
#include "python/src/convert.h"
#include "python/src/errors.h"

namespace nb = nanobind;

namespace duet::python {
namespace {

// Pauses every tape of this thread between enter() and exit() (GradientTape.stop_recording).
struct RecordingPause {
  std::optional<StopRecording> pause;
};

GradientSource SourceOf(nb::handle value) {
  if (nb::isinstance<Variable>(value)) return GradientSource(nb::cast<const Variable&>(value));
  return GradientSource(ToTensor(value, "source"));
}

// The gradients a Python backward function returned: a tensor, or a list or tuple of them (None
// for an input without a gradient), one per input.
std::vector<Tensor> GradientsFrom(nb::handle result, size_t num_inputs) {
  std::vector<Tensor> grads;
  if (PyList_Check(result.ptr()) || PyTuple_Check(result.ptr())) {
    for (nb::handle g : result) grads.push_back(g.is_none() ? Tensor() : ToTensor(g, "gradient"));
  } else {
    grads.push_back(ToTensor(result, "gradient"));
  }
  if (grads.size() != num_inputs) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("custom_gradient: the gradient function returned ", grads.size(),
                     " gradients for ", num_inputs, " inputs")));
  }
  return grads;
}

// A value to assign to `v`: a tensor as it is (a dtype other than the variable's is an error), a
// Python or NumPy value converted to the variable's dtype, as tf.Variable.assign converts them.
Tensor ValueFor(const Variable& v, nb::handle value, const char* what) {
  if (nb::isinstance<Tensor>(value) || nb::isinstance<Variable>(value))
    return ToTensor(value, what);
  return ToTensor(value, what, v.dtype());
}

}  // namespace

void init_autodiff(nb::module_& m) {
  // value passed through a DuetCustomGradient op whose gradient is backward(upstream), a Python
  // callable run with the GIL (duet/_autodiff.py's custom_gradient).
  m.def("_custom_gradient_op",
        [](const Tensor& value, std::vector<Tensor> inputs, nb::callable backward) {
          const size_t n = inputs.size();
          std::shared_ptr<nb::object> fn = HoldCallable(std::move(backward));
          return custom_gradient_op(
              value, inputs,
              [fn, n](const Tensor& upstream) {
                nb::gil_scoped_acquire gil;
                return GradientsFrom((*fn)(upstream), n);
              },
              PythonCallSite());
        });

  nb::class_<Variable>(m, "Variable")
      .def(
          "__init__",
          [](Variable* self, nb::handle initial_value, bool trainable,
             std::optional<std::string> name, nb::handle dtype) {
            new (self) Variable(ToConstant(initial_value, "initial_value", DTypeArg(dtype)),
                                name.value_or("Variable"), trainable, PythonCallSite());
          },
          nb::arg("initial_value").none(), nb::arg("trainable") = true,
          nb::arg("name") = nb::none(), nb::arg("dtype").none() = nb::none())
      .def_prop_ro("name", &Variable::name)
      .def_prop_ro("trainable", &Variable::trainable)
      .def_prop_ro("handle", &Variable::handle,
                   "The variable's resource handle (a kResource tensor).")
      .def_prop_ro("_dtype", [](const Variable& v) { return static_cast<int>(v.dtype()); })
      .def_prop_ro("_dims",
                   [](const Variable& v) {
                     nb::list dims;
                     for (int64_t d : v.shape().dims()) dims.append(d);
                     return nb::tuple(dims);
                   })
      .def("read_value", [](const Variable& v) { return v.value(PythonCallSite()); })
      .def("value", [](const Variable& v) { return v.value(PythonCallSite()); })
      .def(
          "assign",
          [](const Variable& v, nb::handle value) {
            return v.assign(ValueFor(v, value, "value"), PythonCallSite());
          },
          nb::arg("value").none(), nb::rv_policy::copy)
      .def(
          "assign_add",
          [](const Variable& v, nb::handle delta) {
            return v.assign_add(ValueFor(v, delta, "delta"), PythonCallSite());
          },
          nb::arg("delta").none(), nb::rv_policy::copy)
      .def(
          "assign_sub",
          [](const Variable& v, nb::handle delta) {
            return v.assign_sub(ValueFor(v, delta, "delta"), PythonCallSite());
          },
          nb::arg("delta").none(), nb::rv_policy::copy);

  nb::class_<GradientTape>(m, "_Tape")
      .def(nb::init<bool, bool>(), nb::arg("persistent"), nb::arg("watch_accessed_variables"))
      .def("watch", [](GradientTape& tape, nb::handle x) { tape.watch(SourceOf(x).tensor()); })
      .def("stop", &GradientTape::stop)
      .def_prop_ro("persistent", &GradientTape::persistent)
      // gradient(targets, sources, output_gradients): flat lists; None for an unconnected source.
      .def("gradient", [](GradientTape& tape, std::vector<nb::handle> targets,
                          std::vector<nb::handle> sources, std::vector<nb::handle> upstream) {
        std::vector<Tensor> target_tensors, upstream_tensors;
        for (nb::handle t : targets) target_tensors.push_back(ToTensor(t, "target"));
        for (nb::handle g : upstream) upstream_tensors.push_back(ToTensor(g, "output_gradients"));
        std::vector<GradientSource> source_list;
        for (nb::handle s : sources) source_list.push_back(SourceOf(s));
        std::vector<Tensor> grads = tape.gradient(target_tensors, source_list, upstream_tensors);
        nb::list out;
        for (Tensor& g : grads) out.append(g.defined() ? nb::cast(std::move(g)) : nb::none());
        return out;
      });

  nb::class_<RecordingPause>(m, "_RecordingPause")
      .def(nb::init<>())
      .def("enter", [](RecordingPause& p) { p.pause.emplace(); })
      .def("exit", [](RecordingPause& p) { p.pause.reset(); });
}

}  // namespace duet::python
