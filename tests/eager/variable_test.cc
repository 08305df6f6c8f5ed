#include "eager/variable.h"

#include <catch2/catch.hpp>

#include "core/resource.h"
#include "duet.h"
#include "ops/nn/fused_nn_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectError;
using testing::ExpectTensor;

TEST_CASE("a Variable holds a value, and copies share it") {
  Variable v(constant({1.f, 2.f}), "v");
  CHECK(v.name() == "v");
  CHECK(v.dtype() == kFloat32);
  CHECK(v.shape() == Shape{2});
  CHECK(v.trainable());
  Variable alias = v;
  alias.assign(constant({5.f, 6.f}));
  ExpectTensor(v.value(), kFloat32, {2}, {5, 6});
  v.assign_add(constant({1.f, 1.f}));
  ExpectTensor(alias.value(), kFloat32, {2}, {6, 7});
  v.assign_sub(constant({2.f, 4.f}));
  ExpectTensor(alias, kFloat32, {2}, {4, 3});  // converts to its value
  ExpectTensor(v * 2, kFloat32, {2}, {8, 6});
}

TEST_CASE("a value read from a Variable keeps it after later assignments") {
  Variable v(constant({1.0, 2.0}), "v");
  const Tensor before = v.value();
  v.assign_add(constant({10.0, 10.0}));
  v.assign(constant({0.0, 0.0}));
  ExpectTensor(before, kFloat64, {2}, {1, 2});
  ExpectTensor(v.value(), kFloat64, {2}, {0, 0});
}

TEST_CASE("assign_add updates in place when nothing else holds the value") {
  Variable v(zeros({1000}), "v");
  v.assign_add(ones({1000}));  // the initial value is still held by nobody but v after this
  const void* data = v.value().raw_data();
  v.assign_add(ones({1000}));
  CHECK(v.value().raw_data() == data);
  ExpectTensor(reduce_sum(v.value()), kFloat32, {}, {2000});
}

TEST_CASE("resource_apply_gradient_descent subtracts alpha * delta") {
  Variable v(constant({1.0, 2.0, 3.0}), "v");
  const Tensor before = v.value();
  resource_apply_gradient_descent(v.handle(), constant(0.5), constant({2.0, 4.0, -2.0}));
  ExpectTensor(v.value(), kFloat64, {3}, {0, 0, 4});
  ExpectTensor(before, kFloat64, {3}, {1, 2, 3});  // copy on write: the earlier read is intact
  Variable big(zeros({100000}), "big");
  big.assign_add(ones({100000}));
  const void* data = big.value().raw_data();
  resource_apply_gradient_descent(big.handle(), constant(2.f), ones({100000}));
  CHECK(big.value().raw_data() == data);  // in place when unshared
  ExpectTensor(reduce_sum(big.value()), kFloat32, {}, {-100000});
  ExpectError([&] { resource_apply_gradient_descent(v.handle(), constant(0.5), constant(1.0)); },
              {"ResourceApplyGradientDescent", "variable 'v'"});
  ExpectError([&] { resource_apply_gradient_descent(v.handle(), constant({0.5}), v.value()); },
              {"alpha must be a scalar"});
}

TEST_CASE("assignments check dtype and shape") {
  Variable v(constant({1.f, 2.f}), "weights");
  ExpectError(
      [&] {
        v.assign(constant({1.f, 2.f, 3.f}));
      },
      {"AssignVariableOp", "variable 'weights' is float32 (2,)", "float32 (3,)"});
  ExpectError(
      [&] {
        v.assign_add(constant({1.0, 2.0}));
      },
      {"AssignAddVariableOp", "float64", "cast it first"});
  ExpectError([&] { v.assign_sub(constant(1.f)); }, {"AssignSubVariableOp", "weights"});
  ExpectTensor(v.value(), kFloat32, {2}, {1, 2});  // failed assignments change nothing
}

