// Tensor::index and Tensor::operator() (core/tensor_index.h): NumPy's basic indexing lowered to
// StridedSlice (composite: a tensor index also needs Cast and AddV2).
//
// Note [Tensor indexing]: each index entry becomes one entry of a strided slice spec, as
// TensorFlow's Python `x[...]` does (tensorflow/python/ops/array_ops.py, _slice_helper): an
// integer i is begin i, end i + 1 with its shrink_axis_mask bit (end 0 for i = -1 is what
// StridedSlice expects: a shrunk dim reads only its begin); a Slice's None ends set
// begin_mask/end_mask bits; NewAxis and Ellipsis set new_axis_mask and ellipsis_mask. With only
// integer entries the spec is a constant (attrs the shape function can resolve, so a traced slice
// keeps its static shape); a tensor entry or bound makes begin, end and strides 1-D int64 tensors
// packed from the entries. The gradient is StridedSlice's (StridedSliceGrad).
#include "ops/composite/indexing.h"

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "ops/array/index_tensor.h"
#include "ops/math/math_ops.h"
#include "ops/op_site.h"

namespace duet {
namespace {

// The begin, end and stride entries of a spec, as constants or tensors.
struct SpecEntries {
  std::vector<int64_t> begin, end, strides;
  std::vector<Tensor> dynamic_begin, dynamic_end, dynamic_strides;  // set when `dynamic`
  bool dynamic = false;
};

// A tensor index or bound as an int64 scalar; throws for anything else.
Tensor IndexScalarTensor(const Tensor& t, absl::string_view what, const OpSite& site) {
  if (!t.defined() || (t.dtype() != kInt32 && t.dtype() != kInt64) ||
      !t.shape().IsCompatibleWith(Shape())) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "Tensor::index (", site.str(), "): ", what, " must be an int32 or int64 scalar, not ",
        t.defined() ? absl::StrCat(DTypeName(t.dtype()), " ", t.shape().str()) : "undefined")));
  }
  return t.dtype() == kInt64 ? t : cast(t, kInt64, site);
}

class SpecBuilder {
 public:
  explicit SpecBuilder(const OpSite& site) : site_(site) {}

  // Appends one entry; a None bound is 0 (begin, end: the masks say open) or 1 (stride).
  void Add(const SliceBound& begin, const SliceBound& end, const SliceBound& stride) {
    for (const SliceBound* b : {&begin, &end, &stride}) {
      if (std::holds_alternative<Tensor>(b->value())) Mark();
    }
    Push(begin, 0, "a slice start", entries_.begin, entries_.dynamic_begin);
    Push(end, 0, "a slice stop", entries_.end, entries_.dynamic_end);
    Push(stride, 1, "a slice step", entries_.strides, entries_.dynamic_strides);
  }
  void AddIndex(const Tensor& i) {
    const Tensor at = IndexScalarTensor(i, "an index", site_);
    Mark();
    entries_.begin.push_back(0), entries_.end.push_back(0), entries_.strides.push_back(1);
    entries_.dynamic_begin.push_back(at);
    entries_.dynamic_end.push_back(add(at, constant(int64_t{1}), site_));
    entries_.dynamic_strides.push_back(constant(int64_t{1}));
  }

  // begin, end and strides as tensors of one dtype.
  void Finish(IndexOperands& out) const {
    if (entries_.dynamic) {
      out.begin = stack(entries_.dynamic_begin, 0, site_);
      out.end = stack(entries_.dynamic_end, 0, site_);
      out.strides = stack(entries_.dynamic_strides, 0, site_);
      return;
    }
    out.begin = IndexTensor(entries_.begin);
    out.end = IndexTensor(entries_.end);
    out.strides = IndexTensor(entries_.strides);
    if (out.begin.dtype() != out.end.dtype() || out.begin.dtype() != out.strides.dtype()) {
      out.begin = from_vector(entries_.begin);
      out.end = from_vector(entries_.end);
      out.strides = from_vector(entries_.strides);
    }
  }

 private:
  // Turns the spec dynamic: every constant so far becomes a tensor entry too.
  void Mark() {
    if (entries_.dynamic) return;
    entries_.dynamic = true;
    for (size_t i = 0; i < entries_.begin.size(); ++i) {
      entries_.dynamic_begin.push_back(constant(entries_.begin[i]));
      entries_.dynamic_end.push_back(constant(entries_.end[i]));
      entries_.dynamic_strides.push_back(constant(entries_.strides[i]));
    }
  }

  void Push(const SliceBound& bound, int64_t fallback, absl::string_view what,
            std::vector<int64_t>& values, std::vector<Tensor>& tensors) {
    const auto& v = bound.value();
    if (const Tensor* t = std::get_if<Tensor>(&v)) {
      values.push_back(fallback);
      tensors.push_back(IndexScalarTensor(*t, what, site_));
      return;
    }
    const int64_t value = std::holds_alternative<int64_t>(v) ? std::get<int64_t>(v) : fallback;
    values.push_back(value);
    if (entries_.dynamic) tensors.push_back(constant(value));
  }

  const OpSite& site_;
  SpecEntries entries_;
};

Tensor Index(const Tensor& x, const std::vector<TensorIndex>& indices,
             const std::source_location& location) {
  const OpSite site(SourceLine{location});
  const IndexOperands operands = StridedSliceOperands(indices, site);
  return strided_slice(x, operands.begin, operands.end, operands.strides, operands.masks, site);
}

const bool kRegistered = [] {
  core_internal::SetIndexFn(Index);
  return true;
}();

}  // namespace

IndexOperands StridedSliceOperands(absl::Span<const TensorIndex> indices, const OpSite& site) {
  SpecBuilder spec(site);
  IndexOperands out;
  StridedSliceMasks& masks = out.masks;
  for (size_t i = 0; i < indices.size(); ++i) {
    const int64_t bit = int64_t{1} << i;
    const auto& entry = indices[i].value();
    if (const int64_t* k = std::get_if<int64_t>(&entry)) {
      spec.Add(*k, *k + 1, 1);
      masks.shrink_axis_mask |= bit;
    } else if (const Tensor* t = std::get_if<Tensor>(&entry)) {
      spec.AddIndex(*t);
      masks.shrink_axis_mask |= bit;
    } else if (const duet::Slice* s = std::get_if<duet::Slice>(&entry)) {
      spec.Add(s->start, s->stop, s->step);
      if (s->start.is_none()) masks.begin_mask |= bit;
      if (s->stop.is_none()) masks.end_mask |= bit;
    } else if (std::holds_alternative<NewAxisType>(entry)) {
      spec.Add(0, 0, 1);
      masks.new_axis_mask |= bit;
    } else {
      spec.Add(0, 0, 1);
      masks.ellipsis_mask |= bit;
    }
  }
  spec.Finish(out);
  return out;
}

}  // namespace duet
