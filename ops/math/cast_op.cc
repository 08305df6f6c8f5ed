// Cast: converts a tensor to another dtype (TensorFlow's attrs SrcT, DstT, Truncate).
#include "ops/math/math_attrs.h"
#include "ops/math/math_ops.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

// The numeric dtypes (a string does not convert to a number: TensorFlow's StringToNumber).
const std::vector<DType> kAllTypes = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                      kInt32,   kInt64,   kBool,    kUInt8};

absl::Status CastShape(ShapeContext& ctx) {
  ctx.set_output(0, ctx.attr(CastAttrs::kDstT), ctx.input_shape(0));
  return absl::OkStatus();
}

// Truncate: Note [Cast with Truncate] in kernels/cpu/math/cast_kernel.cc.
const OpDef* const kCast =
    OpDefBuilder("Cast")
        .Input("x", "SrcT")
        .Output("y", "DstT")
        .TypeAttr(CastAttrs::kSrcT, kAllTypes)
        .TypeAttr(CastAttrs::kDstT, kAllTypes)
        .BoolAttr(CastAttrs::kTruncate, false)
        .Doc(
            "x converted to DstT: floats to ints truncate toward zero, x to bool is x != 0; floats "
            "to floats of fewer mantissa bits round to nearest, or truncate when Truncate is set.")
        .TfDifference(
            "A float that an integer dtype cannot hold converts to a defined value: NaN "
            "to 0, the others saturate to the type's limits (TensorFlow leaves them "
            "undefined; its x86 kernel gives the type's minimum).")
        .SetShapeFn(CastShape)
        .Register();

}  // namespace

Tensor cast(const Tensor& x, DType dtype, OpSite site) {
  // Like tf.cast, a no-op cast returns its input instead of adding an op.
  if (x.defined() && x.dtype() == dtype) return x;
  OpCall call(kCast, {x}, site);
  call.set(CastAttrs::kDstT, dtype);
  return RunSingleOutputOp(call);
}

}  // namespace duet
