// Einsum through einsum(): values against NumPy (testdata/gen_einsum_expected.py) and against a
// naive loop over every label (written here, independent of the lowering) for the Keras
// equations, matmul, batch matmul, outer products, transpositions, sums and "..." broadcasting;
// the errors of malformed equations and mismatched shapes.
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "core/constant.h"
#include "ops/nn/nn_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectError;
using testing::ToDoubles;

// ((i * 7) % 11 - 5) / 4 for each element: small values, exact in float32.
Tensor Input(const Shape& shape, DType dtype = kFloat64, int offset = 0) {
  std::vector<double> values = testing::ModPattern(shape.num_elements() + offset, 7, 11, 5, 4);
  values.erase(values.begin(), values.begin() + offset);
  return testing::MakeTensor(dtype, shape, values);
}

// The einsum of `inputs` by a letters-only `equation`, by a loop over every assignment of every
// label. A dim of size 1 stands for any size (broadcasting), indexed at 0. A label repeated in a
// term reads (or, in the output, writes) the diagonal; other output entries stay 0.
std::vector<double> Naive(const std::string& equation, const std::vector<Tensor>& inputs) {
  const size_t arrow = equation.find("->");
  std::vector<std::string> terms;
  std::string term;
  for (char c : equation.substr(0, arrow)) {
    if (c == ',') {
      terms.push_back(term);
      term.clear();
    } else {
      term.push_back(c);
    }
  }
  terms.push_back(term);
  const std::string output = equation.substr(arrow + 2);
  std::map<char, int64_t> size;
  for (size_t i = 0; i < terms.size(); ++i) {
    for (size_t d = 0; d < terms[i].size(); ++d) {
      int64_t& s = size[terms[i][d]];
      s = std::max(s, inputs[i].shape().dim(static_cast<int>(d)));
    }
  }
  std::string labels;  // output labels first (once each), so the flat index follows the output
  for (char c : output) {
    if (labels.find(c) == std::string::npos) labels.push_back(c);
  }
  for (const auto& [c, s] : size) {
    if (output.find(c) == std::string::npos) labels.push_back(c);
  }
  int64_t out_count = 1;
  for (char c : output) out_count *= size[c];
  std::vector<double> out(out_count, 0);
  std::vector<std::vector<double>> values;
  for (const Tensor& t : inputs) values.push_back(ToDoubles(t));
  for (char c : labels) {
    if (size[c] == 0) return out;  // no assignment at all: every sum is empty
  }
  std::map<char, int64_t> at;
  for (char c : labels) at[c] = 0;
  while (true) {
    double product = 1;
    for (size_t i = 0; i < terms.size(); ++i) {
      int64_t flat = 0;
      for (size_t d = 0; d < terms[i].size(); ++d) {
        const int64_t dim = inputs[i].shape().dim(static_cast<int>(d));
        flat = flat * dim + (dim == 1 ? 0 : at[terms[i][d]]);
      }
      product *= values[i][flat];
    }
    int64_t o = 0;
    for (char c : output) o = o * size[c] + at[c];
    out[o] += product;
    int k = static_cast<int>(labels.size()) - 1;  // next assignment, last label fastest
    for (; k >= 0; --k) {
      if (++at[labels[k]] < size[labels[k]]) break;
      at[labels[k]] = 0;
    }
    if (k < 0) break;
  }
  return out;
}

struct Case {
  std::string equation;  // as einsum() takes it
  std::string naive;     // the same with "..." spelled out in letters
  std::vector<Shape> shapes;
  Shape expected_shape;
};

