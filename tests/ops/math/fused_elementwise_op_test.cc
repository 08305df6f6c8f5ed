// _FusedElementwise's declaration: output shapes (a single element broadcasts, nothing else does),
// dtypes, and clear errors, naming the op and the instruction, for malformed programs.
#include "ops/math/fused_elementwise_op.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "ops/math/math_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

Tensor Full(const Shape& shape, DType dtype = kFloat32) {
  return testing::MakeTensor(dtype, shape, std::vector<double>(shape.num_elements(), 1.5));
}

// Float32 tensors of `shape` whose values vary (so no kernel shortcuts), in [-3, 3] and [-1, 1].
Tensor SineTensor(const Shape& shape) {
  std::vector<double> values(shape.num_elements());
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = std::sin(0.37 * static_cast<double>(i)) * 3;
  return testing::MakeTensor(kFloat32, shape, values);
}
Tensor CosineTensor(const Shape& shape) {
  std::vector<double> values(shape.num_elements());
  for (size_t i = 0; i < values.size(); ++i) values[i] = std::cos(0.11 * static_cast<double>(i));
  return testing::MakeTensor(kFloat32, shape, values);
}

TEST_CASE("the output has the inputs' shape; single elements broadcast") {
  CHECK(fused_elementwise({Full({4, 3}), Full({})}, {"Mul"}, {0, 1}).shape() == Shape({4, 3}));
  CHECK(fused_elementwise({Full({}), Full({4, 3})}, {"Sub"}, {0, 1}).shape() == Shape({4, 3}));
  CHECK(fused_elementwise({Full({1}), Full({4, 3})}, {"Sub"}, {0, 1}).shape() == Shape({4, 3}));
  CHECK(fused_elementwise({Full({1}), Full({})}, {"AddV2"}, {0, 1}).shape() == Shape({1}));
  CHECK(fused_elementwise({Full({1, 1}), Full({1})}, {"AddV2"}, {0, 1}).shape() == Shape({1, 1}));
  CHECK(fused_elementwise({Full({2}, kFloat64)}, {"Exp"}, {0}).dtype() == kFloat64);
}

TEST_CASE("inputs that broadcast other than as a single element are rejected") {
  testing::ExpectError(
      [] {
        fused_elementwise({Full({4, 3}), Full({3})}, {"AddV2"}, {0, 1});
      },
      {"_FusedElementwise", "input 1 has shape (3,)",
       "single element or have the output's shape (4, 3)"});
  testing::ExpectError(
      [] {
        fused_elementwise({Full({4, 1}), Full({1, 3})}, {"AddV2"}, {0, 1});
      },
      {"input 0 has shape (4, 1)"});
  testing::ExpectError(
      [] {
        fused_elementwise({Full({4}), Full({1, 4})}, {"AddV2"}, {0, 1});
      },
      {"input 0 has shape (4,)", "(1, 4)"});
}

TEST_CASE("dtypes: float32 or float64, one for all inputs") {
  testing::ExpectError(
      [] {
        fused_elementwise({Full({2}), Full({2}, kFloat64)}, {"AddV2"}, {0, 1});
      },
      {"_FusedElementwise"});
  testing::ExpectError([] { fused_elementwise({Full({2}, kInt32)}, {"Neg"}, {0}); },
                       {"_FusedElementwise", "int32"});
}

TEST_CASE("malformed programs are errors naming the op and the instruction") {
  const Tensor x = Full({2});
  testing::ExpectError(
      [&] {
        fused_elementwise({x}, {"Neg", "Bogus"}, {0, 1});
      },
      {"_FusedElementwise", "instruction 1 names op 'Bogus'", "Tanh"});
  testing::ExpectError(
      [&] {
        fused_elementwise({x}, {"Neg", "Exp"}, {0, 2});
      },
      {"instruction 1 (Exp) reads value 2", "values 0..1"});
  testing::ExpectError([&] { fused_elementwise({x}, {"AddV2"}, {0}); }, {"too few"});
  testing::ExpectError([&] { fused_elementwise({x}, {"Exp"}, {0, 0}); }, {"take 1"});
  testing::ExpectError([&] { fused_elementwise({x}, {}, {}); }, {"empty"});
  testing::ExpectError([&] { fused_elementwise({x}, {"Abs"}, {-3}); }, {"reads value -3"});
  testing::ExpectError(
      [&] {
        fused_elementwise({x}, {"Neg", "Exp"}, {0, 1}, std::vector<int64_t>{1});
      },
      {"results names instruction 1", "before the last"});
  testing::ExpectError(
      [&] {
        fused_elementwise({x}, {"Neg", "Abs", "Exp"}, {0, 1, 2}, std::vector<int64_t>{0, 0});
      },
      {"instruction 0 twice"});
}

