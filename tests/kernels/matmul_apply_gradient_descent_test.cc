// _ResourceApplyMatMulGradientDescent's CPU kernel: var -= alpha * op(a) x op(b) for every
// transpose combination against the unfused read - alpha * matmul, copy on write, and the errors.
#include <catch2/catch.hpp>

#include "duet.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/fused_nn_ops.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet {
namespace {

// Stored operands of op(a) x op(b) with op(a): (m, k), op(b): (k, n).
Shape Stored(int64_t rows, int64_t cols, bool transposed) {
  return transposed ? Shape{cols, rows} : Shape{rows, cols};
}

void CheckAgainstUnfused(DType dtype, double tol) {
  constexpr int64_t m = 13, k = 37, n = 9;
  int seed = 1;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      INFO(DTypeName(dtype) << " transpose_a=" << ta << " transpose_b=" << tb);
      const Tensor a = random_normal(Stored(m, k, ta), seed++, dtype);
      const Tensor b = random_normal(Stored(k, n, tb), seed++, dtype);
      const Tensor alpha = cast(constant(0.125f), dtype);
      Variable v(random_normal({m, n}, seed++, dtype), "w");
      const Tensor before = v.value();
      resource_apply_matmul_gradient_descent(v.handle(), alpha, a, b, ta, tb);
      testing::ExpectTensorNear(v.value(), before - alpha * matmul(a, b, ta, tb), tol);
    }
  }
}

TEST_CASE("float32 updates equal read - alpha * matmul for every transpose combination") {
  CheckAgainstUnfused(kFloat32, 1e-5);
}

TEST_CASE("float64 updates equal read - alpha * matmul for every transpose combination") {
  CheckAgainstUnfused(kFloat64, 1e-12);
}

TEST_CASE("a changing learning rate reuses the plan and applies the new rate") {
  const Tensor a = random_normal({6, 5}, 1), b = random_normal({5, 4}, 2);
  Variable v(zeros({6, 4}), "w");
  for (float rate : {0.5f, -2.f, 0.f}) {
    INFO("alpha " << rate);
    const Tensor before = v.value();
    resource_apply_matmul_gradient_descent(v.handle(), constant(rate), a, b);
    testing::ExpectTensorNear(v.value(), before - constant(rate) * matmul(a, b), 1e-5);
  }
}

TEST_CASE("a value read before the update keeps its value (copy on write)") {
  for (DType dtype : {kFloat32, kFloat64}) {
    INFO(DTypeName(dtype));
    const Tensor start = random_normal({4, 3}, 3, dtype);
    Variable v(start, "w");
    const Tensor held = v.value();
    const void* held_data = held.raw_data();
    resource_apply_matmul_gradient_descent(v.handle(), cast(constant(1.f), dtype),
                                           random_normal({4, 2}, 4, dtype),
                                           random_normal({2, 3}, 5, dtype));
    testing::ExpectTensorNear(held, start, 0);
    CHECK(v.value().raw_data() != held_data);
  }
}

// Runs the CPU kernel directly, as a plan does, telling it which inputs it may overwrite.
void RunWithScratchInputs(const Variable& v, const Tensor& alpha, const Tensor& a, const Tensor& b,
                          uint32_t scratch_inputs) {
  const OpDef* op = OpRegistry::Global().Find("_ResourceApplyMatMulGradientDescent");
  OpCall call(op, {v.handle(), alpha, a, b}, OpSite());
  OutputList outputs;
  KernelContext ctx(call, outputs, Device::cpu(), scratch_inputs);
  const KernelDef* kernel = FindKernel(*op, DeviceType::kCpu, kFloat32);
  REQUIRE(kernel != nullptr);
  REQUIRE(kernel->fn(ctx).ok());
}

TEST_CASE("an operand the caller gives up is scaled in place; the others are left alone") {
  const Tensor a0 = random_normal({4, 5}, 1), b0 = random_normal({5, 3}, 2);  // b is smaller
  const Tensor alpha = constant(0.5f);
  struct Case {
    uint32_t scratch_inputs;
    bool a_scaled, b_scaled;
  };
  // Inputs: 0 the variable, 1 alpha, 2 a, 3 b.
  for (const Case& c : {Case{0, false, false}, Case{1u << 3, false, true},
                        Case{1u << 2, true, false}, Case{(1u << 2) | (1u << 3), false, true}}) {
    INFO("scratch inputs mask " << c.scratch_inputs);
    const Tensor a = a0 + 0.f, b = b0 + 0.f;  // buffers of their own
    Variable v(zeros({4, 3}), "w");
    RunWithScratchInputs(v, alpha, a, b, c.scratch_inputs);
    testing::ExpectTensorNear(v.value(), -alpha * matmul(a0, b0), 1e-5);
    testing::ExpectTensorNear(a, c.a_scaled ? -alpha * a0 : a0, 1e-6);
    testing::ExpectTensorNear(b, c.b_scaled ? -alpha * b0 : b0, 1e-6);
  }
}

TEST_CASE("an empty inner dimension leaves the variable as it was") {
  Variable v(ones({2, 3}), "w");
  resource_apply_matmul_gradient_descent(v.handle(), constant(1.f), zeros({2, 0}), zeros({0, 3}));
  testing::ExpectTensorNear(v.value(), ones({2, 3}), 0);
}

TEST_CASE("shape, dtype and operand errors name the op and the shapes") {
  Variable v(zeros({4, 3}), "w");
  testing::ExpectError(
      [&] {
        resource_apply_matmul_gradient_descent(v.handle(), constant(1.f), zeros({4, 2}),
                                               zeros({2, 5}));
      },
      {"_ResourceApplyMatMulGradientDescent", "variable 'w'", "(4, 3)", "(4, 5)"});
  testing::ExpectError(
      [&] {
        resource_apply_matmul_gradient_descent(v.handle(), constant(1.0), zeros({4, 2}, kFloat64),
                                               zeros({2, 3}, kFloat64));
      },
      {"_ResourceApplyMatMulGradientDescent", "float32", "float64"});
  testing::ExpectError(
      [&] {
        resource_apply_matmul_gradient_descent(v.handle(), constant(1.f), zeros({4, 2}),
                                               zeros({5, 3}));
      },
      {"inner dimensions do not match", "(4, 2)", "(5, 3)"});
  testing::ExpectError(
      [&] {
        resource_apply_matmul_gradient_descent(v.handle(), constant(1.f), zeros({4, 2, 1}),
                                               zeros({2, 3}));
      },
      {"2-D", "(4, 2, 1)"});
  testing::ExpectError(
      [&] {
        resource_apply_matmul_gradient_descent(v.handle(), constant({1.f, 2.f}), zeros({4, 2}),
                                               zeros({2, 3}));
      },
      {"alpha must be a scalar", "(2,)"});
}

}  // namespace
}  // namespace duet
