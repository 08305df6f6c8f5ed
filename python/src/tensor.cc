// duet.Tensor: device, NumPy and DLPack views, Python numbers, printing, and the hot operators
// (arithmetic and comparisons; the others, dtype and shape are in duet/_tensor.py).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <functional>

#include "absl/strings/str_cat.h"
#include "duet.h"
#include "python/src/convert.h"
#include "python/src/errors.h"

namespace nb = nanobind;

namespace duet::python {
namespace {

// A Python number from an eager scalar: Python's int(), float(), bool() and index().
Tensor Scalar(const Tensor& t, const char* what) {
  if (t.impl()->symbolic != nullptr) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        what, "() of a symbolic tensor (a graph's, or one being traced): it has no value yet")));
  }
  if (t.num_elements() != 1) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat(what, "() needs a tensor of one element, not of shape ", t.shape().str())));
  }
  return OnHost(t);
}

// The hot binary ops: operators and duet.add & co. call the C++ op functions directly, with no
// generic argument parsing (Note [Fast paths] in python/src/ops.cc).
using BinaryFn = Tensor (*)(const Tensor&, const Tensor&, OpSite);

// An op's name as a template argument: errors converting an operand name the op.
template <size_t N>
struct OpName {
  constexpr OpName(const char (&name)[N]) { std::copy_n(name, N, value); }
  char value[N];
};

template <OpName kOp>
Tensor Operand(nb::handle value, const char* arg) {
  try {
    return ToTensor(value, arg);
  } catch (const Error& e) {
    throw Error(absl::Status(e.code(), absl::StrCat(kOp.value, ": ", e.status().message())));
  }
}

// Two tensors: the overload tried first, with no conversion at all.
template <BinaryFn F>
Tensor BinaryTensors(const Tensor& x, const Tensor& y) {
  const std::reference_wrapper<const Tensor> inputs[] = {x, y};  // no reference counting
  if (WorthReleasingGil(inputs)) {
    nb::gil_scoped_release release;
    return F(x, y, PythonCallSite());
  }
  return F(x, y, PythonCallSite());
}

template <BinaryFn F, OpName kOp>
Tensor Binary(nb::handle x, nb::handle y) {
  return BinaryTensors<F>(Operand<kOp>(x, "x"), Operand<kOp>(y, "y"));
}

template <BinaryFn F, OpName kOp>
Tensor Reflected(nb::handle x, nb::handle y) {
  return BinaryTensors<F>(Operand<kOp>(y, "x"), Operand<kOp>(x, "y"));
}

// A binary operator (and its reflected twin, if any): two tensors first, then any two values.
template <BinaryFn F, OpName kOp>
void DefOperator(nb::class_<Tensor>& cls, const char* name, const char* reflected) {
  cls.def(name, &BinaryTensors<F>, nb::is_operator());
  cls.def(name, &Binary<F, kOp>, nb::is_operator());
  if (reflected != nullptr) cls.def(reflected, &Reflected<F, kOp>, nb::is_operator());
}

// duet.<name>(x, y) with the same two overloads (None reaches the conversion's error).
template <BinaryFn F, OpName kOp>
void DefFunction(nb::module_& m, const char* name) {
  m.def(name, &BinaryTensors<F>, nb::arg("x"), nb::arg("y"));
  m.def(name, &Binary<F, kOp>, nb::arg("x").none(), nb::arg("y").none());
}

// == and != are elementwise, as TensorFlow's; against None they are Python's identity tests.
template <BinaryFn F, OpName kOp, bool kNoneResult>
nb::object Compare(nb::handle x, nb::handle y) {
  if (y.is_none()) return nb::bool_(kNoneResult);
  return nb::cast(Binary<F, kOp>(x, y));
}

// Places ops on a device between enter() and exit() (duet.device).
struct DeviceDefault {
  Device device;
  std::optional<DeviceScope> scope;
};

}  // namespace