// Note [Extra outputs]: y = exp(-x) * 2 with -x and exp(-x) as outputs 1 and 2; a tensor large
// enough for the threaded path and several tiles; a program of scalars only.
TEST_CASE("extra outputs hold the named instructions' values") {
  const std::vector<double> values = {-1.5, 0.0, 0.25, 3.0, 7.5, -0.125};
  for (const Shape& shape : {Shape({2, 3}), Shape({6})}) {
    const Tensor x = testing::MakeTensor(kFloat64, shape, values);
    const std::vector<Tensor> out = fused_elementwise({x, constant(2.0)}, {"Neg", "Exp", "Mul"},
                                                      {0, 2, 3, 1}, std::vector<int64_t>{0, 1});
    REQUIRE(out.size() == 3);
    testing::ExpectTensorNear(out[1], negative(x), 0);
    testing::ExpectTensorNear(out[2], exp(negative(x)), 0);
    testing::ExpectTensorNear(out[0], exp(negative(x)) * 2.0, 0);
  }
  const Tensor big = SineTensor({300, 257});  // threaded, several tiles
  const std::vector<Tensor> out = fused_elementwise({big}, {"Tanh", "Square", "Sigmoid"}, {0, 1, 2},
                                                    std::vector<int64_t>{0, 1});
  testing::ExpectTensorNear(out[1], tanh(big), 0);
  testing::ExpectTensorNear(out[2], square(tanh(big)), 0);
  testing::ExpectTensorNear(out[0], sigmoid(square(tanh(big))), 0);
  const std::vector<Tensor> scalars = fused_elementwise(
      {constant(0.5), constant(4.0)}, {"Mul", "Exp"}, {0, 1, 2}, std::vector<int64_t>{0});
  testing::ExpectTensorNear(scalars[1], constant(2.0), 0);
  testing::ExpectTensorNear(scalars[0], constant(std::exp(2.0)), 1e-14);
}

// The float32 `values` (all of one shape) side by side along their last axis, as ConcatV2 joins
// them (the math tests link no array kernels).
Tensor JoinLastAxis(const std::vector<Tensor>& values) {
  const Shape& shape = values[0].shape();
  const int64_t row = shape.dims().back(), rows = shape.num_elements() / row;
  std::vector<double> joined;
  for (int64_t r = 0; r < rows; ++r) {
    for (const Tensor& value : values) {
      const float* data = value.data<float>() + r * row;
      joined.insert(joined.end(), data, data + row);
    }
  }
  std::vector<int64_t> dims(shape.dims().begin(), shape.dims().end());
  dims.back() *= static_cast<int64_t>(values.size());
  return testing::MakeTensor(kFloat32, Shape(dims), joined);
}

// Note [Concatenated output]: output 0 joins the named values along the last axis, as ConcatV2
// would; rows wider and narrower than a tile, threaded, with a value named twice, a joined value
// that is an extra output too, and a scalar one.
TEST_CASE("a concatenated output joins the named values along the last axis") {
  for (const Shape& shape : {Shape({300, 257}), Shape({5, 3}), Shape({2, 3000}), Shape({7})}) {
    INFO(shape.str());
    const Tensor x = SineTensor(shape), y = CosineTensor(shape);
    // tanh(x), x * y, sigmoid(x * y); output 0 = [sigmoid(x y), tanh(x), sigmoid(x y)], the
    // product is extra output 1.
    const std::vector<Tensor> out =
        fused_elementwise({x, y}, {"Tanh", "Mul", "Sigmoid"}, {0, 0, 1, 3}, std::vector<int64_t>{1},
                          std::vector<int64_t>{2, 0, 2});
    REQUIRE(out.size() == 2);
    const Tensor s = sigmoid(x * y);
    testing::ExpectTensorNear(out[0], JoinLastAxis({s, tanh(x), s}), 0);
    testing::ExpectTensorNear(out[1], x * y, 0);
    // A joined value that is the extra output, and one of scalars only.
    const std::vector<Tensor> mixed =
        fused_elementwise({x, y, constant(2.f)}, {"Mul", "Exp", "AddV2"}, {0, 1, 2, 4, 0},
                          std::vector<int64_t>{0}, std::vector<int64_t>{0, 1, 2});
    const Tensor e2 = x * 0.f + exp(constant(2.f));  // x is finite
    testing::ExpectTensorNear(mixed[0], JoinLastAxis({x * y, e2, e2 + x}), 0);
    testing::ExpectTensorNear(mixed[1], x * y, 0);
  }
}

