// MaxPool and AvgPool over NHWC windows, MaxPool3D and AvgPool3D over NDHWC windows.
#include "absl/strings/str_cat.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/window_shape.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

const std::vector<DType> kPoolTypes = {kFloat32, kFloat64, kBFloat16};
// TensorFlow's MaxPool3D has no float64.
const std::vector<DType> kMaxPool3DTypes = {kFloat32, kBFloat16};

// The output shape of a pooling op over the window of its PoolAttrs (`spec` holds any explicit
// paddings).
absl::Status PoolShape(ShapeContext& ctx, WindowSpec& spec) {
  DUET_RETURN_IF_ERROR(SetPoolWindow(ctx, spec));
  const Shape& input = ctx.input_shape(0);
  const int64_t channels =
      input.unknown_rank() || input.rank() != spec.rank + 2 ? -1 : input[spec.rank + 1];
  DUET_ASSIGN_OR_RETURN(Shape out, NhwcWindowOutputShape(input, spec, channels));
  ctx.set_output(0, ctx.output(0).dtype, std::move(out));
  return absl::OkStatus();
}

absl::Status MaxPoolShape(ShapeContext& ctx) {
  WindowSpec spec;
  spec.padding = ctx.attr(PoolAttrs::kPadding);  // SetExplicitPaddings checks it
  DUET_RETURN_IF_ERROR(SetExplicitPaddings(ctx.attr(MaxPoolAttrs::kExplicitPaddings), spec));
  return PoolShape(ctx, spec);
}

// AvgPool (rank 2), MaxPool3D and AvgPool3D (rank 3): no explicit paddings.
template <int kRank>
absl::Status UnpaddedPoolShape(ShapeContext& ctx) {
  WindowSpec spec;
  spec.rank = kRank;
  return PoolShape(ctx, spec);
}

// PoolAttrs first, so every pooling op shares them (TensorFlow's MaxPool declares T first).
const OpDef* const kMaxPool =
    OpDefBuilder("MaxPool")
        .Input("input", "T")
        .Output("output", "T")
        .IntListAttr(PoolAttrs::kKsize)
        .IntListAttr(PoolAttrs::kStrides)
        .StringAttr(PoolAttrs::kPadding, {}, {"SAME", "VALID", "EXPLICIT"})
        .IntListAttr(MaxPoolAttrs::kExplicitPaddings, std::vector<int64_t>{})
        .StringAttr(MaxPoolAttrs::kDataFormat, "NHWC", {"NHWC", "NCHW"})
        .TypeAttr(MaxPoolAttrs::kT, kPoolTypes, kFloat32)
        .ChannelsFirst({"input"}, {}, {"output"})
        .Doc("Max over NHWC windows; padded cells never win.")
        .SetShapeFn(MaxPoolShape)
        .Register();

const OpDef* const kAvgPool =
    DeclareUnpaddedPoolAttrs(OpDefBuilder("AvgPool").Input("value", "T").Output("output", "T"), 2,
                             kPoolTypes)
        .ChannelsFirst({"value"}, {}, {"output"})
        .Doc("Mean over NHWC windows; padded cells are left out of the average.")
        .SetShapeFn(UnpaddedPoolShape<2>)
        .Register();

const OpDef* const kMaxPool3D =
    DeclareUnpaddedPoolAttrs(OpDefBuilder("MaxPool3D").Input("input", "T").Output("output", "T"), 3,
                             kMaxPool3DTypes)
        .Doc("Max over NDHWC windows; padded cells never win.")
        .SetShapeFn(UnpaddedPoolShape<3>)
        .Register();

const OpDef* const kAvgPool3D =
    DeclareUnpaddedPoolAttrs(OpDefBuilder("AvgPool3D").Input("input", "T").Output("output", "T"), 3,
                             kPoolTypes)
        .Doc("Mean over NDHWC windows; padded cells are left out of the average.")
        .SetShapeFn(UnpaddedPoolShape<3>)
        .Register();

}  // namespace

Tensor max_pool(const Tensor& x, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                std::string padding, OpSite site) {
  return RunPoolOp(kMaxPool, {x}, std::move(ksize), std::move(strides), std::move(padding), 2,
                   site);
}

Tensor avg_pool(const Tensor& x, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                std::string padding, OpSite site) {
  return RunPoolOp(kAvgPool, {x}, std::move(ksize), std::move(strides), std::move(padding), 2,
                   site);
}

namespace {

Tensor Pool2D(const OpDef* op, const Tensor& x, std::vector<int64_t> ksize,
              std::vector<int64_t> strides, std::string padding, DataFormat format, OpSite site) {
  OpCall call(op, {x}, site);
  SetPoolWindowAttrs(call, ChannelsLastWindow(std::move(ksize), format),
                     ChannelsLastWindow(std::move(strides), format), std::move(padding));
  UseDataFormat(call, format);
  return RunSingleOutputOp(call);
}

}  // namespace

Tensor max_pool(const Tensor& x, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                std::string padding, DataFormat format, OpSite site) {
  return Pool2D(kMaxPool, x, std::move(ksize), std::move(strides), std::move(padding), format,
                site);
}

Tensor avg_pool(const Tensor& x, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                std::string padding, DataFormat format, OpSite site) {
  return Pool2D(kAvgPool, x, std::move(ksize), std::move(strides), std::move(padding), format,
                site);
}

Tensor max_pool3d(const Tensor& x, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                  std::string padding, OpSite site) {
  return RunPoolOp(kMaxPool3D, {x}, std::move(ksize), std::move(strides), std::move(padding), 3,
                   site);
}

Tensor avg_pool3d(const Tensor& x, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                  std::string padding, OpSite site) {
  return RunPoolOp(kAvgPool3D, {x}, std::move(ksize), std::move(strides), std::move(padding), 3,
                   site);
}

}  // namespace duet
