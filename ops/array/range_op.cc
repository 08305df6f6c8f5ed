// Range: evenly spaced values, as tf.range. Its operands are host scalars; the length follows
// TensorFlow's rule (RangeLength in core/constant.h).
#include "absl/strings/str_cat.h"
#include "core/literal.h"
#include "ops/array/array_attrs.h"
#include "ops/array/array_ops.h"
#include "ops/array/shape_fn_util.h"
#include "ops/op_call.h"

namespace duet {
namespace {

// The value of a known scalar operand, as a double (float dtypes) or int64.
template <typename T>
T ScalarAs(const Tensor& t) {
  T value{};
  VisitDType(t.dtype(), [&](auto zero) {
    using E = decltype(zero);
    if constexpr (std::is_arithmetic_v<E>) value = static_cast<T>(*t.data<E>());
  });
  return value;
}

absl::Status RangeShape(ShapeContext& ctx) {
  for (int i = 0; i < 3; ++i) {
    DUET_RETURN_IF_ERROR(CheckScalarInput(ctx, i, ctx.op().inputs[i].name));
  }
  const DType dtype = ctx.output(0).dtype;
  const Tensor* start = ctx.input_value(0);
  const Tensor* limit = ctx.input_value(1);
  const Tensor* delta = ctx.input_value(2);
  if (start == nullptr || limit == nullptr || delta == nullptr) {
    ctx.set_output(0, dtype, Shape::Unknown(1));
    return absl::OkStatus();
  }
  absl::StatusOr<int64_t> n =
      dtype == kInt32 || dtype == kInt64
          ? RangeLength(ScalarAs<int64_t>(*start), ScalarAs<int64_t>(*limit),
                        ScalarAs<int64_t>(*delta))
      : dtype == kFloat32
          ? RangeLength(ScalarAs<float>(*start), ScalarAs<float>(*limit), ScalarAs<float>(*delta))
          : RangeLength(ScalarAs<double>(*start), ScalarAs<double>(*limit),
                        ScalarAs<double>(*delta));
  if (!n.ok()) return n.status();
  ctx.set_output(0, dtype, Shape{*n});
  return absl::OkStatus();
}

const OpDef* const kRange =
    OpDefBuilder("Range")
        .Input("start", "Tidx")
        .Input("limit", "Tidx")
        .Input("delta", "Tidx")
        .HostInputs({"start", "limit", "delta"})
        .Output("output", "Tidx")
        .TypeAttr(RangeAttrs::kTidx, {kFloat32, kFloat64, kInt32, kInt64}, kInt32)
        .Doc("[start, start + delta, ...) up to but excluding limit, as tf.range.")
        .TfDifference(
            "Element i is start + i * delta computed in float64 and rounded once, as "
            "NumPy's arange; TensorFlow computes it in the dtype, so float32 elements "
            "may differ in the last bit. The length is TensorFlow's, computed in the "
            "dtype.")
        .SetShapeFn(RangeShape)
        .Register();

// The operand as `dtype`: literals converted (where they can be: the op reports the others, by
// their dtype); a tensor of another dtype is the op's error too.
Tensor RangeOperand(const Tensor& t, DType dtype) {
  if (!t.is_literal()) return t;
  absl::StatusOr<Tensor> converted = LiteralAs(t, dtype);
  return converted.ok() ? *std::move(converted) : t;
}

// The default dtype: the first tensor's, else int32 unless a literal is fractional.
DType RangeDType(std::initializer_list<const Tensor*> operands) {
  for (const Tensor* t : operands) {
    if (!t->is_literal()) return t->dtype();
  }
  for (const Tensor* t : operands) {
    if (t->dtype() == kFloat32 || t->dtype() == kFloat64) return kFloat32;
  }
  return kInt32;
}

}  // namespace

Tensor range(const Tensor& start, const Tensor& limit, const Tensor& delta,
             std::optional<DType> dtype, OpSite site) {
  const DType out = dtype.value_or(RangeDType({&start, &limit, &delta}));
  OpCall call(kRange,
              {RangeOperand(start, out), RangeOperand(limit, out), RangeOperand(delta, out)}, site);
  return RunSingleOutputOp(call);
}

}  // namespace duet
