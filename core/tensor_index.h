// The C++ spelling of NumPy's basic indexing: x.index({Slice(), 3, Slice(1, None, 2), NewAxis,
// Ellipsis}) and x(Slice(), i). The ops layer lowers an index to StridedSlice (Note [Tensor
// indexing] in ops/array/indexing.cc); core only holds the index values.
#pragma once

#include <concepts>
#include <cstdint>
#include <source_location>
#include <variant>
#include <vector>

#include "core/tensor.h"

namespace duet {

// Python's None in a Slice: the range is open at that end (Slice(1, None, 2) is x[1::2]).
struct NoneType {};
inline constexpr NoneType None{};
// numpy.newaxis (None as an index in Python): inserts a dim of size 1.
struct NewAxisType {};
inline constexpr NewAxisType NewAxis{};
// `...`: as many full dims as the other entries leave.
struct EllipsisType {};
inline constexpr EllipsisType Ellipsis{};

// One end (or the step) of a Slice: None, an integer, or an int32/int64 scalar tensor.
class SliceBound {
 public:
  SliceBound(NoneType) {}  // NOLINT(google-explicit-constructor): Slice(1, None)
  template <std::integral I>
  requires(!std::same_as<I, bool>) SliceBound(I value)  // NOLINT
      : value_(static_cast<int64_t>(value)) {}
  SliceBound(const Tensor& value) : value_(value) {}  // NOLINT

  bool is_none() const { return std::holds_alternative<NoneType>(value_); }
  const std::variant<NoneType, int64_t, Tensor>& value() const { return value_; }

 private:
  std::variant<NoneType, int64_t, Tensor> value_;
};

// start:stop:step, each end open when None (Slice() is `:`). A negative start or stop counts from
// the end; a negative step walks backwards.
struct Slice {
  Slice(SliceBound start = None, SliceBound stop = None, SliceBound step = None)
      : start(std::move(start)), stop(std::move(stop)), step(std::move(step)) {}
  SliceBound start, stop, step;
};

// One entry of an index: an integer or an int32/int64 scalar tensor (takes that element and drops
// the dim; negative counts from the end), a Slice, NewAxis or Ellipsis.
class TensorIndex {
 public:
  template <std::integral I>
  requires(!std::same_as<I, bool>) TensorIndex(I value)  // NOLINT(google-explicit-constructor)
      : value_(static_cast<int64_t>(value)) {}
  TensorIndex(const Tensor& value) : value_(value) {}     // NOLINT
  TensorIndex(Slice value) : value_(std::move(value)) {}  // NOLINT
  TensorIndex(NewAxisType value) : value_(value) {}       // NOLINT
  TensorIndex(EllipsisType value) : value_(value) {}      // NOLINT

  const std::variant<int64_t, Tensor, Slice, NewAxisType, EllipsisType>& value() const {
    return value_;
  }

 private:
  std::variant<int64_t, Tensor, Slice, NewAxisType, EllipsisType> value_;
};

namespace core_internal {
// What Tensor::index runs: set by the ops layer (ops/array/indexing.cc) at static initialization,
// since lowering an index needs ops that core cannot depend on.
using IndexFn = Tensor (*)(const Tensor& x, const std::vector<TensorIndex>& indices,
                           const std::source_location& location);
void SetIndexFn(IndexFn fn);
IndexFn GetIndexFn();
}  // namespace core_internal

template <typename... Indices>
Tensor Tensor::operator()(const Indices&... indices) const {
  return index({TensorIndex(indices)...});
}

}  // namespace duet