void init_tensor(nb::module_& m) {
  nb::class_<DeviceDefault>(m, "_DeviceScope")
      .def("__init__",
           [](DeviceDefault* self, const std::string& name) {
             new (self) DeviceDefault{ValueOrThrow(Device::Parse(name)), std::nullopt};
           })
      .def("enter", [](DeviceDefault& d) { d.scope.emplace(d.device); })
      .def("exit", [](DeviceDefault& d) { d.scope.reset(); });
  m.def("num_cpu_devices", &num_cpu_devices);
  nb::class_<Tensor> tensor(m, "Tensor");
  DefOperator<add, "AddV2">(tensor, "__add__", "__radd__");
  DefOperator<subtract, "Sub">(tensor, "__sub__", "__rsub__");
  DefOperator<multiply, "Mul">(tensor, "__mul__", "__rmul__");
  DefOperator<divide, "RealDiv">(tensor, "__truediv__", "__rtruediv__");
  DefOperator<floor_div, "FloorDiv">(tensor, "__floordiv__", "__rfloordiv__");
  DefOperator<floor_mod, "FloorMod">(tensor, "__mod__", "__rmod__");
  DefOperator<pow, "Pow">(tensor, "__pow__", "__rpow__");
  DefOperator<logical_and, "LogicalAnd">(tensor, "__and__", "__rand__");
  DefOperator<logical_or, "LogicalOr">(tensor, "__or__", "__ror__");
  DefOperator<less, "Less">(tensor, "__lt__", nullptr);
  DefOperator<less_equal, "LessEqual">(tensor, "__le__", nullptr);
  DefOperator<greater, "Greater">(tensor, "__gt__", nullptr);
  DefOperator<greater_equal, "GreaterEqual">(tensor, "__ge__", nullptr);
  tensor.def("__eq__", &Compare<equal, "Equal", false>, nb::is_operator())
      .def("__ne__", &Compare<not_equal, "NotEqual", true>, nb::is_operator());
  DefFunction<add, "AddV2">(m, "add");
  DefFunction<subtract, "Sub">(m, "subtract");
  DefFunction<multiply, "Mul">(m, "multiply");
  DefFunction<divide, "RealDiv">(m, "divide");

  tensor.def_prop_ro("_dtype", [](const Tensor& t) { return static_cast<int>(t.dtype()); })
      .def_prop_ro("_dims",
                   [](const Tensor& t) -> nb::object {
                     if (t.shape().unknown_rank()) return nb::none();
                     nb::list dims;
                     for (int64_t d : t.shape().dims()) {
                       dims.append(d < 0 ? nb::object(nb::none()) : nb::object(nb::int_(d)));
                     }
                     return nb::tuple(dims);
                   })
      .def_prop_ro("device", [](const Tensor& t) { return t.device().tf_name(); })
      .def_prop_ro("ndim", [](const Tensor& t) { return t.rank(); })
      .def("numpy", &ToNumPy, "The values as a read-only NumPy array (no copy for host memory).")
      // Copies between devices wait for them: without the GIL.
      .def(
          "cpu", [](const Tensor& t) { return t.cpu(); }, nb::call_guard<nb::gil_scoped_release>())
      .def(
          "gpu", [](const Tensor& t, int index) { return t.gpu(index); }, nb::arg("index") = 0,
          nb::call_guard<nb::gil_scoped_release>())
      .def(
          "_to",
          [](const Tensor& t, const std::string& spec) {
            return t.to(ValueOrThrow(Device::Parse(spec)));
          },
          nb::call_guard<nb::gil_scoped_release>())
      .def("__float__",
           [](const Tensor& t) { return cast(Scalar(t, "float"), kFloat64).item<double>(); })
      .def("__bool__", [](const Tensor& t) { return cast(Scalar(t, "bool"), kBool).item<bool>(); })
      // A floating scalar converts as Python's int(float) does: NaN and infinities raise.
      .def("__int__",
           [](const Tensor& t) -> nb::object {
             Tensor s = Scalar(t, "int");
             if (!IsFloating(s.dtype())) return nb::int_(cast(s, kInt64).item<int64_t>());
             PyObject* n = PyNumber_Long(nb::float_(cast(s, kFloat64).item<double>()).ptr());
             if (n == nullptr) throw nb::python_error();  // ValueError, OverflowError
             return nb::steal(n);
           })
      .def(
          "__index__",
          [](const Tensor& t) {
            Tensor s = Scalar(t, "index");
            if (s.dtype() != kInt32 && s.dtype() != kInt64 && s.dtype() != DType::kUInt8) {
              throw Error(absl::InvalidArgumentError(absl::StrCat(
                  "only an integer tensor can be an index, not a ", DTypeName(s.dtype()), " one")));
            }
            return cast(s, kInt64).item<int64_t>();
          })
      .def(
          "__dlpack__", [](const Tensor& t, nb::kwargs) { return DLPackView(t); },
          "A DLPack capsule of the tensor's memory (no copy).")
      .def("__dlpack_device__",
           [](const Tensor& t) {
             const Device d = t.device();
             return d.is_cuda() ? nb::make_tuple(2, d.index()) : nb::make_tuple(1, 0);
           })
      .def("__repr__", [](const Tensor& t) { return absl::StrCat("duet.", FormatTensor(t)); })
      .def("__str__", [](const Tensor& t) { return absl::StrCat("duet.", FormatTensor(t)); });

  m.def(
      "convert_to_tensor",
      [](nb::handle value, nb::handle dtype) { return ToTensor(value, "value", DTypeArg(dtype)); },
      nb::arg("value").none(), nb::arg("dtype").none() = nb::none());
  m.def(
      "_constant",
      [](nb::handle value, nb::handle dtype) {
        return ToConstant(value, "value", DTypeArg(dtype));
      },
      nb::arg("value").none(), nb::arg("dtype").none() = nb::none());
  m.def("from_dlpack", &FromDLPack, nb::arg("array"),
        "A tensor over the memory of an object that implements __dlpack__ (no copy).");
  m.def("dtype_name", [](int dtype) { return std::string(DTypeName(static_cast<DType>(dtype))); });
  m.def("num_gpus", &num_gpus);
}

}  // namespace duet::python
