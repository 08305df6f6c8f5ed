#include "python/src/convert.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "python/src/errors.h"

namespace nb = nanobind;

namespace duet::python {
namespace {

using namespace nb::literals;

[[noreturn]] void Fail(const std::string& message) {
  throw Error(absl::InvalidArgumentError(message));
}

// The DLPack/NumPy element types duet shares, both ways.
struct DLPackType {
  DType dtype;
  nb::dlpack::dtype_code code;
  uint8_t bits;
};
constexpr DLPackType kDLPackTypes[] = {
    {kFloat32, nb::dlpack::dtype_code::Float, 32}, {kFloat64, nb::dlpack::dtype_code::Float, 64},
    {kFloat16, nb::dlpack::dtype_code::Float, 16}, {kBFloat16, nb::dlpack::dtype_code::Bfloat, 16},
    {kInt32, nb::dlpack::dtype_code::Int, 32},     {kInt64, nb::dlpack::dtype_code::Int, 64},
    {kUInt8, nb::dlpack::dtype_code::UInt, 8},     {kBool, nb::dlpack::dtype_code::Bool, 8},
};

std::optional<DType> FromNumPy(const nb::dlpack::dtype& t) {
  if (t.lanes != 1) return std::nullopt;
  for (const DLPackType& d : kDLPackTypes) {
    if (t.code == static_cast<uint8_t>(d.code) && t.bits == d.bits) return d.dtype;
  }
  return std::nullopt;
}

nb::dlpack::dtype ToDLPack(DType dtype) {
  for (const DLPackType& d : kDLPackTypes) {
    if (d.dtype == dtype) return nb::dlpack::dtype{static_cast<uint8_t>(d.code), d.bits, 1};
  }
  Fail(absl::StrCat("a ", DTypeName(dtype), " tensor has no NumPy or DLPack form"));
}

Tensor FromArray(const nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>& array) {
  const std::optional<DType> dtype = FromNumPy(array.dtype());
  if (!dtype) Fail("an array of this dtype cannot be a duet tensor");
  std::vector<int64_t> dims(array.shape_ptr(), array.shape_ptr() + array.ndim());
  Tensor t = Tensor::Empty(*dtype, Shape(dims));
  if (t.nbytes() > 0) std::memcpy(t.raw_data(), array.data(), t.nbytes());
  return t;
}

bool IsSequence(nb::handle value) {
  return PyList_Check(value.ptr()) || PyTuple_Check(value.ptr());
}

bool HoldsTensor(nb::handle value) {
  for (nb::handle item : value) {
    if (nb::isinstance<Tensor>(item) || nb::isinstance<Variable>(item)) return true;
    if (IsSequence(item) && HoldsTensor(item)) return true;
  }
  return false;
}

// TensorFlow's auto-packing: a list holding tensors (a shape with a symbolic batch size,
// [n, 10]) is their stack, its numbers converted to the first tensor's dtype.
Tensor Pack(nb::handle value, const char* what) {
  std::vector<Tensor> parts;
  std::optional<DType> dtype;
  for (nb::handle item : value) {
    parts.push_back(IsSequence(item) && HoldsTensor(item) ? Pack(item, what)
                                                          : ToTensor(item, what));
    const bool literal =
        PyBool_Check(item.ptr()) || PyLong_Check(item.ptr()) || PyFloat_Check(item.ptr());
    if (!dtype && !literal) dtype = parts.back().dtype();
  }
  for (Tensor& part : parts) {
    if (part.dtype() != *dtype) part = cast(part, *dtype, PythonCallSite());
  }
  return stack(parts, 0, PythonCallSite());
}

// A nested list of numbers through NumPy, narrowed as tf.constant narrows it.
Tensor FromNested(nb::handle value, const char* what) {
  if (IsSequence(value) && HoldsTensor(value)) return Pack(value, what);
  nb::module_ np = nb::module_::import_("numpy");
  nb::object array;
  try {
    array = np.attr("asarray")(value);
  } catch (const nb::python_error& e) {
    Fail(absl::StrCat(
        what, ": cannot make a tensor of ", nb::str(value).c_str(),
        " (a ragged list, or elements that are not numbers: ", nb::str(e.value()).c_str(), ")"));
  }
  const std::string kind = nb::cast<std::string>(array.attr("dtype").attr("kind"));
  if (kind == "f") {
    array = array.attr("astype")(np.attr("float32"));
  } else if (kind == "i" || kind == "u") {
    const bool fits = nb::cast<int64_t>(array.attr("size")) == 0 ||
                      (nb::cast<int64_t>(array.attr("min")()) >= INT32_MIN &&
                       nb::cast<int64_t>(array.attr("max")()) <= INT32_MAX);
    array = array.attr("astype")(fits ? np.attr("int32") : np.attr("int64"));
  } else if (kind == "U" || kind == "S") {  // strings: a kString tensor of UTF-8 bytes
    std::vector<int64_t> dims;
    for (nb::handle d : array.attr("shape")) dims.push_back(nb::cast<int64_t>(d));
    Tensor t = Tensor::Empty(kString, Shape(dims));
    std::string* out = t.mutable_data<std::string>();
    // NumPy makes [1, "a"] strings too; tf.constant refuses a mix of numbers and strings.
    nb::object items = np.attr("asarray")(value, "dtype"_a = np.attr("object_"));
    for (nb::handle item : items.attr("ravel")().attr("tolist")()) {
      if (!PyUnicode_Check(item.ptr()) && !PyBytes_Check(item.ptr())) {
        Fail(absl::StrCat(what, ": cannot make a tensor of ", nb::str(value).c_str(),
                          " (strings mixed with other values)"));
      }
    }
    for (nb::handle item : array.attr("ravel")().attr("tolist")()) {
      *out++ = PyBytes_Check(item.ptr())
                   ? std::string(PyBytes_AS_STRING(item.ptr()), PyBytes_GET_SIZE(item.ptr()))
                   : nb::cast<std::string>(item);
    }
    return t;
  } else if (kind != "b") {
    Fail(absl::StrCat(what, ": cannot make a tensor of ", nb::str(value).c_str(),
                      " (a ragged list, or elements that are not numbers)"));
  }
  return FromArray(nb::cast<nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>>(
      np.attr("ascontiguousarray")(array)));
}

}  // namespace

Tensor ToTensor(nb::handle value, const char* what, std::optional<DType> dtype) {
  Tensor t;
  if (nb::isinstance<Tensor>(value)) {
    t = nb::cast<Tensor>(value);
  } else if (nb::isinstance<Variable>(value)) {
    t = nb::cast<const Variable&>(value).value(PythonCallSite());
  } else if (PyBool_Check(value.ptr())) {
    t = Tensor(value.ptr() == Py_True);
  } else if (PyLong_Check(value.ptr())) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow != 0) Fail(absl::StrCat(what, ": ", nb::str(value).c_str(), " is out of range"));
    t = Tensor(static_cast<int64_t>(v));
  } else if (PyFloat_Check(value.ptr())) {
    t = Tensor(PyFloat_AS_DOUBLE(value.ptr()));
  } else if (value.is_none()) {
    Fail(absl::StrCat(what, ": None is not a tensor"));
  } else if (PyUnicode_Check(value.ptr()) || PyBytes_Check(value.ptr())) {
    t = constant(nb::cast<std::string>(nb::str(value)));
  } else if (nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu> array;
             nb::try_cast(value, array) && FromNumPy(array.dtype())) {
    t = FromArray(array);
  } else if (PyList_Check(value.ptr()) || PyTuple_Check(value.ptr()) ||
             nb::hasattr(value, "__array__")) {
    t = FromNested(value, what);
  } else {
    Fail(absl::StrCat(what, ": cannot make a tensor of a ",
                      nb::cast<std::string>(nb::type_name(value.type()))));
  }
  if (dtype && t.dtype() != *dtype) t = cast(t, *dtype);
  return t;
}

