// Einsum's gradient against finite differences (each check also runs the function as a graph and
// compares eager with graph values and gradients), a second-order check, and Einsum in a graph
// whose batch dim is unknown until run time (shape inference, values and gradients()).
#include <string>
#include <vector>

#include "tests/gradients/gradient_checker.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

using Tensors = std::vector<Tensor>;

void CheckEinsum(const std::string& equation, const std::vector<Shape>& shapes) {
  INFO("equation " << equation);
  Tensors inputs;
  for (size_t i = 0; i < shapes.size(); ++i) {
    inputs.push_back(RandomInput(shapes[i], static_cast<int64_t>(i) + 1));
  }
  CheckGradients(
      "Einsum", [equation](const Tensors& x) { return Tensors{einsum(equation, x)}; }, inputs);
}

DUET_GRADIENT_TEST("Einsum", "Keras EinsumDense and MultiHeadAttention equations") {
  CheckEinsum("abc,cd->abd", {{2, 3, 4}, {4, 2}});
  CheckEinsum("abc,cde->abde", {{2, 3, 4}, {4, 2, 3}});
  CheckEinsum("aecd,abcd->acbe", {{2, 3, 2, 4}, {2, 2, 2, 4}});
  CheckEinsum("acbe,aecd->abcd", {{2, 2, 3, 3}, {2, 3, 2, 4}});
  CheckEinsum("abcd,cde->abe", {{2, 3, 2, 4}, {2, 4, 3}});
  CheckEinsum("...b,bc->...c", {{2, 3, 4}, {4, 2}});
}

DUET_GRADIENT_TEST("Einsum", "products, transpositions and sums") {
  CheckEinsum("ij,jk->ik", {{3, 4}, {4, 2}});
  CheckEinsum("bij,bjk->bki", {{2, 3, 4}, {2, 4, 2}});
  CheckEinsum("i,j->ij", {{3}, {4}});
  CheckEinsum("bi,bi->b", {{3, 4}, {3, 4}});
  CheckEinsum("ij->ji", {{3, 4}});
  CheckEinsum("ij->i", {{3, 4}});
  CheckEinsum("ijk->kj", {{2, 3, 4}});
  CheckEinsum("ijk->", {{2, 3, 4}});
  CheckEinsum("ij,jk->i", {{3, 4}, {4, 2}});
  CheckEinsum("abc,d->ad", {{2, 3, 2}, {3}});
}

DUET_GRADIENT_TEST("Einsum", "dims under ... broadcast") {
  CheckEinsum("...ij,...jk->...ik", {{2, 1, 3, 4}, {3, 4, 2}});
  CheckEinsum("...ij,...jk->...ik", {{1, 3, 4}, {2, 1, 4, 2}});
  CheckEinsum("i...j,j->...i", {{3, 2, 2, 4}, {4}});
  CheckEinsum("...ij,jk->...ik", {{3, 4}, {4, 2}});
  CheckEinsum("...ij->...", {{2, 3, 4}});
  CheckEinsum("b...,b...->...", {{3, 2, 1}, {3, 1, 4}});
}

// Issue 37: diagonals and traces of inputs, diagonals of the output.
DUET_GRADIENT_TEST("Einsum", "diagonals") {
  CheckEinsum("ii->i", {{3, 3}});
  CheckEinsum("ii->", {{3, 3}});
  CheckEinsum("iij->j", {{2, 2, 3}});
  CheckEinsum("iji->ji", {{3, 2, 3}});
  CheckEinsum("ij,jj->i", {{2, 3}, {3, 3}});
  CheckEinsum("i->ii", {{3}});
  CheckEinsum("i,j->iji", {{2}, {3}});
  CheckEinsum("...ii->...i", {{2, 3, 3}});
  CheckSecondOrderGradients("Einsum",
                            [](const Tensors& x) { return Tensors{einsum("ij,jj->ij", x)}; },
                            {RandomInput({2, 3}, 5), RandomInput({3, 3}, 6)});
}

