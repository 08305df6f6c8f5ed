#include "kernels/cuda/math/fused_elementwise_codegen.h"

#include "absl/strings/str_cat.h"

// The embedded header (the genrule elementwise_functors_source in BUILD.bazel).
extern const char kDuetElementwiseFunctorsSource[];

namespace duet::cuda {
namespace {

// The functor of each opcode in elementwise_functors.cu.h.
absl::string_view FunctorOf(ElementwiseOpcode op) {
  switch (op) {
    case ElementwiseOpcode::kAddV2:
      return "AddFn";
    case ElementwiseOpcode::kSub:
      return "SubFn";
    case ElementwiseOpcode::kMul:
      return "MulFn";
    case ElementwiseOpcode::kRealDiv:
    case ElementwiseOpcode::kDiv:
      return "DivFn";
    case ElementwiseOpcode::kMaximum:
      return "MaximumFn";
    case ElementwiseOpcode::kMinimum:
      return "MinimumFn";
    case ElementwiseOpcode::kPow:
      return "PowFn";
    case ElementwiseOpcode::kFloorMod:
      return "FloorModFn";
    case ElementwiseOpcode::kReluGrad:
      return "ReluGradFn";
    case ElementwiseOpcode::kNeg:
      return "NegFn";
    case ElementwiseOpcode::kAbs:
      return "AbsFn";
    case ElementwiseOpcode::kSquare:
      return "SquareFn";
    case ElementwiseOpcode::kSign:
      return "SignFn";
    case ElementwiseOpcode::kRelu:
      return "ReluFn";
    case ElementwiseOpcode::kRelu6:
      return "Relu6Fn";
    case ElementwiseOpcode::kFloor:
      return "FloorFn";
    case ElementwiseOpcode::kCeil:
      return "CeilFn";
    case ElementwiseOpcode::kSqrt:
      return "SqrtFn";
    case ElementwiseOpcode::kRsqrt:
      return "RsqrtFn";
    case ElementwiseOpcode::kExp:
      return "ExpFn";
    case ElementwiseOpcode::kLog:
      return "LogFn";
    case ElementwiseOpcode::kLog1p:
      return "Log1pFn";
    case ElementwiseOpcode::kTanh:
      return "TanhFn";
    case ElementwiseOpcode::kSigmoid:
      return "SigmoidFn";
    case ElementwiseOpcode::kElu:
      return "EluFn";
    case ElementwiseOpcode::kSoftplus:
      return "SoftplusFn";
  }
  return "";
}

}  // namespace

absl::string_view ElementwiseFunctorsSource() { return kDuetElementwiseFunctorsSource; }

absl::StatusOr<std::string> GenerateFusedElementwiseSource(const ElementwiseProgram& program,
                                                           DType dtype,
                                                           absl::Span<const bool> single) {
  if (dtype != kFloat32 && dtype != kFloat64) {
    return absl::InvalidArgumentError(
        absl::StrCat("fused elementwise kernels are float32 or float64, not ", DTypeName(dtype)));
  }
  if (static_cast<int>(single.size()) != program.num_inputs) {
    return absl::InvalidArgumentError(absl::StrCat("the program has ", program.num_inputs,
                                                   " inputs, but single has ", single.size()));
  }
  const absl::string_view t = dtype == kFloat32 ? "float" : "double";
  std::string src = absl::StrCat("#include \"", kElementwiseFunctorsHeaderName, "\"\n\n",
                                 "extern \"C\" __global__ void ", kFusedElementwiseKernelName, "(");
  for (int i = 0; i < program.num_inputs; ++i) {
    absl::StrAppend(&src, "const ", t, "* __restrict__ in", i, ", ");
  }
  absl::StrAppend(&src, t, "* __restrict__ out, long long n) {\n");
  // Broadcast inputs are read once, before the loop.
  for (int i = 0; i < program.num_inputs; ++i) {
    if (single[i]) absl::StrAppend(&src, "  const ", t, " v", i, " = in", i, "[0];\n");
  }
  absl::StrAppend(&src,
                  "  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + "
                  "threadIdx.x; i < n;\n"
                  "       i += static_cast<long long>(blockDim.x) * gridDim.x) {\n");
  for (int i = 0; i < program.num_inputs; ++i) {
    if (!single[i]) absl::StrAppend(&src, "    const ", t, " v", i, " = in", i, "[i];\n");
  }
  int value = program.num_inputs;
  for (const ElementwiseInstruction& instruction : program.instructions) {
    absl::StrAppend(&src, "    const ", t, " v", value, " = duet_gpu::", FunctorOf(instruction.op),
                    "()(v", instruction.operands[0]);
    if (ElementwiseArity(instruction.op) == 2) {
      absl::StrAppend(&src, ", v", instruction.operands[1]);
    }
    absl::StrAppend(&src, ");  // ", ElementwiseOpName(instruction.op), "\n");
    ++value;
  }
  absl::StrAppend(&src, "    out[i] = v", value - 1, ";\n  }\n}\n");
  return src;
}

}  // namespace duet::cuda