TEST_CASE("a concatenated output's shape, and its errors") {
  const Tensor x = Full({4, 3});
  CHECK(fused_elementwise({x}, {"Neg", "Exp"}, {0, 1}, {}, std::vector<int64_t>{0, 1, 1})[0]
            .shape() == Shape({4, 9}));
  testing::ExpectError(
      [&] {
        fused_elementwise({x}, {"Neg", "Exp"}, {0, 1}, {}, std::vector<int64_t>{2});
      },
      {"_FusedElementwise", "concat names instruction 2"});
  testing::ExpectError(
      [&] {
        fused_elementwise({Full({})}, {"Neg"}, {0}, {}, std::vector<int64_t>{0, 0});
      },
      {"_FusedElementwise", "scalars"});
}

// Part `k` of `n` equal parts of float32 `x` along its last axis, as Split makes it.
Tensor PartOf(const Tensor& x, int64_t k, int64_t n) {
  const int64_t width = x.shape().dims().back() / n, rows = x.shape().num_elements() / (width * n);
  std::vector<double> part;
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x.data<float>() + (r * n + k) * width;
    part.insert(part.end(), row, row + width);
  }
  std::vector<int64_t> dims(x.shape().dims().begin(), x.shape().dims().end());
  dims.back() = width;
  return testing::MakeTensor(kFloat32, Shape(dims), part);
}

// Note [Input parts]: inputs read as parts of wider tensors, as an LSTM cell reads its gates;
// rows wider and narrower than a tile, threaded; parts of one element broadcast.
TEST_CASE("inputs read in parts along the last axis") {
  for (const Shape& gates : {Shape({300, 1028}), Shape({5, 12}), Shape({2, 12000}), Shape({8})}) {
    INFO(gates.str());
    const Tensor z = SineTensor(gates), h = CosineTensor(gates);
    std::vector<int64_t> dims(gates.dims().begin(), gates.dims().end());
    dims.back() /= 4;
    const Tensor c = testing::MakeTensor(kFloat32, Shape(dims),
                                         std::vector<double>(Shape(dims).num_elements(), 0.5));
    // sigmoid(z_1 + h_1) * c + tanh(z_2 + h_2) * sigmoid(z_0 + h_0): inputs z part 1, h part 1,
    // c whole, z part 2, h part 2, z part 0, h part 0.
    const Tensor out = fused_elementwise(
        {z, h, c, z, h, z, h},
        {"AddV2", "Sigmoid", "Mul", "AddV2", "Tanh", "AddV2", "Sigmoid", "Mul", "AddV2"},
        {0, 1, 7, 8, 2, 3, 4, 10, 5, 6, 12, 11, 13, 9, 14}, {}, {},
        {1, 4, 1, 4, 0, 1, 2, 4, 2, 4, 0, 4, 0, 4})[0];
    auto gate = [&](int k) { return PartOf(z, k, 4) + PartOf(h, k, 4); };
    const Tensor expected = sigmoid(gate(1)) * c + tanh(gate(2)) * sigmoid(gate(0));
    testing::ExpectTensorNear(out, expected, 0);
  }
  // Parts of one element broadcast like scalars: (1, 3) read as 3 parts of (1, 1).
  const Tensor x = testing::MakeTensor(kFloat32, {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  const Tensor s = testing::MakeTensor(kFloat32, {1, 3}, {10, 20, 30});
  testing::ExpectTensorNear(fused_elementwise({x, s}, {"Mul"}, {0, 1}, {}, {}, {0, 1, 2, 3})[0],
                            x * 30.f, 0);
}

TEST_CASE("inputs read in parts: shapes and errors") {
  const Tensor x = Full({4, 12});
  CHECK(fused_elementwise({x, x}, {"Mul"}, {0, 1}, {}, {}, {0, 3, 2, 3})[0].shape() ==
        Shape({4, 4}));
  testing::ExpectError(
      [&] {
        fused_elementwise({x}, {"Neg"}, {0}, {}, {}, {0, 5, 1});
      },
      {"_FusedElementwise", "input_parts has 3 entries"});
  testing::ExpectError(
      [&] {
        fused_elementwise({x}, {"Neg"}, {0}, {}, {}, {3, 3});
      },
      {"_FusedElementwise", "part 3 of 3"});
  testing::ExpectError(
      [&] {
        fused_elementwise({x}, {"Neg"}, {0}, {}, {}, {0, 5});
      },
      {"_FusedElementwise", "(4, 12)", "5 equal parts"});
  testing::ExpectError(
      [&] {
        fused_elementwise({x, x}, {"Mul"}, {0, 1}, {}, {}, {0, 2, 0, 1});
      },
      {"_FusedElementwise", "(4, 6) and (4, 12)"});
}

}  // namespace
}  // namespace duet