DUET_GRADIENT_TEST("Einsum", "second order") {
  CheckSecondOrderGradients("Einsum",
                            [](const Tensors& x) { return Tensors{einsum("bij,jk->bik", x)}; },
                            {RandomInput({2, 3, 4}, 1), RandomInput({4, 2}, 2)});
  CheckSecondOrderGradients(
      "Einsum", [](const Tensors& x) { return Tensors{einsum("...ij,...jk->...ik", x)}; },
      {RandomInput({2, 1, 3, 4}, 3), RandomInput({3, 4, 2}, 4)});
}

// Runs `equation` on `a` (fed to a placeholder of `a_shape`, which may have unknown dims) and `b`
// (fed to one of `b_shape`) in a graph, and compares the result and gradients() of the sum of
// its product with `w` with eager execution and a tape.
void CheckGraph(const std::string& equation, const Tensor& a, const Shape& a_shape, const Tensor& b,
                const Shape& b_shape, const Shape& expected_shape) {
  INFO("equation " << equation);
  const Tensor eager = einsum(equation, {a, b});
  const Tensor w = RandomInput(eager.shape(), 9);
  Tensors eager_grads;
  {
    GradientTape tape;
    tape.watch(a);
    tape.watch(b);
    eager_grads = tape.gradient(reduce_sum(einsum(equation, {a, b}) * w), {a, b});
  }
  Graph graph;
  Tensor pa, pb, y, wp;
  Tensors grads;
  {
    GraphScope scope(graph);
    pa = placeholder(kFloat64, a_shape);
    pb = placeholder(kFloat64, b_shape);
    wp = placeholder(kFloat64, Shape::Unknown(eager.rank()));
    y = einsum(equation, {pa, pb});
    CHECK(y.shape() == expected_shape);
    grads = gradients({reduce_sum(y * wp)}, {pa, pb});
  }
  Session session(graph);
  const Tensors got = session.run({{pa, a}, {pb, b}, {wp, w}}, {y, grads[0], grads[1]});
  ExpectTensorNear(got[0], eager, 1e-12);
  ExpectTensorNear(got[1], eager_grads[0], 1e-12);
  ExpectTensorNear(got[2], eager_grads[1], 1e-12);
}

TEST_CASE("Einsum in a graph with dims unknown until run time") {
  const Tensor x = RandomInput({2, 3, 4}, 1);
  const Tensor w = RandomInput({4, 5}, 2);
  CheckGraph("...b,bc->...c", x, {-1, 3, 4}, w, {4, 5}, {-1, 3, 5});
  CheckGraph("abc,cd->abd", x, {-1, -1, 4}, w, {4, 5}, {-1, -1, 5});
  // Summed-away labels of unknown size: the gradient reads their sizes at run time.
  CheckGraph("abc,cd->a", x, {-1, 3, -1}, w, {-1, -1}, {-1});
  // Both operands' "..." dims unknown: the gradient finds the broadcast axes at run time.
  CheckGraph("...ij,...jk->...ik", RandomInput({2, 1, 3, 4}, 3), {-1, -1, 3, 4},
             RandomInput({3, 4, 2}, 4), {-1, 4, 2}, {-1, -1, 3, 2});
}

TEST_CASE("Einsum infers what it can of the output shape from operands of unknown rank") {
  Graph graph;
  GraphScope scope(graph);
  const Tensor unknown = placeholder(kFloat64, Shape::UnknownRank());
  const Tensor w = placeholder(kFloat64, {4, 5});
  CHECK(einsum("abc,cd->abd", {unknown, w}).shape() == Shape{-1, -1, 5});
  CHECK(einsum("a...c,cd->da", {unknown, w}).shape() == Shape{5, -1});
  CHECK(einsum("...c,cd->...d", {unknown, w}).shape() == Shape::UnknownRank());
}

}  // namespace
}  // namespace duet::testing
