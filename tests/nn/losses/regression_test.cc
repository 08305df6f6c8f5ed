// The regression losses (nn/losses/regression.h) against Keras 3 (testdata/gen_expected.py), their
// gradients against finite differences, eager vs traced vs Session, and their errors.
#include <string>
#include <vector>

#include "duet.h"
#include "tests/gradients/gradient_checker.h"
#include "tests/nn/losses/loss_test_util.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

using losses::Reduction;

const DType kFloatTypes[] = {kFloat32, kFloat64};

TEST_CASE("mean_squared_error, mean_absolute_error and huber match Keras") {
  for (DType dtype : kFloatTypes) {
    const Tensor y = Targets(dtype), p = Logits(dtype);
    ExpectKerasValues("mse", dtype, {3},
                      [&](Reduction r) { return losses::mean_squared_error(y, p, r); });
    ExpectKerasValues("mae", dtype, {3},
                      [&](Reduction r) { return losses::mean_absolute_error(y, p, r); });
    ExpectKerasValues("huber delta 1", dtype, {3},
                      [&](Reduction r) { return losses::huber(y, p, 1.0, r); });
    ExpectKerasValues("huber delta 0.5", dtype, {3},
                      [&](Reduction r) { return losses::huber(y, p, 0.5, r); });
    // Labels [3] against predictions [3, 1]: the labels get the trailing dim, one loss per row.
    const Tensor column_labels = slice(y, {0, 0}, {3, 1}), column = slice(p, {0, 0}, {3, 1});
    ExpectKerasValues("mse column", dtype, {3}, [&](Reduction r) {
      return losses::mean_squared_error(reshape(column_labels, {3}), column, r);
    });
  }
}

TEST_CASE("regression labels of another dtype are cast to the predictions'") {
  ExpectTensor(losses::mean_absolute_error(constant({{1, 2}}), constant({{1.5, 1.0}})), kFloat64,
               {}, {0.75});
  ExpectTensor(losses::mean_squared_error(constant({{true, false}}), constant({{0.5f, 0.5f}}),
                                          Reduction::kNone),
               kFloat32, {1}, {0.25});
}

TEST_CASE("regression loss gradients match finite differences") {
  const Tensor y = RandomInput({3, 4}, 11), p = RandomInput({3, 4}, 12, -2, 2);
  CheckGradients("Square",
                 [&](const std::vector<Tensor>& in) {
                   return std::vector<Tensor>{losses::mean_squared_error(y, in[0])};
                 },
                 {p});
  CheckGradients(
      "Abs",
      [&](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{losses::mean_absolute_error(y, in[0], Reduction::kNone)};
      },
      {p});
  // delta 0.5: errors on both sides of the switch from quadratic to linear.
  CheckGradients("Abs",
                 [&](const std::vector<Tensor>& in) {
                   return std::vector<Tensor>{losses::huber(y, in[0], 0.5, Reduction::kSum)};
                 },
                 {p});
}

TEST_CASE("regression losses agree eagerly, traced and in a Session") {
  const Tensor y = Targets(kFloat32), p = Logits(kFloat32);
  ExpectSameInAllModes(
      [](const Tensor& a, const Tensor& b) { return losses::mean_squared_error(a, b); }, y, p);
  ExpectSameInAllModes(
      [](const Tensor& a, const Tensor& b) {
        return losses::mean_absolute_error(a, b, Reduction::kNone);
      },
      y, p);
  ExpectSameInAllModes(
      [](const Tensor& a, const Tensor& b) { return losses::huber(a, b, 0.5, Reduction::kSum); }, y,
      p);
}

TEST_CASE("a node name given to a loss names its result node") {
  for (Reduction r : {Reduction::kNone, Reduction::kMean}) {
    Graph g;
    Tensor loss;
    {
      GraphScope scope(g);
      loss = losses::huber(Targets(kFloat32), Logits(kFloat32), 1.0, r, "my_loss");
    }
    Session sess(g);
    ExpectTensorNear(sess.run({}, {"my_loss:0"})[0], sess.run({}, {loss})[0]);
    ExpectTensorNear(sess.run({}, {"my_loss:0"})[0],
                     losses::huber(Targets(kFloat32), Logits(kFloat32), 1.0, r));
  }
}

TEST_CASE("regression loss errors name the loss, the shapes and the caller's line") {
  ExpectError(
      [] {
        losses::mean_squared_error(zeros({3, 4}), zeros({4, 3}));
      },
      {"mean_squared_error", "same shape", "labels: float32 (3, 4)", "predictions: float32 (4, 3)",
       "regression_test.cc"});
  ExpectError(
      [] {
        losses::huber(zeros({2}), zeros({2, 2}));
      },
      {"huber", "same shape", "(2,)", "(2, 2)", "regression_test.cc"});
  ExpectError(
      [] {
        losses::mean_absolute_error(zeros({2}), constant({1, 2}));
      },
      {"mean_absolute_error", "floating-point", "predictions: int32 (2,)"});
  // In a graph the shapes are checked when the loss is built.
  Graph g;
  GraphScope scope(g);
  const Tensor labels = placeholder(kFloat32, Shape{-1, 3});
  ExpectError(
      [&] {
        losses::mean_squared_error(labels, placeholder(kFloat32, Shape{-1, 4}));
      },
      {"mean_squared_error", "(None, 3)", "(None, 4)", "regression_test.cc"});
}

}  // namespace
}  // namespace duet::testing
