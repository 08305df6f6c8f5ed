// Gradients of the math family against central differences (float64), with broadcasting both
// ways for the binary ops, inputs kept away from kinks and singularities, second-order checks for
// the ops whose gradients are themselves smooth, and the ops through which nothing flows.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ops/gradient.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/gradients/gradient_checker.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

using Inputs = std::vector<Tensor>;

// Calls a binary op by name: Div on floats is unreachable through divide(), which picks RealDiv.
Tensor CallBinary(const char* op, const Tensor& x, const Tensor& y) {
  OpCall call(OpRegistry::Global().Find(op), {x, y}, OpSite());
  return RunSingleOutputOp(call);
}

// A binary op's function under test.
using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);

TestFn Binary(BinaryFn fn) {
  return [fn](const Inputs& x) { return Inputs{fn(x[0], x[1])}; };
}

// The shape pairs every broadcasting binary op is checked on: equal shapes, a row against a
// matrix (either side), a column against a row, and a scalar (either side).
struct ShapePair {
  Shape x, y;
};
const std::vector<ShapePair> kBroadcastPairs = {
    {{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{3}, {2, 3}}, {{2, 1}, {1, 3}}, {{}, {2, 3}}, {{2, 3}, {}},
};

// Checks `fn` on every pair of kBroadcastPairs, x uniform in [x_lo, x_hi) and y in [y_lo, y_hi).
void CheckBroadcasting(const std::string& op, BinaryFn fn, double x_lo = -1, double x_hi = 1,
                       double y_lo = -1, double y_hi = 1) {
  int64_t seed = 1;
  for (const ShapePair& p : kBroadcastPairs) {
    INFO(op << " with x " << p.x.str() << " and y " << p.y.str());
    CheckGradients(op, Binary(fn),
                   {RandomInput(p.x, seed, x_lo, x_hi), RandomInput(p.y, seed + 1, y_lo, y_hi)});
    seed += 2;
  }
}

TestFn Unary(Tensor (*fn)(const Tensor&, OpSite)) {
  return [fn](const Inputs& x) { return Inputs{fn(x[0], OpSite())}; };
}

// Fixed inputs at least 0.2 away from 0 and from 6 (the kinks of Abs, Relu, Relu6, Elu).
Tensor AwayFromKinks() {
  return from_vector(std::vector<double>{-0.9, -0.5, -0.2, 0.3, 0.6, 0.8, 2.5, 5.7, 6.4, -3.1},
                     {2, 5});
}

// ---- Binary arithmetic ----

DUET_GRADIENT_TEST("AddV2", "broadcasting both ways") {
  CheckBroadcasting("AddV2", [](const Tensor& x, const Tensor& y) { return x + y; });
}

DUET_GRADIENT_TEST("AddV2", "a leading and an inner broadcast axis at once") {
  CheckGradients("AddV2", Binary([](const Tensor& x, const Tensor& y) { return x + y; }),
                 {RandomInput({2, 3, 2}, 1), RandomInput({3, 1}, 2)});
}

DUET_GRADIENT_TEST("AddN", "one, two and several inputs, one of them repeated") {
  CheckGradients("AddN", [](const Inputs& x) { return Inputs{add_n(x)}; },
                 {RandomInput({2, 3}, 1)});
  CheckGradients("AddN", [](const Inputs& x) { return Inputs{add_n(x)}; },
                 {RandomInput({2, 3}, 2), RandomInput({2, 3}, 3)});
  CheckGradients("AddN",
                 [](const Inputs& x) {
                   return Inputs{add_n({x[0], x[1], x[0], x[2]})};
                 },
                 {RandomInput({4}, 4), RandomInput({4}, 5), RandomInput({4}, 6)});
  CheckSecondOrderGradients("AddN",
                            [](const Inputs& x) {
                              return Inputs{add_n({x[0] * x[1], x[0]})};
                            },
                            {RandomInput({3}, 7), RandomInput({3}, 8)});
}

DUET_GRADIENT_TEST("Sub", "broadcasting both ways") {
  CheckBroadcasting("Sub", [](const Tensor& x, const Tensor& y) { return x - y; });
}

DUET_GRADIENT_TEST("Mul", "broadcasting both ways") {
  CheckBroadcasting("Mul", [](const Tensor& x, const Tensor& y) { return x * y; });
}

DUET_GRADIENT_TEST("Mul", "second order") {
  CheckSecondOrderGradients("Mul", Binary([](const Tensor& x, const Tensor& y) { return x * y; }),
                            {RandomInput({2, 3}, 1), RandomInput({2, 3}, 2)});
}

// Undoing the broadcast (Sum, Reshape) must itself be differentiable.
DUET_GRADIENT_TEST("Mul", "second order, broadcasting") {
  CheckSecondOrderGradients("Mul", Binary([](const Tensor& x, const Tensor& y) { return x * y; }),
                            {RandomInput({2, 3}, 1), RandomInput({3}, 2)});
  CheckSecondOrderGradients("Mul", Binary([](const Tensor& x, const Tensor& y) { return x * y; }),
                            {RandomInput({2, 1}, 3), RandomInput({}, 4)});
}

DUET_GRADIENT_TEST("Mul", "second order of a square") {
  CheckSecondOrderGradients("Mul", [](const Inputs& x) { return Inputs{x[0] * x[0] * x[0]}; },
                            {RandomInput({2, 3}, 3)});
}

// Divisors in [0.5, 2) of either sign keep away from the pole at 0.
DUET_GRADIENT_TEST("RealDiv", "broadcasting both ways") {
  CheckBroadcasting(
      "RealDiv", [](const Tensor& x, const Tensor& y) { return x / y; }, -1, 1, 0.5, 2);
  CheckGradients("RealDiv", Binary([](const Tensor& x, const Tensor& y) { return x / y; }),
                 {RandomInput({2, 3}, 5), RandomInput({3}, 6, -2, -0.5)});
}

DUET_GRADIENT_TEST("RealDiv", "second order") {
  CheckSecondOrderGradients("RealDiv",
                            Binary([](const Tensor& x, const Tensor& y) { return x / y; }),
                            {RandomInput({2, 3}, 1), RandomInput({2, 3}, 2, 0.5, 2)});
}

DUET_GRADIENT_TEST("Div", "on floats, broadcasting both ways") {
  CheckBroadcasting(
      "Div", [](const Tensor& x, const Tensor& y) { return CallBinary("Div", x, y); }, -1, 1, 0.5,
      2);
}

// floor(x / y) is 2 for x in [2.2, 2.8) and y in [1, 1.05), and -3 for y in (-1.05, -1]: far
// from its jumps, and dy = -floor(x / y) * g is not trivially 0.
DUET_GRADIENT_TEST("FloorMod", "away from the jumps") {
  CheckBroadcasting(
      "FloorMod", [](const Tensor& x, const Tensor& y) { return x % y; }, 2.2, 2.8, 1, 1.05);
  CheckBroadcasting(
      "FloorMod", [](const Tensor& x, const Tensor& y) { return x % y; }, 2.2, 2.8, -1.05, -1);
}

DUET_GRADIENT_TEST("Pow", "positive bases, broadcasting both ways") {
  CheckBroadcasting(
      "Pow", [](const Tensor& x, const Tensor& y) { return pow(x, y); }, 0.5, 2, -1.5, 1.5);
}

DUET_GRADIENT_TEST("Pow", "negative bases with an integral exponent") {
  // x^2 of a negative x: only dx is a real derivative (d/dy would need log(x)).
  GradientCheckOptions options;
  options.wrt = {0};
  CheckGradients("Pow", Binary([](const Tensor& x, const Tensor& y) { return pow(x, y); }),
                 {RandomInput({2, 3}, 1, -2, -0.5), constant(2.0)}, options);
}

DUET_GRADIENT_TEST("Pow", "the exponent gets 0 where the base is not positive") {
  const Tensor x = constant({-2.0, 0.0, 3.0});
  const Tensor y = constant({2.0, 2.0, 2.0});
  GradientTape tape;
  tape.watch(x);
  tape.watch(y);
  const Tensor z = pow(x, y);
  const std::vector<Tensor> g = tape.gradient(z, {x, y});
  ExpectTensor(g[0], kFloat64, {3}, {-4, 0, 6});
  ExpectTensor(g[1], kFloat64, {3}, {0, 0, 9 * std::log(3.0)});
}

DUET_GRADIENT_TEST("Pow", "second order") {
  CheckSecondOrderGradients("Pow",
                            Binary([](const Tensor& x, const Tensor& y) { return pow(x, y); }),
                            {RandomInput({2, 3}, 1, 0.5, 2), RandomInput({2, 3}, 2, -1.5, 1.5)});
}

// Independent uniform inputs are never within the finite-difference step of each other.
DUET_GRADIENT_TEST("Maximum", "broadcasting both ways") {
  CheckBroadcasting("Maximum", [](const Tensor& x, const Tensor& y) { return maximum(x, y); });
}

DUET_GRADIENT_TEST("Minimum", "broadcasting both ways") {
  CheckBroadcasting("Minimum", [](const Tensor& x, const Tensor& y) { return minimum(x, y); });
}

DUET_GRADIENT_TEST("Maximum", "ties send the gradient to x") {
  const Tensor x = constant({1.0, 2.0, 3.0});
  const Tensor y = constant({1.0, 5.0, 3.0});
  for (const bool is_max : {true, false}) {
    INFO((is_max ? "maximum" : "minimum"));
    GradientTape tape;
    tape.watch(x);
    tape.watch(y);
    const Tensor z = is_max ? maximum(x, y) : minimum(x, y);
    const std::vector<Tensor> g = tape.gradient(z, {x, y});
    ExpectTensor(g[0], kFloat64, {3}, {1, is_max ? 0.0 : 1.0, 1});
    ExpectTensor(g[1], kFloat64, {3}, {0, is_max ? 1.0 : 0.0, 0});
  }
}

DUET_GRADIENT_TEST("SquaredDifference", "broadcasting both ways") {
  CheckBroadcasting("SquaredDifference",
                    [](const Tensor& x, const Tensor& y) { return squared_difference(x, y); });
}

DUET_GRADIENT_TEST("SquaredDifference", "second order") {
  CheckSecondOrderGradients("SquaredDifference", Binary([](const Tensor& x, const Tensor& y) {
                              return squared_difference(x, y);
                            }),
                            {RandomInput({2, 3}, 1), RandomInput({3}, 2)});
}

// Points in all four quadrants, kept away from the origin (the pole of both partials) and from
// the negative x axis (atan2's jump from pi to -pi): y in [0.5, 2) of either sign.
DUET_GRADIENT_TEST("Atan2", "broadcasting both ways, every quadrant") {
  CheckBroadcasting(
      "Atan2", [](const Tensor& y, const Tensor& x) { return atan2(y, x); }, 0.5, 2);
  CheckBroadcasting(
      "Atan2", [](const Tensor& y, const Tensor& x) { return atan2(y, x); }, -2, -0.5);
}

DUET_GRADIENT_TEST("Atan2", "second order") {
  CheckSecondOrderGradients("Atan2",
                            Binary([](const Tensor& y, const Tensor& x) { return atan2(y, x); }),
                            {RandomInput({2, 3}, 1, 0.5, 2), RandomInput({2, 3}, 2)});
}

// ---- Unary ----

DUET_GRADIENT_TEST("Neg", "elementwise") {
  CheckGradients("Neg", Unary(&duet::negative), {RandomInput({2, 3}, 1)});
}

DUET_GRADIENT_TEST("Abs", "away from the kink") {
  CheckGradients("Abs", Unary(&duet::abs), {AwayFromKinks()});
}

DUET_GRADIENT_TEST("Square", "elementwise") {
  CheckGradients("Square", Unary(&duet::square), {RandomInput({2, 3}, 1)});
}

DUET_GRADIENT_TEST("Square", "second order") {
  CheckSecondOrderGradients("Square", Unary(&duet::square), {RandomInput({2, 3}, 1)});
}

DUET_GRADIENT_TEST("Relu", "away from the kink") {
  CheckGradients("Relu", Unary(&duet::relu), {AwayFromKinks()});
}

DUET_GRADIENT_TEST("ReluGrad", "in the gradient, away from the kink") {
  const Tensor features = AwayFromKinks();
  CheckGradients("ReluGrad", [&](const Inputs& x) { return Inputs{relu_grad(x[0], features)}; },
                 {RandomInput({2, 5}, 1)});
}

TEST_CASE("Relu has a second derivative of zero through ReluGrad", "[gradient]") {
  CheckSecondOrderGradients("ReluGrad", Unary(&duet::relu), {AwayFromKinks()});
}

DUET_GRADIENT_TEST("Relu6", "away from the kinks") {
  CheckGradients("Relu6", Unary(&duet::relu6), {AwayFromKinks()});
}

DUET_GRADIENT_TEST("Exp", "elementwise") {
  CheckGradients("Exp", Unary(&duet::exp), {RandomInput({2, 3}, 1, -2, 2)});
}

DUET_GRADIENT_TEST("Exp", "second order") {
  CheckSecondOrderGradients("Exp", Unary(&duet::exp), {RandomInput({2, 3}, 1, -2, 2)});
}

DUET_GRADIENT_TEST("Log", "positive inputs") {
  CheckGradients("Log", Unary(&duet::log), {RandomInput({2, 3}, 1, 0.5, 2)});
}

DUET_GRADIENT_TEST("Log", "second order") {
  CheckSecondOrderGradients("Log", Unary(&duet::log), {RandomInput({2, 3}, 1, 0.5, 2)});
}

DUET_GRADIENT_TEST("Log1p", "inputs above -1") {
  CheckGradients("Log1p", Unary(&duet::log1p), {RandomInput({2, 3}, 1, -0.5, 1)});
}

DUET_GRADIENT_TEST("Sqrt", "positive inputs") {
  CheckGradients("Sqrt", Unary(&duet::sqrt), {RandomInput({2, 3}, 1, 0.5, 2)});
}

DUET_GRADIENT_TEST("Sqrt", "second order") {
  CheckSecondOrderGradients("Sqrt", Unary(&duet::sqrt), {RandomInput({2, 3}, 1, 0.5, 2)});
}

DUET_GRADIENT_TEST("Rsqrt", "positive inputs") {
  CheckGradients("Rsqrt", Unary(&duet::rsqrt), {RandomInput({2, 3}, 1, 0.5, 2)});
}

DUET_GRADIENT_TEST("Rsqrt", "second order") {
  CheckSecondOrderGradients("Rsqrt", Unary(&duet::rsqrt), {RandomInput({2, 3}, 1, 0.5, 2)});
}

DUET_GRADIENT_TEST("Tanh", "elementwise") {
  CheckGradients("Tanh", Unary(&duet::tanh), {RandomInput({2, 3}, 1, -2, 2)});
}

DUET_GRADIENT_TEST("Tanh", "second order") {
  CheckSecondOrderGradients("Tanh", Unary(&duet::tanh), {RandomInput({2, 3}, 1, -2, 2)});
}

DUET_GRADIENT_TEST("Sigmoid", "elementwise") {
  CheckGradients("Sigmoid", Unary(&duet::sigmoid), {RandomInput({2, 3}, 1, -3, 3)});
}

DUET_GRADIENT_TEST("Sigmoid", "second order") {
  CheckSecondOrderGradients("Sigmoid", Unary(&duet::sigmoid), {RandomInput({2, 3}, 1, -3, 3)});
}

DUET_GRADIENT_TEST("Elu", "both sides of the kink") {
  CheckGradients("Elu", Unary(&duet::elu), {AwayFromKinks()});
}

DUET_GRADIENT_TEST("Elu", "second order") {
  CheckSecondOrderGradients("Elu", Unary(&duet::elu), {AwayFromKinks()});
}

DUET_GRADIENT_TEST("Softplus", "elementwise") {
  CheckGradients("Softplus", Unary(&duet::softplus), {RandomInput({2, 3}, 1, -3, 3)});
}

DUET_GRADIENT_TEST("Softplus", "second order") {
  CheckSecondOrderGradients("Softplus", Unary(&duet::softplus), {RandomInput({2, 3}, 1, -3, 3)});
}

DUET_GRADIENT_TEST("LeakyRelu", "both sides of the kink, the default and another alpha") {
  CheckGradients("LeakyRelu", [](const Inputs& x) { return Inputs{leaky_relu(x[0])}; },
                 {AwayFromKinks()});
  CheckGradients("LeakyRelu", [](const Inputs& x) { return Inputs{leaky_relu(x[0], 0.01f)}; },
                 {AwayFromKinks()});
}

DUET_GRADIENT_TEST("Selu", "both sides of the kink") {
  CheckGradients("Selu", Unary(&duet::selu), {AwayFromKinks()});
}

DUET_GRADIENT_TEST("Selu", "second order") {
  CheckSecondOrderGradients("Selu", Unary(&duet::selu), {AwayFromKinks()});
}

DUET_GRADIENT_TEST("Softsign", "both sides of the kink") {
  CheckGradients("Softsign", Unary(&duet::softsign), {AwayFromKinks()});
}

DUET_GRADIENT_TEST("Erf", "elementwise") {
  CheckGradients("Erf", Unary(&duet::erf), {RandomInput({2, 3}, 1, -2, 2)});
}

DUET_GRADIENT_TEST("Erf", "second order") {
  CheckSecondOrderGradients("Erf", Unary(&duet::erf), {RandomInput({2, 3}, 1, -2, 2)});
}

DUET_GRADIENT_TEST("Erfc", "elementwise") {
  CheckGradients("Erfc", Unary(&duet::erfc), {RandomInput({2, 3}, 1, -2, 2)});
}

DUET_GRADIENT_TEST("Erfinv", "elementwise") {
  CheckGradients("Erfinv", Unary(&duet::erfinv), {RandomInput({2, 3}, 1, -0.9, 0.9)});
}

DUET_GRADIENT_TEST("Erfinv", "second order") {
  CheckSecondOrderGradients("Erfinv", Unary(&duet::erfinv), {RandomInput({2, 3}, 1, -0.8, 0.8)});
}

DUET_GRADIENT_TEST("ClipByValue", "scalar bounds, full-shape bounds") {
  // Values kept away from the bounds, where the gradient jumps.
  const Tensor t = constant({{-2.0, -0.7, 0.1}, {0.6, 1.3, 3.0}});
  CheckGradients("ClipByValue",
                 [](const std::vector<Tensor>& x) {
                   return std::vector<Tensor>{clip_by_value(x[0], x[1], x[2])};
                 },
                 {t, constant(-1.0), constant(1.0)});
  CheckGradients("ClipByValue",
                 [](const std::vector<Tensor>& x) {
                   return std::vector<Tensor>{clip_by_value(x[0], x[1], x[2])};
                 },
                 {t, constant({{-1.5, 0.0, -1.0}, {0.0, 1.0, 2.0}}),
                  constant({{-1.0, 0.5, 1.0}, {2.0, 1.5, 2.5}})});
}

DUET_GRADIENT_TEST("CheckNumerics", "passes the gradient through") {
  CheckGradients(
      "CheckNumerics",
      [](const std::vector<Tensor>& x) { return std::vector<Tensor>{check_numerics(x[0], "m")}; },
      {RandomInput({2, 3}, 1)});
}

TEST_CASE("CheckNumerics checks the gradient too", "[gradient]") {
  const Tensor x = constant({1.0, 4.0});
  GradientTape tape;
  tape.watch(x);
  const Tensor y = multiply(check_numerics(x, "forward"),
                            constant({std::numeric_limits<double>::infinity(), 1.0}));
  testing::ExpectError([&] { tape.gradient(y, {x}); },
                       {"CheckNumerics",
                        "Not a number (NaN) or infinity (Inf) values detected in gradient. forward "
                        ": Tensor had Inf values"});
}

DUET_GRADIENT_TEST("Sin", "elementwise") {
  CheckGradients("Sin", Unary(&duet::sin), {RandomInput({2, 3}, 1, -4, 4)});
}

DUET_GRADIENT_TEST("Sin", "second order") {
  CheckSecondOrderGradients("Sin", Unary(&duet::sin), {RandomInput({2, 3}, 1, -4, 4)});
}

DUET_GRADIENT_TEST("Cos", "elementwise") {
  CheckGradients("Cos", Unary(&duet::cos), {RandomInput({2, 3}, 1, -4, 4)});
}

DUET_GRADIENT_TEST("Cos", "second order") {
  CheckSecondOrderGradients("Cos", Unary(&duet::cos), {RandomInput({2, 3}, 1, -4, 4)});
}

// ---- Selection and conversion ----

DUET_GRADIENT_TEST("SelectV2", "all three broadcast") {
  const Tensor condition = constant({{true, false, true}, {false, false, true}});
  const Tensor column = constant({{true}, {false}});
  const TestFn select = [](const Inputs& x) { return Inputs{where(x[0], x[1], x[2])}; };
  // The bool condition is not differentiated; t and e are.
  CheckGradients("SelectV2", select, {condition, RandomInput({2, 3}, 1), RandomInput({2, 3}, 2)});
  CheckGradients("SelectV2", select, {condition, RandomInput({3}, 3), RandomInput({}, 4)});
  CheckGradients("SelectV2", select, {column, RandomInput({1, 3}, 5), RandomInput({3}, 6)});
  CheckGradients("SelectV2", select,
                 {constant(true), RandomInput({2, 1}, 7), RandomInput({2, 3}, 8)});
}

DUET_GRADIENT_TEST("SelectV2", "second order") {
  const Tensor condition = constant({{true, false, true}, {false, false, true}});
  CheckSecondOrderGradients(
      "SelectV2", [](const Inputs& x) { return Inputs{where(x[0], x[1] * x[1], x[2] * x[1])}; },
      {condition, RandomInput({2, 3}, 1), RandomInput({2, 3}, 2)});
}

TEST_CASE("SelectV2's gradient gives the condition none", "[gradient]") {
  const OpDef* op = OpRegistry::Global().Find("SelectV2");
  REQUIRE(op != nullptr);
  const GradientDef* def = FindGradient(*op);
  REQUIRE(def != nullptr);
  REQUIRE(def->fn != nullptr);
  const Tensor condition = constant({true, false});
  const std::vector<Tensor> inputs = {condition, Tensor(), Tensor()};
  const std::vector<Tensor> outputs = {Tensor()};
  const std::vector<TensorMeta> input_meta = {{kBool, {2}}, {kFloat64, {2}}, {kFloat64, {}}};
  const std::vector<TensorMeta> output_meta = {{kFloat64, {2}}};
  const std::vector<Tensor> grads = {constant({3.0, 4.0})};
  const GradientContext ctx(*op, op->default_attrs, inputs, outputs, input_meta, output_meta,
                            grads);
  const TensorList g = def->fn(ctx);
  REQUIRE(g.size() == 3);
  CHECK_FALSE(g[0].defined());
  ExpectTensor(g[1], kFloat64, {2}, {3, 0});
  ExpectTensor(g[2], kFloat64, {}, {4});
}

// The cast round trip is linear, so central differences stay exact at the float32 step.
DUET_GRADIENT_TEST("Cast", "between floating types") {
  CheckGradients(
      "Cast", [](const Inputs& x) { return Inputs{cast(cast(x[0], kFloat32) * 3.0f, kFloat64)}; },
      {RandomInput({2, 3}, 1)}, Float32GradientCheck());
}

TEST_CASE("No gradient flows through a cast to an integer", "[gradient]") {
  const Tensor x = constant({1.5, -2.5, 3.25});
  GradientTape tape(/*persistent=*/true);
  tape.watch(x);
  const Tensor through_int = cast(cast(x, kInt32), kFloat64);
  const Tensor mixed = x * 2.0 + through_int;
  CHECK_FALSE(tape.gradient(through_int, {x})[0].defined());
  ExpectTensor(tape.gradient(mixed, {x})[0], kFloat64, {3}, {2, 2, 2});
}

TEST_CASE("16-bit gradients undo broadcasting", "[gradient]") {
  for (const DType half : {kFloat16, kBFloat16}) {
    INFO("dtype " << DTypeName(half));
    const Tensor x = RandomInput({2, 3}, 1);
    const Tensor y = RandomInput({3}, 2);
    GradientTape tape;
    tape.watch(x);
    tape.watch(y);
    const Tensor z = cast(cast(x, half) * cast(y, half), kFloat64);
    const std::vector<Tensor> g = tape.gradient(z, {x, y});
    // dz/dy sums x over the broadcast rows; 16-bit rounding of x bounds the error.
    const std::vector<double> xs = x.to_vector<double>();
    ExpectTensor(g[1], kFloat64, {3}, {xs[0] + xs[3], xs[1] + xs[4], xs[2] + xs[5]}, 2e-2);
    CHECK(g[0].shape() == Shape({2, 3}));
  }
}

TEST_CASE("Math ops keep only what their gradients read", "[gradient]") {
  struct Keeps {
    const char* op;
    uint64_t inputs, outputs;
  };
  // Ops that can use their output keep it instead of their input, so the tape frees the input.
  const std::vector<Keeps> expected = {
      {"AddV2", 0, 0},    {"Sub", 0, 0},         {"Mul", 3, 0},
      {"RealDiv", 3, 0},  {"Div", 3, 0},         {"FloorMod", 3, 0},
      {"Maximum", 3, 0},  {"Minimum", 3, 0},     {"Abs", 1, 0},
      {"Square", 1, 0},   {"Log", 1, 0},         {"Log1p", 1, 0},
      {"Pow", 3, 1},      {"Neg", 0, 0},         {"Relu", 0, 1},
      {"Relu6", 0, 1},    {"Exp", 0, 1},         {"Sqrt", 0, 1},
      {"Rsqrt", 0, 1},    {"Tanh", 0, 1},        {"Sigmoid", 0, 1},
      {"Elu", 0, 1},      {"Softplus", 1, 0},    {"SelectV2", 1, 0},
      {"Cast", 0, 0},     {"ReluGrad", 2, 0},    {"SquaredDifference", 3, 0},
      {"Atan2", 3, 0},    {"LeakyRelu", 1, 0},   {"Selu", 0, 1},
      {"Softsign", 1, 0}, {"Erf", 1, 0},         {"Erfc", 1, 0},
      {"Sin", 1, 0},      {"Cos", 1, 0},         {"CheckNumerics", 0, 0},
      {"Erfinv", 0, 1},   {"ClipByValue", 7, 0},
  };
  for (const Keeps& k : expected) {
    INFO("op " << k.op);
    const GradientDef* def = FindGradient(*OpRegistry::Global().Find(k.op));
    REQUIRE(def != nullptr);
    CHECK(def->keep_inputs == k.inputs);
    CHECK(def->keep_outputs == k.outputs);
  }
}

TEST_CASE("Comparisons, logic and piecewise-constant math ops are not differentiable",
          "[gradient]") {
  for (const char* name :
       {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
        "LogicalOr", "LogicalNot", "Sign", "Floor", "Ceil", "Round", "Rint", "FloorDiv",
        "TruncateDiv", "IsNan", "IsInf", "IsFinite"}) {
    INFO("op " << name);
    const GradientDef* def = FindGradient(*OpRegistry::Global().Find(name));
    REQUIRE(def != nullptr);
    CHECK(def->fn == nullptr);
  }
  // Floor is not even recorded, so x gets no gradient through it.
  const Tensor x = constant({1.5, -2.5});
  GradientTape tape;
  tape.watch(x);
  const Tensor y = floor(x) + sign(x) + ceil(x);
  CHECK_FALSE(tape.gradient(y, {x})[0].defined());
}

}  // namespace
}  // namespace duet::testing