// Note [Updates match the value]: a variable declared [?, 4] holds a [2, 4] value; updates by
// operands of other shapes that its declaration admits are errors, not writes past the value.
TEST_CASE("updates of a partially declared variable match its value's shape") {
  const Tensor handle = var_handle_op(kFloat32, Shape({-1, 4}), "partial");
  assign_variable_op(handle, zeros({2, 4}));
  ExpectError(
      [&] {
        assign_add_variable_op(handle, ones({3, 4}));
      },
      {"AssignAddVariableOp", "delta is float32 (3, 4) but variable 'partial' is float32 (2, 4)"});
  ExpectError(
      [&] {
        assign_sub_variable_op(handle, ones({1, 4}));
      },  // no broadcasting either
      {"AssignSubVariableOp", "(1, 4)", "(2, 4)"});
  ExpectError(
      [&] {
        resource_apply_gradient_descent(handle, constant(0.5f), ones({3, 4}));
      },
      {"ResourceApplyGradientDescent", "delta is float32 (3, 4)"});
  ExpectError(
      [&] {
        resource_apply_matmul_gradient_descent(handle, constant(0.5f), ones({3, 5}), ones({5, 4}));
      },
      {"_ResourceApplyMatMulGradientDescent", "the product is float32 (3, 4)", "(2, 4)"});
  ExpectTensor(read_variable_op(handle, kFloat32), kFloat32, {2, 4}, std::vector<double>(8, 0));
  // A value of the declared shape's other sizes is still assignable, and then updatable.
  assign_variable_op(handle, zeros({3, 4}));
  assign_add_variable_op(handle, ones({3, 4}));
  resource_apply_matmul_gradient_descent(handle, constant(0.5f), ones({3, 5}), ones({5, 4}));
  ExpectTensor(read_variable_op(handle, kFloat32), kFloat32, {3, 4}, std::vector<double>(12, -1.5));
}

TEST_CASE("index_put assigns a slice, eagerly and traced, and keeps earlier reads") {
  Variable v(zeros({3, 4}), "index_put_v");
  const Tensor before = v.value();
  v.index_put({Slice(0, 2)}, ones({2, 4}));
  v.index_put({2, Slice(None, None, 3)}, constant({5.f, 6.f}));
  ExpectTensor(v.value(), kFloat32, {3, 4}, {1, 1, 1, 1, 1, 1, 1, 1, 5, 0, 0, 6});
  ExpectTensor(before, kFloat32, {3, 4}, std::vector<double>(12, 0.0));  // copy on write
  auto put_row = duet::function([&](const Tensor& i, const Tensor& row) {
    v.index_put({i}, row);
    return v.value();
  });
  put_row(constant(1), constant({7.f, 7.f, 7.f, 7.f}));
  ExpectTensor(put_row(constant(-1), constant({8.f, 8.f, 8.f, 8.f})), kFloat32, {3, 4},
               {1, 1, 1, 1, 7, 7, 7, 7, 8, 8, 8, 8});
  ExpectError(
      [&] {
        v.index_put({Slice(0, 2)}, ones({3, 4}));
      },
      {"ResourceStridedSliceAssign", "has shape (2, 4), but the value has shape (3, 4)",
       "variable_test.cc"});
  ExpectError(
      [&] {
        v.index_put({0}, constant({1, 2, 3, 4}));
      },
      {"ResourceStridedSliceAssign", "holds float32, not int32"});
}

TEST_CASE("a Variable's state is freed with its last handle") {
  std::weak_ptr<void> state;
  {
    Variable v(constant({1.f}), "v");
    state = v.handle().impl()->resource;
    Variable copy = v;
    { Variable moved = std::move(v); }
    CHECK(!state.expired());
  }
  CHECK(state.expired());
}

TEST_CASE("an empty Variable is a clear error") {
  Variable v;
  CHECK(!v.defined());
  ExpectError([&] { v.value(); }, {"empty"});
  ExpectError([] { Variable(Tensor(), "w"); }, {"'w'", "defined initial value"});
}

}  // namespace
TEST_CASE("convolutions see a variable's new value after it is updated in place") {
  // Note [Cached weight reorders]: the convolution's plan keeps a copy of the weights it saw
  // twice and a reference to them, so the variable writes a new tensor instead of updating the
  // one the plan copied (Note [Variables copy on write]).
  const Tensor x = random_normal({1, 5, 5, 16}, 1);
  Variable w(random_normal({3, 3, 16, 32}, 2), "w");
  const Tensor delta = random_normal({3, 3, 16, 32}, 3);
  for (int step = 0; step < 6; ++step) {
    const Tensor value = w.value();
    const Tensor fresh = value + 0.0f;  // the same values in a tensor the cache never saw
    testing::ExpectTensorNear(conv2d(x, value, {1, 1, 1, 1}, "SAME"),
                              conv2d(x, fresh, {1, 1, 1, 1}, "SAME"), 1e-5);
    w.assign_sub(delta);
  }
}

}  // namespace duet
