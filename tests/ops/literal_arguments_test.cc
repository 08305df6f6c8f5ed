// C++ literals where op functions take tensors (Note [Literal tensors] in core/literal.cc): they
// take the dtype the other operands fix, eagerly and in graphs, and a literal that would change
// value is an error naming the op, the input and the value.
#include <catch2/catch.hpp>
#include <cmath>

#include "core/literal.h"
#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectError;

TEST_CASE("a literal takes the dtype of the tensors it meets") {
  const Tensor x = constant({1.0, 2.0});
  const Tensor y = add(x, 1);
  CHECK(y.dtype() == kFloat64);
  CHECK(y.to_vector<double>() == std::vector<double>{2, 3});
  CHECK_FALSE(y.is_literal());
  CHECK(add(2, x).to_vector<double>() == std::vector<double>{3, 4});  // either side
  const Tensor i = constant({int64_t{5}, int64_t{7}});
  CHECK(floor_mod(i, 3).to_vector<int64_t>() == std::vector<int64_t>{2, 1});
  CHECK(maximum(constant({1.f, 4.f}), 2.5).to_vector<float>() == std::vector<float>{2.5f, 4.f});
  // Nested lists, and a list input (ConcatV2's N * T).
  CHECK(matmul(constant({{1.0, 2.0}}), {{3.f}, {4.f}}).item<double>() == 11.0);
  CHECK(concat({constant({1.f}), {2.f, 3.f}}, 0).to_vector<float>() == std::vector<float>{1, 2, 3});
}

TEST_CASE("an op of literals alone computes in the literals' own dtype") {
  const Tensor sum = add(1, 2);
  CHECK(sum.dtype() == kInt32);
  CHECK(sum.item<int32_t>() == 3);
  CHECK(multiply(1.5, 2.0).dtype() == kFloat64);
  CHECK(Tensor(1.f).dtype() == kFloat32);
  CHECK(Tensor(int64_t{1}).dtype() == kInt64);
  CHECK(Tensor(true).dtype() == kBool);
  CHECK(Tensor({{1, 2}, {3, 4}}).shape() == Shape{2, 2});
}

TEST_CASE("a literal that would change value is an error naming the op and the value") {
  const Tensor i = constant({1, 2});
  ExpectError([&] { add(i, 1.5); },
              {"AddV2", "input y", "1.5", "cannot be represented as int32", "literal"});
  ExpectError([&] { logical_and(constant({true}), 2); }, {"LogicalAnd", "2", "bool"});
  ExpectError([&] { add(i, {1.0, 2.5}); }, {"AddV2", "element 1", "2.5", "int32"});
  ExpectError([&] { add(constant({1, 2}), int64_t{1} << 40); }, {"AddV2", "1099511627776"});
}

TEST_CASE("LiteralAs converts exactly or says why not") {
  CHECK(LiteralAs(Tensor(3), kFloat16)->dtype() == kFloat16);
  CHECK(LiteralAs(Tensor(2.0), kInt64)->item<int64_t>() == 2);
  CHECK(LiteralAs(Tensor(1), kBool)->item<bool>());
  CHECK_FALSE(LiteralAs(Tensor(3), kBool).ok());
  CHECK_FALSE(LiteralAs(Tensor(0.5), kInt32).ok());
  CHECK_FALSE(LiteralAs(Tensor(std::nan("")), kInt64).ok());
  CHECK_FALSE(LiteralAs(Tensor(1), kResource).ok());
}

TEST_CASE("in a graph a literal becomes a constant of the other operand's dtype") {
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat64, {2}, "x");
    y = multiply(x, 3);
  }
  const Tensor out = Session(g).run({{x, constant({1.0, 2.0})}}, {y})[0];
  CHECK(out.to_vector<double>() == std::vector<double>{3, 6});
  int float64_consts = 0;
  for (const Node* node : g.nodes()) {
    if (node->op().name == "Const" && node->output_dtype(0) == kFloat64) ++float64_consts;
  }
  CHECK(float64_consts == 1);
}

}  // namespace
}  // namespace duet
