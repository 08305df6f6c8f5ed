// Algebraic simplification: each rule, structurally and numerically (float64, exactly), and the
// cases where a rule must not fire.
#include <catch2/catch.hpp>

#include "ops/control_flow/control_flow_ops.h"
#include "ops/op_registry.h"
#include "tests/graph/passes/pass_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

const PassOptions kSimplifyOnly{.passes = {"simplify", "prune"}};

// Builds out = f(x) for x: float64 (2, 3), simplifies, checks the values and returns the ops left.
template <typename F>
std::map<std::string, int> Simplified(F f, const char* rule, int64_t fired = 1) {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat64, {2, 3}, "x");
    identity(f(x), OpSite("out"));
  }
  auto result = testing::OptimizeAndCompare(
      g, kSimplifyOnly, {{"x", constant({{1.5, -2.0, 0.0}, {-0.0, 3.25, -7.0}})}}, {"out"});
  CHECK(result.report.counter(std::string("simplify.") + rule) == fired);
  return testing::OpCounts(result.graph);
}

// A Cast node even to x's own dtype (cast() returns x then, as tf.cast does; imported graphs may
// still hold such casts).
Tensor CastNode(const Tensor& x, DType dtype) {
  const OpDef* op = OpRegistry::Global().Find("Cast");
  OpCall call(op, {x}, OpSite());
  call.attrs[op->attr_index("DstT")] = dtype;
  return RunSingleOutputOp(call);
}

using Ops = std::map<std::string, int>;
const Ops kJustX = {{"Identity", 1}, {"Placeholder", 1}};

TEST_CASE("neutral elements vanish") {
  CHECK(Simplified([](Tensor x) { return x * 1.0; }, "mul_one") == kJustX);
  CHECK(Simplified([](Tensor x) { return constant(1.0) * x; }, "mul_one") == kJustX);
  CHECK(Simplified([](Tensor x) { return x + 0.0; }, "add_zero") == kJustX);
  CHECK(Simplified([](Tensor x) { return constant(0.0) + x; }, "add_zero") == kJustX);
  CHECK(Simplified([](Tensor x) { return x - 0.0; }, "sub_zero") == kJustX);
  CHECK(Simplified([](Tensor x) { return x / 1.0; }, "div_one") == kJustX);
  CHECK(Simplified([](Tensor x) { return x * ones({2, 3}, kFloat64); }, "mul_one") == kJustX);
}

TEST_CASE("a neutral element that broadcasts x, or sits on the wrong side, stays") {
  CHECK(Simplified(
            [](Tensor x) {
              return x * ones({4, 2, 3}, kFloat64);
            },
            "mul_one", 0)
            .at("Mul") == 1);
  CHECK(Simplified([](Tensor x) { return constant(0.0) - x; }, "sub_zero", 0).at("Sub") == 1);
  CHECK(Simplified([](Tensor x) { return constant(1.0) / x; }, "div_one", 0).at("RealDiv") == 1);
  CHECK(Simplified([](Tensor x) { return x * 2.0; }, "mul_one", 0).at("Mul") == 1);
}

TEST_CASE("identities, casts to the same type, double negation and custom gradients vanish") {
  CHECK(Simplified([](Tensor x) { return identity(identity(x)); }, "identity", 2) == kJustX);
  CHECK(Simplified([](Tensor x) { return CastNode(x, kFloat64); }, "cast_same_type") == kJustX);
  CHECK(Simplified([](Tensor x) { return -(-x); }, "double_neg") == kJustX);
  CHECK(Simplified(
            [](Tensor x) {
              return custom_gradient_op(x * 2.0, {x},
                                        [](const Tensor& dy) { return std::vector<Tensor>{dy}; });
            },
            "custom_gradient")
            .count("DuetCustomGradient") == 0);
  CHECK(
      Simplified([](Tensor x) { return CastNode(x, kFloat32); }, "cast_same_type", 0).at("Cast") ==
      1);
}

TEST_CASE("reshapes and broadcasts to x's own shape vanish; reshape chains shorten") {
  CHECK(Simplified([](Tensor x) { return reshape(x, {2, 3}); }, "reshape_same_shape") == kJustX);
  CHECK(Simplified(
            [](Tensor x) {
              return broadcast_to(x, {2, 3});
            },
            "broadcast_same_shape") == kJustX);
  const Ops chain = Simplified(
      [](Tensor x) {
        return reshape(reshape(x, {6}), {3, 2});
      },
      "reshape_reshape");
  CHECK(chain.at("Reshape") == 1);
  CHECK(Simplified(
            [](Tensor x) {
              return reshape(reshape(x, {6}), {2, 3});
            },
            "reshape_same_shape") == kJustX);
}

TEST_CASE("transposes compose, and cancel when the composition is the identity") {
  CHECK(Simplified(
            [](Tensor x) {
              return transpose(transpose(x, {1, 0}), {1, 0});
            },
            "transpose_cancelled") == kJustX);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat64, {2, 3, 4}, "x");
    identity(transpose(transpose(x, {1, 2, 0}), {2, 0, 1}), OpSite("back"));
    identity(transpose(transpose(x, {1, 2, 0}), {1, 0, 2}), OpSite("composed"));
  }
  const Tensor value = reshape(cast(range(0, 24, 1), kFloat64), {2, 3, 4});
  auto result = testing::OptimizeAndCompare(g, kSimplifyOnly, {{"x", value}}, {"back", "composed"});
  CHECK(result.report.counter("simplify.transpose_cancelled") == 1);
  CHECK(result.report.counter("simplify.transpose_composed") == 1);
  CHECK(testing::OpCounts(result.graph).at("Transpose") == 1);
}

TEST_CASE("a fetched node that simplifies away becomes an Identity under its own name") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat64, {2}, "x");
    multiply(x, constant(1.0), OpSite("y"));
  }
  auto result = testing::OptimizeAndCompare(g, kSimplifyOnly, {{"x", constant({1.0, 2.0})}}, {"y"});
  CHECK(result.graph.FindNode("y")->op().name == "Identity");
}

}  // namespace
}  // namespace duet