TEST_CASE("Einsum matches a naive loop for Keras, matmul, outer, transposing and summing cases") {
  const std::vector<Case> cases = {
      // Keras EinsumDense and MultiHeadAttention.
      {"abc,cd->abd", "abc,cd->abd", {{2, 3, 4}, {4, 5}}, {2, 3, 5}},
      {"abc,cde->abde", "abc,cde->abde", {{2, 3, 4}, {4, 2, 3}}, {2, 3, 2, 3}},
      {"aecd,abcd->acbe", "aecd,abcd->acbe", {{2, 3, 2, 4}, {2, 5, 2, 4}}, {2, 2, 5, 3}},
      {"acbe,aecd->abcd", "acbe,aecd->abcd", {{2, 2, 5, 3}, {2, 3, 2, 4}}, {2, 5, 2, 4}},
      {"abcd,cde->abe", "abcd,cde->abe", {{2, 3, 2, 4}, {2, 4, 5}}, {2, 3, 5}},
      {"...b,bc->...c", "xyb,bc->xyc", {{2, 3, 4}, {4, 5}}, {2, 3, 5}},
      // Matrix products, outer products, dot products.
      {"ij,jk->ik", "ij,jk->ik", {{3, 4}, {4, 2}}, {3, 2}},
      {"ij,kj->ik", "ij,kj->ik", {{3, 4}, {2, 4}}, {3, 2}},
      {"bij,bjk->bik", "bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}, {2, 3, 5}},
      {"bij,bjk->bki", "bij,bjk->bki", {{2, 3, 4}, {2, 4, 5}}, {2, 5, 3}},
      {"i,j->ij", "i,j->ij", {{3}, {4}}, {3, 4}},
      {"ab,cd->cabd", "ab,cd->cabd", {{2, 3}, {2, 2}}, {2, 2, 3, 2}},
      {"i,i->", "i,i->", {{5}, {5}}, {}},
      {"bi,bi->b", "bi,bi->b", {{3, 4}, {3, 4}}, {3}},
      // One operand: transposition, sums, identity.
      {"ij->ji", "ij->ji", {{3, 4}}, {4, 3}},
      {"abc->cab", "abc->cab", {{2, 3, 4}}, {4, 2, 3}},
      {"ij->i", "ij->i", {{3, 4}}, {3}},
      {"ij->j", "ij->j", {{3, 4}}, {4}},
      {"ijk->", "ijk->", {{2, 3, 4}}, {}},
      {"ij->ij", "ij->ij", {{3, 4}}, {3, 4}},
      // Labels one operand sums away before the product.
      {"ij,jk->i", "ij,jk->i", {{3, 4}, {4, 2}}, {3}},
      {"abc,d->ad", "abc,d->ad", {{2, 3, 4}, {5}}, {2, 5}},
      // "..." broadcasting: leading, middle, of different ranks, with size-1 dims.
      {"...ij,...jk->...ik", "pqij,pqjk->pqik", {{2, 3, 4, 5}, {2, 3, 5, 2}}, {2, 3, 4, 2}},
      {"...ij,...jk->...ik", "pqij,pqjk->pqik", {{2, 1, 4, 5}, {1, 3, 5, 2}}, {2, 3, 4, 2}},
      {"...ij,...jk->...ik", "pqij,qjk->pqik", {{2, 1, 4, 5}, {3, 5, 2}}, {2, 3, 4, 2}},
      {"...ij,jk->...ik", "ij,jk->ik", {{4, 5}, {5, 2}}, {4, 2}},
      {"i...j,j->...i", "ipqj,j->pqi", {{3, 2, 4, 5}, {5}}, {2, 4, 3}},
      {"...ij->...ji", "pij->pji", {{2, 3, 4}}, {2, 4, 3}},
      {"...ij->...", "pij->p", {{2, 3, 4}}, {2}},
      {"b...,b...->...", "bpq,bpq->pq", {{3, 2, 4}, {3, 2, 4}}, {2, 4}},
      // Issue 37: diagonals (a label repeated within a term), of inputs and of the output.
      {"ii->i", "ii->i", {{3, 3}}, {3}},
      {"ii->", "ii->", {{4, 4}}, {}},
      {"iij->j", "iij->j", {{2, 2, 3}}, {3}},
      {"iji->ij", "iji->ij", {{3, 2, 3}}, {3, 2}},
      {"iii->i", "iii->i", {{3, 3, 3}}, {3}},
      {"ij,jj->i", "ij,jj->i", {{2, 3}, {3, 3}}, {2}},
      {"ii,ij->j", "ii,ij->j", {{3, 3}, {3, 2}}, {2}},
      {"...ii->...i", "pii->pi", {{2, 3, 3}}, {2, 3}},
      {"i->ii", "i->ii", {{3}}, {3, 3}},
      {"ij->jii", "ij->jii", {{3, 2}}, {2, 3, 3}},
      {"i,j->iji", "i,j->iji", {{2}, {3}}, {2, 3, 2}},
      {"ii->ii", "ii->ii", {{3, 3}}, {3, 3}},
      {"ii->", "ii->", {{0, 0}}, {}},
  };
  for (const Case& c : cases) {
    INFO("equation " << c.equation);
    for (DType dtype : {kFloat32, kFloat64}) {
      INFO("dtype " << DTypeName(dtype));
      std::vector<Tensor> inputs;
      for (size_t i = 0; i < c.shapes.size(); ++i) {
        inputs.push_back(Input(c.shapes[i], dtype, static_cast<int>(3 * i)));
      }
      testing::ExpectTensor(einsum(c.equation, inputs), dtype, c.expected_shape,
                            Naive(c.naive, inputs), dtype == kFloat32 ? 1e-5 : 1e-12);
    }
  }
}

TEST_CASE("Einsum matches NumPy's einsum") {
  // testdata/gen_einsum_expected.py.
  const Tensor x =
      testing::MakeTensor(kFloat32, {2, 2, 3}, {1, -2, 3, 0.5, 4, -1, 2, 2, -3, 1, 0, 1});
  const Tensor w = testing::MakeTensor(kFloat32, {3, 2}, {1, 0.5, -1, 2, 0, 3});
  testing::ExpectTensor(einsum("abc,cd->abd", {x, w}), kFloat32, {2, 2, 2},
                        {3, 5.5, -3.5, 5.25, 0, -4, 1, 3.5});
  testing::ExpectTensor(einsum("...b,bc->...c", {x, w}), kFloat32, {2, 2, 2},
                        {3, 5.5, -3.5, 5.25, 0, -4, 1, 3.5});
  testing::ExpectTensor(
      einsum("aecd,abcd->acbe", {x.reshaped({1, 2, 2, 3}), x.reshaped({1, 2, 2, 3})}), kFloat32,
      {1, 2, 2, 2}, {14, -11, -11, 17, 17.25, -0.5, -0.5, 2});
  testing::ExpectTensor(einsum("abc->ca", {x}), kFloat32, {3, 2}, {1.5, 3, 2, 2, 2, -2});
}

// Issue 37: traces and diagonals, as tf.raw_ops.Einsum computes them.
TEST_CASE("Einsum takes and makes diagonals like TensorFlow") {
  const Tensor x = testing::MakeTensor(kFloat32, {3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  testing::ExpectTensor(einsum("ii->i", {x}), kFloat32, {3}, {0, 4, 8});
  testing::ExpectTensor(einsum("ii->", {x}), kFloat32, {}, {12});
  testing::ExpectTensor(einsum("i->ii", {testing::MakeTensor(kFloat32, {2}, {1, 2})}), kFloat32,
                        {2, 2}, {1, 0, 0, 2});
}

TEST_CASE("Einsum of empty operands") {
  const Tensor e = zeros({0, 3}, kFloat32);
  testing::ExpectTensor(einsum("ij,jk->ik", {e, ones({3, 2}, kFloat32)}), kFloat32, {0, 2}, {});
  testing::ExpectTensor(einsum("ji,jk->ik", {e, zeros({0, 2}, kFloat32)}), kFloat32, {3, 2},
                        {0, 0, 0, 0, 0, 0});
  testing::ExpectTensor(einsum("ij->j", {e}), kFloat32, {3}, {0, 0, 0});
}

TEST_CASE("Einsum errors name the op, the equation and the shapes") {
  const Tensor x = Input({2, 3});
  const Tensor y = Input({4, 5});
  ExpectError(
      [&] {
        einsum("ij,jk", {x, y});
      },
      {"Einsum", "equation 'ij,jk' must have exactly one '->'", "einsum_test.cc"});
  ExpectError([&] { einsum("ij,jk->ik", {x}); },
              {"Einsum", "equation 'ij,jk->ik' has 2 input terms but the op has 1 inputs"});
  ExpectError([&] { einsum("i1,jk->ik", {x, y}); }, {"Einsum", "character '1' is not a letter"});
  ExpectError(
      [&] {
        einsum("ij..,jk->ik", {x, y});
      },
      {"Einsum", "a '.' that is not part of an ellipsis"});
  ExpectError([&] { einsum("...i...,jk->ik", {x, y}); }, {"Einsum", "more than one ellipsis"});
  ExpectError([&] { einsum("ij,jk->iz", {x, y}); }, {"Einsum", "output label 'z' is in no input"});
  ExpectError(
      [&] {
        einsum("ij,jk->ik", {x, y});
      },
      {"Einsum", "label 'j' has size 3 in operand 0 but 4 in operand 1", "(2, 3)", "(4, 5)",
       "einsum_test.cc"});
  ExpectError(
      [&] {
        einsum("ijk,jk->i", {x, y});
      },
      {"Einsum", "the term 'ijk' names 3 dims but operand 0 has rank 2"});
  ExpectError([&] { einsum("...ijk->i", {x}); },
              {"Einsum", "the term '...ijk' names 3 dims but operand 0 has rank 2"});
  ExpectError(
      [&] {
        einsum("...j,...j->j", {Input({2, 3}), Input({2, 3})});
      },
      {"Einsum", "dims under '...' but the output term 'j' has no '...'"});
  ExpectError(
      [&] {
        einsum("...j,...j->...j", {Input({2, 3}), Input({4, 3})});
      },
      {"Einsum", "the dims under '...' ((2,) and (4,)) do not broadcast"});
  ExpectError(
      [&] {
        einsum("ii->i", {Input({2, 3})});
      },
      {"Einsum", "label 'i' has size 2 in operand 0 but 3 in operand 0",
       "a diagonal needs equal sizes"});
  ExpectError(
      [&] {
        einsum("i,i,i->i", {Input({3}), Input({3}), Input({3})});
      },
      {"Einsum", "only 1 or 2 operands are supported, got 3"});
  ExpectError([&] { einsum("ij,jk->ik", {Input({2, 3}), Input({3, 2}, kFloat32)}); }, {"Einsum"});
}

}  // namespace
}  // namespace duet
