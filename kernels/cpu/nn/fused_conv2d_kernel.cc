// _FusedConv2D on the CPU: the convolution of conv2d_runner.h with the bias and activation fused
// into oneDNN's primitive (float32, bfloat16) or applied after the float64 GEMM.
#include "kernels/cpu/nn/conv2d_runner.h"
#include "kernels/cpu/nn/fused_epilogue.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// Attr positions declared in ops/nn/fused_conv2d_op.cc (tests/ops/nn/attr_positions_test.cc
// checks).
constexpr ConvAttrPositions kFusedConv2DAttrPositions{
    .strides = 2, .padding = 3, .explicit_paddings = 4, .dilations = 6};
enum FusedConv2DAttr { kFusedOps = 8, kLeakyReluAlpha = 10 };

absl::Status FusedConv2DKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const FusedEpilogue epilogue,
                        ReadFusedEpilogue(ctx.attr<std::vector<std::string>>(kFusedOps),
                                          ctx.attr<float>(kLeakyReluAlpha)));
  return RunConv2D(ctx, kFusedConv2DAttrPositions, &epilogue);
}

const KernelRegistrar kFusedConv2D("_FusedConv2D", DeviceType::kCpu,
                                   {kFloat32, kFloat64, kBFloat16}, {FusedConv2DKernel});

}  // namespace
}  // namespace duet
