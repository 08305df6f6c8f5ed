// CUDA kernels of the unary math ops, with the CPU kernels' semantics
// (kernels/cpu/math/unary_kernels.cc). The activations (Relu, Relu6, Elu, Sigmoid, Tanh,
// Softplus) are kernels/cuda/nn's.
#include "core/error.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/math/elementwise_launchers.h"
#include "kernels/cuda/math/elementwise_layout.h"
#include "kernels/kernel_registry.h"

namespace duet::cuda {
namespace {

template <UnaryOp kOp>
absl::Status UnaryKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(DeviceContext * device, CurrentContext(ctx.device()));
  const Tensor& x = ctx.input(0);
  return CudaStatus(LaunchUnary(kOp, ElementTypeOf(x.dtype()), x.raw_data(),
                                ctx.output(0).raw_data(), x.num_elements(), device->stream()),
                    "LaunchUnary");
}

template <UnaryOp kOp>
void RegisterArithmetic(absl::string_view name) {
  RegisterKernel(name, DeviceType::kCuda, {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64},
                 KernelDef{&UnaryKernel<kOp>});
}

template <UnaryOp kOp>
void RegisterFloat(absl::string_view name) {
  RegisterKernel(name, DeviceType::kCuda, {kFloat32, kFloat64, kFloat16, kBFloat16},
                 KernelDef{&UnaryKernel<kOp>});
}

const bool registered = [] {
  RegisterArithmetic<UnaryOp::kNeg>("Neg");
  RegisterArithmetic<UnaryOp::kAbs>("Abs");
  RegisterArithmetic<UnaryOp::kSquare>("Square");
  RegisterArithmetic<UnaryOp::kSign>("Sign");
  RegisterFloat<UnaryOp::kFloor>("Floor");
  RegisterFloat<UnaryOp::kCeil>("Ceil");
  RegisterFloat<UnaryOp::kSqrt>("Sqrt");
  RegisterFloat<UnaryOp::kRsqrt>("Rsqrt");
  RegisterFloat<UnaryOp::kExp>("Exp");
  RegisterFloat<UnaryOp::kLog>("Log");
  RegisterFloat<UnaryOp::kLog1p>("Log1p");
  RegisterArithmetic<UnaryOp::kRound>("Round");
  RegisterFloat<UnaryOp::kRint>("Rint");
  RegisterFloat<UnaryOp::kSelu>("Selu");
  RegisterFloat<UnaryOp::kSoftsign>("Softsign");
  RegisterFloat<UnaryOp::kErf>("Erf");
  RegisterFloat<UnaryOp::kErfc>("Erfc");
  RegisterFloat<UnaryOp::kErfinv>("Erfinv");
  RegisterFloat<UnaryOp::kSin>("Sin");
  RegisterFloat<UnaryOp::kCos>("Cos");
  // LogicalNot has a fixed bool input and no type attr, so it dispatches as float32.
  RegisterKernel("LogicalNot", DeviceType::kCuda, {kFloat32},
                 KernelDef{&UnaryKernel<UnaryOp::kLogicalNot>});
  return true;
}();

}  // namespace
}  // namespace duet::cuda
