// duet.cond, duet.while_loop and duet.py_function over Python callables: plain Python control flow
// eagerly, TensorFlow's functional If/While and a host-function node in graphs and traces
// (graph/control_flow.h, ops/control_flow/control_flow_ops.h). duet/_control_flow.py handles the
// nested structures.
#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <vector>

#include "duet.h"
#include "python/src/callables.h"
#include "python/src/convert.h"
#include "python/src/errors.h"

namespace nb = nanobind;

namespace duet::python {
namespace {

std::vector<Tensor> Tensors(nb::handle values, const char* what) {
  std::vector<Tensor> out;
  for (nb::handle v : values) out.push_back(ToTensor(v, what));
  return out;
}

nb::list PyList(const std::vector<Tensor>& tensors) {
  nb::list out;
  for (const Tensor& t : tensors) out.append(nb::cast(t));
  return out;
}

}  // namespace

void init_control_flow(nb::module_& m) {
  // Branches return lists of tensors (duet/_control_flow.py wraps single results).
  m.def("_cond", [](nb::handle pred, nb::callable then_fn, nb::callable else_fn) {
    return cond(
        ToTensor(pred, "pred"), [&] { return Tensors(then_fn(), "true_fn's result"); },
        [&] { return Tensors(else_fn(), "false_fn's result"); }, PythonCallSite());
  });
  m.def("_while_loop", [](nb::callable cond_fn, nb::callable body_fn, nb::handle loop_vars,
                          int64_t maximum_iterations) {
    return while_loop(
        [&](const std::vector<Tensor>& vars) { return ToTensor(cond_fn(PyList(vars)), "cond"); },
        [&](const std::vector<Tensor>& vars) {
          return Tensors(body_fn(PyList(vars)), "body's result");
        },
        Tensors(loop_vars, "loop_vars"), WhileOptions{.maximum_iterations = maximum_iterations},
        PythonCallSite());
  });
  // A node calling `fn` (a Python callable) on its inputs' values when it runs: eagerly at once,
  // in a graph at each Session.run (which released the GIL: the call takes it).
  m.def("_py_function", [](nb::callable fn, nb::handle inputs, nb::handle output_dtypes) {
    std::shared_ptr<nb::object> held = HoldCallable(std::move(fn));
    std::vector<DType> dtypes;
    for (nb::handle d : output_dtypes) dtypes.push_back(*DTypeArg(d));
    return host_function(
        [held](const std::vector<Tensor>& values) {
          nb::gil_scoped_acquire gil;
          try {
            return Tensors((*held)(PyList(values)), "py_function's result");
          } catch (const nb::python_error& e) {
            RethrowAsError(e, "py_function");
          }
        },
        Tensors(inputs, "inp"), dtypes, PythonCallSite());
  });
}

}  // namespace duet::python
