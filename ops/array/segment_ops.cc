// UnsortedSegmentSum: sums slices of data into segments picked by integer ids.
#include "ops/array/segment_ops.h"

#include "absl/strings/str_cat.h"
#include "ops/array/index_tensor.h"
#include "ops/array/shape_fn_util.h"
#include "ops/op_call.h"

namespace duet {
namespace {

absl::Status UnsortedSegmentSumShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckScalarInput(ctx, 2, "num_segments"));
  const Shape& data = ctx.input_shape(0);
  const Shape& ids = ctx.input_shape(1);
  const DType dtype = ctx.output(0).dtype;
  if (data.unknown_rank() || ids.unknown_rank()) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
    return absl::OkStatus();
  }
  bool prefix = ids.rank() <= data.rank();
  for (int d = 0; prefix && d < ids.rank(); ++d) {
    prefix = ids.dim(d) < 0 || data.dim(d) < 0 || ids.dim(d) == data.dim(d);
  }
  if (!prefix) {
    return absl::InvalidArgumentError(absl::StrCat("segment_ids shape ", ids.str(),
                                                   " is not a prefix of data shape ", data.str()));
  }
  Shape out{Shape::kUnknownDim};
  if (const auto num = ctx.input_ints(2)) {
    if ((*num)[0] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("num_segments must be non-negative, got ", (*num)[0]));
    }
    out.set_dim(0, (*num)[0]);
  }
  for (int d = ids.rank(); d < data.rank(); ++d) out.push_back(data.dim(d));
  if (out.is_fully_defined() && ProductOverflows(out.dims())) {
    return absl::InvalidArgumentError(
        absl::StrCat("the output shape ", out.str(), " has too many elements"));
  }
  ctx.set_output(0, dtype, std::move(out));
  return absl::OkStatus();
}

const OpDef* const kUnsortedSegmentSum =
    OpDefBuilder("UnsortedSegmentSum")
        .Input("data", "T")
        .Input("segment_ids", "Tindices")
        .Input("num_segments", "Tnumsegments")
        .HostInputs({"num_segments"})
        .Output("output", "T")
        .TypeAttr("T", kRealNumberTypes)
        .TypeAttr("Tindices", kIndexTypes)
        .TypeAttr("Tnumsegments", kIndexTypes, kInt32)
        .Doc("Sums slices of data into num_segments segments picked by segment_ids.")
        .SetShapeFn(UnsortedSegmentSumShape)
        .Register();

}  // namespace

Tensor unsorted_segment_sum(const Tensor& data, const Tensor& segment_ids, int64_t num_segments,
                            OpSite site) {
  return unsorted_segment_sum(data, segment_ids, IndexScalar(num_segments), site);
}

Tensor unsorted_segment_sum(const Tensor& data, const Tensor& segment_ids,
                            const Tensor& num_segments, OpSite site) {
  OpCall call(kUnsortedSegmentSum, {data, segment_ids, num_segments}, site);
  return RunSingleOutputOp(call);
}

}  // namespace duet
