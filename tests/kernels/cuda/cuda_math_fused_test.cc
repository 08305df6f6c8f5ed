// The CUDA _FusedElementwise kernel (NVRTC-compiled) against the CPU one: every op a program may
// hold, with full and single-element operands, in float32 and float64; multi-instruction
// programs with shared values; empty, odd and > 1M-element sizes; a program run twice (the
// compiled-kernel cache); and the shape error of an input that is neither a single element nor
// of the output's shape.
//
// Tolerances: exact (0) where every op in the program is an IEEE operation or a selection; 2e-6
// relative in float32 and 1e-13 in float64 once a transcendental (Pow, Exp, Log, Log1p, Tanh,
// Sigmoid, Elu, Softplus) is involved: CUDA's functions and SLEEF's each err a few ulps.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "duet.h"
#include "ops/math/elementwise_program.h"
#include "ops/math/fused_elementwise_op.h"
#include "tests/cuda_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

std::vector<double> Values(int64_t n, int64_t shift) {
  static const std::vector<double> kEdges = {-kInf, -100, -6.5, -6,  -1,  -0.5, -0.0, 0.0,
                                             0.5,   1,    6,    6.5, 100, kInf, kNan};
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = i + shift;
    v[i] = k % 3 == 0 ? kEdges[(k / 3) % kEdges.size()] : std::sin(0.37 * k) * (1 + k % 11);
  }
  return v;
}

bool IsTranscendental(ElementwiseOpcode op) {
  switch (op) {
    case ElementwiseOpcode::kPow:
    case ElementwiseOpcode::kExp:
    case ElementwiseOpcode::kLog:
    case ElementwiseOpcode::kLog1p:
    case ElementwiseOpcode::kTanh:
    case ElementwiseOpcode::kSigmoid:
    case ElementwiseOpcode::kElu:
    case ElementwiseOpcode::kSoftplus:
      return true;
    default:
      return false;
  }
}

double Tolerance(DType dtype, bool transcendental) {
  if (!transcendental) return 0;
  return dtype == kFloat32 ? 2e-6 : 1e-13;
}

void CheckFused(const std::vector<Tensor>& inputs, const std::vector<std::string>& ops,
                const std::vector<int64_t>& operands, double tol) {
  testing::ExpectDeviceMatchesCpu(
      [&](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{fused_elementwise(in, ops, operands)};
      },
      inputs, tol);
}

TEST_CASE("CUDA _FusedElementwise matches the CPU for every op, full and scalar operands") {
  if (testing::SkipWithoutTestDevice()) return;
  for (DType dtype : {kFloat32, kFloat64}) {
    for (int64_t n : {int64_t{1}, int64_t{1001}}) {
      const Tensor x = testing::MakeTensor(dtype, {n}, Values(n, 0));
      const Tensor y = testing::MakeTensor(dtype, {n}, Values(n, 7));
      const Tensor s = testing::MakeTensor(dtype, {}, {2.5});
      for (int i = 0; i < kNumElementwiseOpcodes; ++i) {
        const auto op = static_cast<ElementwiseOpcode>(i);
        const std::string name(ElementwiseOpName(op));
        INFO(name << " " << DTypeName(dtype) << " n " << n);
        const double tol = Tolerance(dtype, IsTranscendental(op));
        if (ElementwiseArity(op) == 1) {
          CheckFused({x}, {name}, {0}, tol);
        } else {
          CheckFused({x, y}, {name}, {0, 1}, tol);
          CheckFused({x, s}, {name}, {0, 1}, tol);
          CheckFused({s, y}, {name}, {0, 1}, tol);
        }
      }
    }
  }
}

TEST_CASE("CUDA _FusedElementwise runs multi-instruction programs on any size") {
  if (testing::SkipWithoutTestDevice()) return;
  // tanh(x * y + 1), squared, times x: inputs [x, y, 1], values reused.
  const std::vector<std::string> ops = {"Mul", "AddV2", "Tanh", "Square", "Mul"};
  const std::vector<int64_t> operands = {0, 1, 3, 2, 4, 5, 6, 0};
  // ReluGrad(x - y, Relu6(x)) / 3 with exact ops only.
  const std::vector<std::string> exact_ops = {"Sub", "Relu6", "ReluGrad", "RealDiv"};
  const std::vector<int64_t> exact_operands = {0, 1, 0, 3, 4, 5, 2};
  for (DType dtype : {kFloat32, kFloat64}) {
    for (const Shape& shape : {Shape{0}, Shape{3, 0}, Shape{17, 33}, Shape{(1 << 20) + 3}}) {
      INFO(DTypeName(dtype) << " " << shape.str());
      const Tensor x = testing::MakeTensor(dtype, shape, Values(shape.num_elements(), 1));
      const Tensor y = testing::MakeTensor(dtype, shape, Values(shape.num_elements(), 5));
      const Tensor one = testing::MakeTensor(dtype, {}, {1});
      const Tensor three = testing::MakeTensor(dtype, {1}, {3});
      for (int run = 0; run < 2; ++run) {  // the second run finds the compiled kernel
        CheckFused({x, y, one}, ops, operands, Tolerance(dtype, true));
        CheckFused({x, y, three}, exact_ops, exact_operands, 0);
      }
    }
  }
}

TEST_CASE("CUDA _FusedElementwise rejects an input of another shape, like the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  const Tensor x = testing::OnTestDevice(testing::MakeTensor(kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6}));
  const Tensor y = testing::OnTestDevice(testing::MakeTensor(kFloat32, {3}, {1, 2, 3}));
  testing::ExpectError([&] { fused_elementwise({x, y}, {"AddV2"}, {0, 1}); }, {"single element"});
}

}  // namespace
}  // namespace duet
