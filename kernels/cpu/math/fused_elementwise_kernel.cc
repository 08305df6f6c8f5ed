// _FusedElementwise on the CPU: decodes the program, binds it to the inputs and runs it tile by
// tile (Note [Tiled program evaluation]), split across the intra-op pool like the unfused ops.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "kernels/cpu/math/elementwise.h"
#include "kernels/cpu/math/elementwise_program_runner.h"
#include "kernels/kernel_registry.h"
#include "ops/math/elementwise_program.h"

namespace duet {
namespace {

// Attr positions declared in ops/math/fused_elementwise_op.cc (tests/ops/nn/attr_positions_test.cc
// checks).
enum FusedElementwiseAttr {
  kOps = 2,
  kOperands = 3,
};

// The shape function checked the inputs as far as graph shapes were known; a graph with unknown
// dims may still bring a mismatch here.
absl::Status CheckInputShapes(const KernelContext& ctx, const Shape& out) {
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Shape& in = ctx.input(i).shape();
    if (ElementCount(in) != 1 && in != out) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", i, " has shape ", in.str(), ", but every input must hold a single element or ",
          "have the output's shape ", out.str()));
    }
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status FusedElementwiseKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(
      const ElementwiseProgram program,
      DecodeElementwiseProgram(ctx.attr<std::vector<std::string>>(kOps),
                               ctx.attr<std::vector<int64_t>>(kOperands), ctx.num_inputs()));
  Tensor& out = ctx.output(0);
  DUET_RETURN_IF_ERROR(CheckInputShapes(ctx, out.shape()));
  absl::InlinedVector<const T*, 8> inputs;
  absl::InlinedVector<bool, 8> single;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    inputs.push_back(ctx.input(i).data<T>());
    single.push_back(ElementCount(ctx.input(i).shape()) == 1);
  }
  const int64_t n = ElementCount(out.shape());
  const ElementwiseProgramRunner<T> runner(program, inputs, single, n);
  T* z = out.mutable_data<T>();
  ParallelElements(ctx, n, runner.cost(),
                   [&](int64_t begin, int64_t end) { runner.Run(z, begin, end); });
  return absl::OkStatus();
}

const KernelRegistrar kFusedElementwiseFloat("_FusedElementwise", DeviceType::kCpu, {kFloat32},
                                             {&FusedElementwiseKernel<float>});
const KernelRegistrar kFusedElementwiseDouble("_FusedElementwise", DeviceType::kCpu, {kFloat64},
                                              {&FusedElementwiseKernel<double>});

}  // namespace
}  // namespace duet