Tensor ToConstant(nb::handle value, const char* what, std::optional<DType> dtype) {
  Tensor t;
  if (PyBool_Check(value.ptr())) {
    t = constant(value.ptr() == Py_True);
  } else if (PyLong_Check(value.ptr())) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow != 0) return ToTensor(value, what, dtype);  // its error names the value
    const bool fits = v >= INT32_MIN && v <= INT32_MAX;
    t = !dtype && fits ? constant(static_cast<int32_t>(v)) : constant(static_cast<int64_t>(v));
  } else if (PyFloat_Check(value.ptr())) {
    const double v = PyFloat_AS_DOUBLE(value.ptr());
    t = dtype ? constant(v) : constant(static_cast<float>(v));  // cast from the exact value
  } else {
    return ToTensor(value, what, dtype);
  }
  return dtype && t.dtype() != *dtype ? cast(t, *dtype) : t;
}

std::optional<DType> DTypeArg(nb::handle dtype) {
  if (dtype.is_none()) return std::nullopt;
  nb::object d = nb::module_::import_("duet.dtypes").attr("as_dtype")(dtype);
  return static_cast<DType>(nb::cast<int>(d.attr("_enum")));
}

// Note [DLPack]
// ~~~~~~~~~~~~~~
// Both ways share memory: an exported view holds a reference to the tensor's memory (a capsule
// owning a Tensor) and an imported tensor holds the producer's array (the deleter of an owner
// TensorImpl, which takes the GIL to drop it). Arrays that are not C-contiguous are made so by
// nanobind's import (a copy); the device is the producer's (kDLCPU: cpu:0; kDLCUDA: cuda:N). duet's
// tensors are immutable, so a consumer that writes into an exported view breaks that promise, as
// with any DLPack producer; NumPy's views of duet's memory are read-only.
// GPU memory is shared across streams: duet queues its work on a stream of its own (Note [One
// stream per device] in kernels/cuda/cuda_context.h), the other side on its own streams, and the
// caching allocators of both reuse a freed block at once. So the device is synchronized
// (SynchronizeDevice: every stream of the process) whenever memory changes hands: before an
// export (duet's writes are done), after an import (the producer's are), and before either side
// lets go of the other's memory (the holder's reads are done). The `stream` argument of
// __dlpack__ is therefore not needed, and ignored. A virtual device's memory counts as another
// device's (Note [Host reads of device memory] in core/device.cc) and has no DLPack device:
// exporting it is an error that says to copy it to the host.
// Symbolic tensors (a graph's, a trace's) have no memory to share.
void CheckHasValue(const Tensor& tensor, const char* what) {
  if (tensor.impl()->symbolic != nullptr || !tensor.has_value()) {
    Fail(absl::StrCat(what,
                      " of a symbolic tensor (a graph's, or one being traced): it has no "
                      "value; run it in a Session, or call the function eagerly"));
  }
}

