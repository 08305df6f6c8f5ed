// MaxPool and AvgPool over NHWC windows.
#include "absl/strings/str_cat.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/window_shape.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

// Attr positions, in TensorFlow's declaration order.
enum MaxPoolAttr {
  kMaxPoolT,
  kMaxPoolKsize,
  kMaxPoolStrides,
  kMaxPoolPadding,
  kMaxPoolExplicitPaddings,
  kMaxPoolDataFormat
};
enum AvgPoolAttr { kAvgPoolKsize, kAvgPoolStrides, kAvgPoolPadding, kAvgPoolDataFormat, kAvgPoolT };

const std::vector<DType> kPoolTypes = {kFloat32, kFloat64, kBFloat16};

absl::Status PoolShape(ShapeContext& ctx, const std::vector<int64_t>& ksize,
                       const std::vector<int64_t>& strides, WindowSpec& spec) {
  DUET_RETURN_IF_ERROR(SetPoolWindow(ksize, strides, spec));
  const Shape& input = ctx.input_shape(0);
  const int64_t channels = input.unknown_rank() || input.rank() != 4 ? -1 : input[3];
  DUET_ASSIGN_OR_RETURN(Shape out, NhwcWindowOutputShape(input, spec, channels));
  ctx.set_output(0, ctx.output(0).dtype, std::move(out));
  return absl::OkStatus();
}

absl::Status MaxPoolShape(ShapeContext& ctx) {
  WindowSpec spec;
  spec.padding = ctx.attr<std::string>(kMaxPoolPadding);
  DUET_RETURN_IF_ERROR(
      SetExplicitPaddings(ctx.attr<std::vector<int64_t>>(kMaxPoolExplicitPaddings), spec));
  return PoolShape(ctx, ctx.attr<std::vector<int64_t>>(kMaxPoolKsize),
                   ctx.attr<std::vector<int64_t>>(kMaxPoolStrides), spec);
}

absl::Status AvgPoolShape(ShapeContext& ctx) {
  WindowSpec spec;
  spec.padding = ctx.attr<std::string>(kAvgPoolPadding);
  return PoolShape(ctx, ctx.attr<std::vector<int64_t>>(kAvgPoolKsize),
                   ctx.attr<std::vector<int64_t>>(kAvgPoolStrides), spec);
}

const OpDef* const kMaxPool = OpDefBuilder("MaxPool")
                                  .Input("input", "T")
                                  .Output("output", "T")
                                  .TypeAttr("T", kPoolTypes, kFloat32)
                                  .IntListAttr("ksize")
                                  .IntListAttr("strides")
                                  .StringAttr("padding", {}, {"SAME", "VALID", "EXPLICIT"})
                                  .IntListAttr("explicit_paddings", std::vector<int64_t>{})
                                  .StringAttr("data_format", "NHWC", {"NHWC"})
                                  .Doc("Max over NHWC windows; padded cells never win.")
                                  .SetShapeFn(MaxPoolShape)
                                  .Register();

const OpDef* const kAvgPool =
    OpDefBuilder("AvgPool")
        .Input("value", "T")
        .Output("output", "T")
        .IntListAttr("ksize")
        .IntListAttr("strides")
        .StringAttr("padding", {}, {"SAME", "VALID"})
        .StringAttr("data_format", "NHWC", {"NHWC"})
        .TypeAttr("T", kPoolTypes)
        .Doc("Mean over NHWC windows; padded cells are left out of the average.")
        .SetShapeFn(AvgPoolShape)
        .Register();

}  // namespace

Tensor max_pool(const Tensor& x, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                std::string padding, OpSite site) {
  OpCall call(kMaxPool, {x}, site);
  call.attrs[kMaxPoolKsize] = ExpandNhwcAttr(std::move(ksize));
  call.attrs[kMaxPoolStrides] = ExpandNhwcAttr(std::move(strides));
  call.attrs[kMaxPoolPadding] = std::move(padding);
  return RunOp1(call);
}

Tensor avg_pool(const Tensor& x, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                std::string padding, OpSite site) {
  OpCall call(kAvgPool, {x}, site);
  call.attrs[kAvgPoolKsize] = ExpandNhwcAttr(std::move(ksize));
  call.attrs[kAvgPoolStrides] = ExpandNhwcAttr(std::move(strides));
  call.attrs[kAvgPoolPadding] = std::move(padding);
  return RunOp1(call);
}

}  // namespace duet
