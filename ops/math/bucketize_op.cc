// Bucketize: the index of the bucket each input value falls in, given sorted boundaries.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/math/math_attrs.h"
#include "ops/math/math_ops.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

absl::Status BucketizeShape(ShapeContext& ctx) {
  const std::vector<float>& boundaries = ctx.attr(BucketizeAttrs::kBoundaries);
  if (!std::is_sorted(boundaries.begin(), boundaries.end())) {
    return absl::InvalidArgumentError(
        absl::StrCat("boundaries must be sorted, got [", absl::StrJoin(boundaries, ", "), "]"));
  }
  ctx.set_output(0, kInt32, ctx.input_shape(0));
  return absl::OkStatus();
}

const OpDef* const kBucketize =
    OpDefBuilder("Bucketize")
        .Input("input", "T")
        .Output("output", kInt32)
        .TypeAttr(BucketizeAttrs::kT, {kInt32, kInt64, kFloat32, kFloat64})
        .FloatListAttr(BucketizeAttrs::kBoundaries)
        .Doc("The number of boundaries <= each input value (its bucket index), as int32.")
        .SetShapeFn(BucketizeShape)
        .Register();

}  // namespace

Tensor bucketize(const Tensor& input, std::vector<float> boundaries, OpSite site) {
  OpCall call(kBucketize, {input}, site);
  call.set(BucketizeAttrs::kBoundaries, std::move(boundaries));
  return RunSingleOutputOp(call);
}

}  // namespace duet
