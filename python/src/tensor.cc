// duet.Tensor: dtype, shape, device, NumPy views, Python numbers, printing. Operators are defined
// in Python (duet/_tensor.py) over the generated ops.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

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
  return t.device().is_host() ? t : t.cpu();
}

}  // namespace

void init_tensor(nb::module_& m) {
  nb::class_<Tensor>(m, "Tensor")
      .def_prop_ro("_dtype", [](const Tensor& t) { return static_cast<int>(t.dtype()); })
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
      .def("cpu", [](const Tensor& t) { return t.cpu(); })
      .def(
          "gpu", [](const Tensor& t, int index) { return t.gpu(index); }, nb::arg("index") = 0)
      .def("_to", [](const Tensor& t,
                     const std::string& spec) { return t.to(ValueOrThrow(Device::Parse(spec))); })
      .def("__float__",
           [](const Tensor& t) { return cast(Scalar(t, "float"), kFloat64).item<double>(); })
      .def("__bool__", [](const Tensor& t) { return cast(Scalar(t, "bool"), kBool).item<bool>(); })
      .def("__int__",
           [](const Tensor& t) { return cast(Scalar(t, "int"), kInt64).item<int64_t>(); })
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
      .def("__repr__", [](const Tensor& t) { return absl::StrCat("duet.", FormatTensor(t)); })
      .def("__str__", [](const Tensor& t) { return absl::StrCat("duet.", FormatTensor(t)); });

  m.def(
      "convert_to_tensor",
      [](nb::handle value, std::optional<int> dtype) {
        return ToTensor(value, "value",
                        dtype ? std::optional<DType>(static_cast<DType>(*dtype)) : std::nullopt);
      },
      nb::arg("value"), nb::arg("dtype") = nb::none());
  m.def("dtype_name", [](int dtype) { return std::string(DTypeName(static_cast<DType>(dtype))); });
  m.def("num_gpus", &num_gpus);
}

}  // namespace duet::python