// Waits for a GPU `device`, without the GIL (Note [DLPack]); nothing for the CPU.
void SynchronizeWithoutGil(Device device) {
  if (!device.is_cuda()) return;
  nb::gil_scoped_release release;
  SynchronizeDevice(device);
}

nb::object DLPackView(const Tensor& tensor) {
  CheckHasValue(tensor, "__dlpack__()");
  const Device d = tensor.device();
  if (d.is_cpu() && !d.is_host()) {
    Fail(absl::StrCat("__dlpack__() of a tensor on ", d.str(),
                      ", a virtual device whose memory counts as another device's: copy it to the "
                      "host first (t.cpu())"));
  }
  std::vector<size_t> shape(tensor.shape().dims().begin(), tensor.shape().dims().end());
  SynchronizeWithoutGil(d);
  auto* owner = new Tensor(tensor);
  nb::capsule keep(owner, [](void* p) noexcept {
    auto* held = static_cast<Tensor*>(p);
    SynchronizeWithoutGil(
        held->device());  // the consumer's queued reads end before duet's pool reuses the block
    delete held;
  });
  const int32_t device_type = d.is_cuda() ? nb::device::cuda::value : nb::device::cpu::value;
  nb::ndarray<> array(tensor.raw_data(), shape.size(), shape.data(), keep, /*strides=*/nullptr,
                      ToDLPack(tensor.dtype()), device_type, d.is_cuda() ? d.index() : 0);
  return array.cast();
}

Tensor FromDLPack(nb::handle value) {
  nb::ndarray<nb::c_contig> array;
  if (!nb::try_cast(value, array)) {
    Fail(absl::StrCat("from_dlpack: a ", nb::cast<std::string>(nb::type_name(value.type())),
                      " does not export DLPack (no __dlpack__, or an unsupported layout)"));
  }
  const std::optional<DType> dtype = FromNumPy(array.dtype());
  if (!dtype) Fail("from_dlpack: an array of this dtype cannot be a duet tensor");
  Device device = Device::cpu();
  if (array.device_type() == nb::device::cuda::value) {
    device = Device::cuda(array.device_id());
  } else if (array.device_type() != nb::device::cpu::value) {
    Fail(absl::StrCat("from_dlpack: DLPack device type ", array.device_type(),
                      " is not a duet device (CPU and CUDA are)"));
  }
  auto* held = new nb::ndarray<nb::c_contig>(std::move(array));
  std::shared_ptr<TensorImpl> owner(new TensorImpl, [held, device](TensorImpl* impl) {
    SynchronizeDevice(device);  // duet's queued reads end before the producer may reuse the memory
    nb::gil_scoped_acquire gil;
    delete held;
    delete impl;
  });
  SynchronizeWithoutGil(device);  // the producer's queued writes end before duet reads
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = *dtype;
  impl->shape = Shape(std::vector<int64_t>(held->shape_ptr(), held->shape_ptr() + held->ndim()));
  impl->device = device;
  impl->data = held->data();
  impl->base = std::move(owner);
  return Tensor(std::move(impl));
}

Tensor OnHost(const Tensor& tensor) {
  if (tensor.device().is_host()) return tensor;
  nb::gil_scoped_release release;
  return tensor.cpu();
}

nb::object ToNumPy(const Tensor& tensor) {
  CheckHasValue(tensor, "numpy()");
  Tensor host = OnHost(tensor);
  if (host.dtype() == kString) {  // an object array of bytes, as TensorFlow's numpy() gives
    nb::list items;
    const std::string* strings = host.data<std::string>();
    for (int64_t i = 0; i < host.num_elements(); ++i) {
      items.append(nb::bytes(strings[i].data(), strings[i].size()));
    }
    nb::module_ np = nb::module_::import_("numpy");
    nb::list dims;
    for (int64_t d : host.shape().dims()) dims.append(d);
    return np.attr("array")(items, "dtype"_a = np.attr("object_")).attr("reshape")(dims);
  }
  std::vector<size_t> shape(host.shape().dims().begin(), host.shape().dims().end());
  // The capsule owns a reference to the tensor's memory for as long as the array lives.
  auto* owner = new Tensor(host);
  nb::capsule keep(owner, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
  nb::ndarray<nb::numpy, nb::ro> array(host.raw_data(), shape.size(), shape.data(), keep,
                                       /*strides=*/nullptr, ToDLPack(host.dtype()));
  return array.cast();
}

}  // namespace duet::python
