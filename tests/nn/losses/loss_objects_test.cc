// The Keras-style loss objects (nn/losses/loss_objects.h) forward their fields to the functions.
#include "duet.h"
#include "tests/nn/losses/loss_test_util.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

using losses::Reduction;

TEST_CASE("loss objects give their functions' values") {
  const Tensor logits = Logits(kFloat32), probs = Probs(kFloat32), ids = constant({1, 3, 0});
  const Tensor labels = one_hot(ids, 4), targets = Targets(kFloat32);
  const losses::SparseCategoricalCrossentropy sparse{.from_logits = true};
  ExpectTensorNear(sparse(ids, logits), losses::sparse_categorical_crossentropy(ids, logits, true));
  const losses::CategoricalCrossentropy categorical{.label_smoothing = 0.1,
                                                    .reduction = Reduction::kNone};
  ExpectTensorNear(categorical(labels, probs),
                   losses::categorical_crossentropy(labels, probs, false, 0.1, Reduction::kNone));
  const losses::BinaryCrossentropy binary{.from_logits = true, .reduction = Reduction::kSum};
  ExpectTensorNear(binary(labels, logits),
                   losses::binary_crossentropy(labels, logits, true, 0, Reduction::kSum));
  ExpectTensorNear(losses::MeanSquaredError{}(targets, logits),
                   losses::mean_squared_error(targets, logits));
  ExpectTensorNear(losses::MeanAbsoluteError{.reduction = Reduction::kNone}(targets, logits),
                   losses::mean_absolute_error(targets, logits, Reduction::kNone));
  ExpectTensorNear(losses::Huber{.delta = 0.5}(targets, logits),
                   losses::huber(targets, logits, 0.5));
}

TEST_CASE("a loss object's errors name the caller's line") {
  const losses::MeanSquaredError mse;
  ExpectError([&] { mse(zeros({2}), zeros({3})); }, {"mean_squared_error", "loss_objects_test.cc"});
}

}  // namespace
}  // namespace duet::testing
