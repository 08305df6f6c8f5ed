// One translation point for conversions (STYLE.md): a Python value -> a duet Tensor, used by
// every binding that takes a tensor.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <optional>

#include "duet.h"

namespace duet::python {

// A Tensor passes through; a Variable gives its value (read as the op reads it: a tape watching
// the variable records the read); a Python bool, int or float becomes a literal (it takes the dtype
// of the tensor it meets, as in C++: x + 1 keeps x's dtype); NumPy arrays keep their dtype; nested
// lists become float32 or int32 (int64 past int32's range), as tf.constant makes them. `dtype`
// casts numbers and lists to it. Throws duet::Error (InvalidArgument) naming `what` otherwise.
Tensor ToTensor(nanobind::handle value, const char* what = "value",
                std::optional<DType> dtype = std::nullopt);

// Note [The GIL]: whether an op on these inputs runs long enough to let other Python threads run
// meanwhile (an input of kGilReleaseElements elements or more). Releasing and taking the GIL
// back costs about 0.1 us, a tiny op's whole kernel; docs/python.md has the table of what releases
// it.
inline constexpr int64_t kGilReleaseElements = 1 << 14;
template <typename Tensors>
bool WorthReleasingGil(const Tensors& inputs) {
  for (const Tensor& t : inputs) {
    if (t.defined() && t.impl()->symbolic == nullptr && t.num_elements() >= kGilReleaseElements) {
      return true;
    }
  }
  return false;
}

// A dtype argument: None, a duet.DType, its name, or a NumPy dtype (through duet.as_dtype).
std::optional<DType> DTypeArg(nanobind::handle dtype);

// DLPack (Note [DLPack] in convert.cc): a DLPack capsule of the tensor's memory (what
// __dlpack__ returns), and a tensor over the memory of any object implementing __dlpack__ (NumPy,
// PyTorch, CuPy, TensorFlow's capsules), both without a copy.
// As ToTensor, but Python numbers become tensors as tf.constant and tf.Variable make them: a
// float is float32 and an int int32 (int64 beyond its range) unless `dtype` says otherwise, and
// none is a literal. ToTensor makes them float64/int64 literals, which as an op's operands take
// the other input's dtype.
Tensor ToConstant(nanobind::handle value, const char* what = "value",
                  std::optional<DType> dtype = std::nullopt);

nanobind::object DLPackView(const Tensor& tensor);
Tensor FromDLPack(nanobind::handle value);

// A host array of the tensor's memory (read-only, no copy) for the NumPy dtypes duet shares.
nanobind::object ToNumPy(const Tensor& tensor);

// `tensor` itself when its memory is host memory, else a copy in host memory, made with the GIL
// released (the copy waits for the device).
Tensor OnHost(const Tensor& tensor);

}  // namespace duet::python
