// The accuracy metrics (nn/metrics/accuracy.h) against Keras 3 (testdata/gen_expected.py), in
// every mode, and their errors.
#include <memory>
#include <vector>

#include "duet.h"
#include "tests/nn/metrics/metric_test_util.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

Tensor Logits() { return MakeTensor(kFloat64, {3, 4}, ModPattern(12, 7, 13, 6, 3)); }
Tensor Logits2() { return MakeTensor(kFloat64, {2, 4}, ModPattern(8, 5, 11, 5, 2)); }

TEST_CASE("Accuracy matches Keras eagerly, traced and in a Session") {
  ExpectKerasResults("accuracy", LabeledCase<metrics::Accuracy>(),
                     {{constant({1, 2, 3, 4}), constant({0, 2, 3, 4})},
                      {constant({{1}, {2}}), constant({{1}, {0}}), constant({0.5, 2.0})},
                      {constant({{1, 2}, {3, 4}}), constant({{1, 0}, {0, 0}})},
                      {},
                      {constant({1.0, 2.0}), constant({1.0, 2.0})}});
}

TEST_CASE("SparseCategoricalAccuracy matches Keras eagerly, traced and in a Session") {
  ExpectKerasResults("sparse_categorical_accuracy",
                     LabeledCase<metrics::SparseCategoricalAccuracy>(),
                     {{constant({1, 3, 0}), Logits()},
                      {constant({{2}, {0}}), Logits2(), constant({0.5, 3.0})},
                      {constant({0.0, 1.0, 2.0}), Logits()},
                      {},
                      {constant({2, 1}), Logits2()}});
}

TEST_CASE("CategoricalAccuracy matches Keras eagerly, traced and in a Session") {
  const auto one_hots = [](std::vector<int> ids) { return one_hot(from_vector<int32_t>(ids), 4); };
  ExpectKerasResults("categorical_accuracy", LabeledCase<metrics::CategoricalAccuracy>(),
                     {{one_hots({1, 3, 0}), Logits()},
                      {one_hots({2, 0}), Logits2(), constant({0.5, 3.0})},
                      {},
                      {one_hots({2, 1}), Logits2()}});
}

TEST_CASE("accuracy metrics have Keras' default names, or the given one") {
  CHECK(metrics::Accuracy().name() == "accuracy");
  CHECK(metrics::SparseCategoricalAccuracy().name() == "sparse_categorical_accuracy");
  CHECK(metrics::CategoricalAccuracy().name() == "categorical_accuracy");
  metrics::SparseCategoricalAccuracy acc("train_acc");
  CHECK(acc.variables()[0].name() == "train_acc/total");
  CHECK(acc(constant({1, 3, 0}), Logits()).item<float>() == Approx(1.0 / 3));
}

TEST_CASE("accuracy errors name the metric, the shapes and the caller's line") {
  metrics::SparseCategoricalAccuracy sparse;
  ExpectError(
      [&] {
        sparse.update_state(constant({1, 2}), Logits());
      },
      {"SparseCategoricalAccuracy", "without its last dim", "(2,)", "(3, 4)", "accuracy_test.cc"});
  metrics::CategoricalAccuracy categorical;
  ExpectError(
      [&] {
        categorical.update_state(zeros({3, 5}), Logits());
      },
      {"CategoricalAccuracy", "same shape", "(3, 5)", "(3, 4)", "accuracy_test.cc"});
  metrics::Accuracy accuracy;
  ExpectError([&] { accuracy.update_state(zeros({3}), zeros({4})); },
              {"Accuracy", "same shape", "(3,)", "(4,)", "accuracy_test.cc"});
}

}  // namespace
}  // namespace duet::testing
