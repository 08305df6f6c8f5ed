#include "tests/nn/losses/loss_test_util.h"

#include <catch2/catch.hpp>

#include "tests/test_util.h"

namespace duet::testing {
namespace {

// float32 values go through float32 arithmetic in both engines, with different orders.
double Tolerance(DType dtype) { return dtype == kFloat32 ? 2e-6 : 1e-12; }

// A placeholder for `t` with every dim but the last (the classes) unknown, as a batch is.
Tensor UnknownDims(const Tensor& t) {
  Shape shape = Shape::Unknown(t.rank());
  if (t.rank() > 0) shape.set_dim(t.rank() - 1, t.shape().dim(t.rank() - 1));
  return placeholder(t.dtype(), shape);
}

Tensor RunInGraph(const LossFn& loss, const Tensor& labels, const Tensor& predictions,
                  bool known_shapes) {
  Graph g;
  Tensor y, p, out;
  {
    GraphScope scope(g);
    y = known_shapes ? placeholder(labels.dtype(), labels.shape()) : UnknownDims(labels);
    p = known_shapes ? placeholder(predictions.dtype(), predictions.shape())
                     : UnknownDims(predictions);
    out = loss(y, p);
  }
  Session sess(g);
  return sess.run({{y, labels}, {p, predictions}}, {out})[0];
}

}  // namespace

std::vector<double> KerasLoss(const std::string& key) {
  return FixtureValues(Testdata("nn/losses", "losses_expected.txt"), key);
}

Tensor Logits(DType dtype) { return MakeTensor(dtype, {3, 4}, ModPattern(12, 7, 13, 6, 3)); }
Tensor Probs(DType dtype) { return MakeTensor(dtype, {3, 4}, ModPattern(12, 5, 11, 0, 10)); }
Tensor Targets(DType dtype) { return MakeTensor(dtype, {3, 4}, ModPattern(12, 5, 11, 5, 2)); }

void ExpectKerasValues(const std::string& key, DType dtype, const Shape& per_sample_shape,
                       const std::function<Tensor(losses::Reduction)>& reduced) {
  const std::string prefix = key + " " + std::string(DTypeName(dtype));
  INFO(prefix);
  const std::vector<double> none = KerasLoss(prefix + " none");
  ExpectTensor(reduced(losses::Reduction::kNone), dtype, per_sample_shape, none, Tolerance(dtype));
  ExpectTensor(reduced(losses::Reduction::kSum), dtype, {}, KerasLoss(prefix + " sum"),
               Tolerance(dtype));
  ExpectTensor(reduced(losses::Reduction::kMean), dtype, {}, KerasLoss(prefix + " mean"),
               Tolerance(dtype));
}

void ExpectSameInAllModes(const LossFn& loss, const Tensor& labels, const Tensor& predictions) {
  const Tensor eager = loss(labels, predictions);
  auto traced = duet::function([&loss](Tensor y, Tensor p) { return loss(y, p); });
  ExpectTensorNear(traced(labels, predictions), eager, 1e-6);
  ExpectTensorNear(RunInGraph(loss, labels, predictions, /*known_shapes=*/true), eager, 1e-6);
  ExpectTensorNear(RunInGraph(loss, labels, predictions, /*known_shapes=*/false), eager, 1e-6);
}

}  // namespace duet::testing
