// The cross-entropy losses (nn/losses/crossentropy.h) against Keras 3 (testdata/gen_expected.py),
// their gradients against finite differences, eager vs traced vs Session, and their errors.
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

Tensor SparseLabels() { return constant({1, 3, 0}); }  // int32
Tensor SparseLabels3d() { return from_vector<int64_t>({0, 2, 1, 1}, {2, 2}); }
Tensor Logits3d(DType dtype) { return MakeTensor(dtype, {2, 2, 3}, ModPattern(12, 7, 13, 6, 3)); }
Tensor OneHot(DType dtype) {
  return MakeTensor(dtype, {3, 4}, {0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0});
}
Tensor SoftLabels(DType dtype) { return MakeTensor(dtype, {3, 4}, ModPattern(12, 3, 5, 0, 4)); }
Tensor BinaryLabels(DType dtype) { return MakeTensor(dtype, {3, 4}, ModPattern(12, 3, 4, 0, 3)); }

// "logits" or "probs", the predictions gen_expected.py pairs with them.
std::string Tag(bool from_logits) { return from_logits ? "logits" : "probs"; }
Tensor Predictions(bool from_logits, DType dtype) {
  return from_logits ? Logits(dtype) : Probs(dtype);
}

TEST_CASE("sparse_categorical_crossentropy matches Keras") {
  for (DType dtype : kFloatTypes) {
    for (bool from_logits : {true, false}) {
      const Tensor x = Predictions(from_logits, dtype);
      const std::string tag = "sparse " + Tag(from_logits);
      ExpectKerasValues(tag, dtype, {3}, [&](Reduction r) {
        return losses::sparse_categorical_crossentropy(SparseLabels(), x, from_logits, r);
      });
      // Labels [batch, 1] are squeezed, as Keras does.
      ExpectKerasValues(tag + " column", dtype, {3}, [&](Reduction r) {
        return losses::sparse_categorical_crossentropy(reshape(SparseLabels(), {3, 1}), x,
                                                       from_logits, r);
      });
      // Rank 3: the fused op sees rows; the losses come back [2, 2].
      const Tensor x3 = from_logits ? Logits3d(dtype) : abs(Logits3d(dtype)) / 2;
      ExpectKerasValues(tag + " 3d", dtype, {2, 2}, [&](Reduction r) {
        return losses::sparse_categorical_crossentropy(SparseLabels3d(), x3, from_logits, r);
      });
    }
  }
}

TEST_CASE("categorical_crossentropy matches Keras, with and without label smoothing") {
  for (DType dtype : kFloatTypes) {
    for (bool from_logits : {true, false}) {
      for (double smoothing : {0.0, 0.2}) {
        for (const std::string labels_tag : {"onehot", "soft"}) {
          const Tensor y = labels_tag == "onehot" ? OneHot(dtype) : SoftLabels(dtype);
          const std::string key = "categorical " + Tag(from_logits) + " " + labels_tag +
                                  (smoothing == 0 ? " smoothing 0.0" : " smoothing 0.2");
          ExpectKerasValues(key, dtype, {3}, [&](Reduction r) {
            return losses::categorical_crossentropy(y, Predictions(from_logits, dtype), from_logits,
                                                    smoothing, r);
          });
        }
      }
    }
  }
}

TEST_CASE("binary_crossentropy matches Keras, with and without label smoothing") {
  for (DType dtype : kFloatTypes) {
    for (bool from_logits : {true, false}) {
      for (double smoothing : {0.0, 0.2}) {
        const std::string key =
            "binary " + Tag(from_logits) + (smoothing == 0 ? " smoothing 0.0" : " smoothing 0.2");
        ExpectKerasValues(key, dtype, {3}, [&](Reduction r) {
          return losses::binary_crossentropy(BinaryLabels(dtype), Predictions(from_logits, dtype),
                                             from_logits, smoothing, r);
        });
      }
    }
  }
}

TEST_CASE("cross-entropy labels of another dtype are cast to the predictions'") {
  const Tensor from_int =
      losses::categorical_crossentropy(cast(OneHot(kFloat32), kInt32), Logits(kFloat64), true);
  ExpectTensorNear(from_int,
                   losses::categorical_crossentropy(OneHot(kFloat64), Logits(kFloat64), true));
  const Tensor from_bool =
      losses::binary_crossentropy(cast(OneHot(kFloat32), kBool), Probs(kFloat32));
  ExpectTensorNear(from_bool, losses::binary_crossentropy(OneHot(kFloat32), Probs(kFloat32)));
  // int64 class ids work as int32 ones do.
  ExpectTensorNear(
      losses::sparse_categorical_crossentropy(cast(SparseLabels(), kInt64), Logits(kFloat32), true),
      losses::sparse_categorical_crossentropy(SparseLabels(), Logits(kFloat32), true));
}

// ---- gradients with respect to the predictions, float64 ----

// Probabilities away from the clip bounds, where the loss is smooth.
Tensor InsideProbs(const Shape& shape, int64_t seed) {
  return RandomInput(shape, seed, 0.05, 0.95);
}

TEST_CASE("cross-entropy gradients match finite differences") {
  for (bool from_logits : {true, false}) {
    INFO(Tag(from_logits));
    const Tensor x = from_logits ? RandomInput({3, 4}, 1, -2, 2) : InsideProbs({3, 4}, 1);
    const Tensor x3 = from_logits ? RandomInput({2, 2, 3}, 2, -2, 2) : InsideProbs({2, 2, 3}, 2);
    const Tensor soft = RandomInput({3, 4}, 3, 0, 1), binary = RandomInput({3, 4}, 4, 0, 1);
    CheckGradients(from_logits ? "SparseSoftmaxCrossEntropyWithLogits" : "Log",
                   [&](const std::vector<Tensor>& in) {
                     return std::vector<Tensor>{losses::sparse_categorical_crossentropy(
                         SparseLabels(), in[0], from_logits, Reduction::kNone)};
                   },
                   {x});
    CheckGradients(from_logits ? "SparseSoftmaxCrossEntropyWithLogits" : "Log",
                   [&](const std::vector<Tensor>& in) {
                     return std::vector<Tensor>{losses::sparse_categorical_crossentropy(
                         SparseLabels3d(), in[0], from_logits)};
                   },
                   {x3});
    CheckGradients(from_logits ? "SoftmaxCrossEntropyWithLogits" : "Log",
                   [&](const std::vector<Tensor>& in) {
                     return std::vector<Tensor>{losses::categorical_crossentropy(
                         soft, in[0], from_logits, 0.1, Reduction::kSum)};
                   },
                   {x});
    CheckGradients(
        from_logits ? "Log1p" : "Log",
        [&](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{losses::binary_crossentropy(binary, in[0], from_logits, 0.1)};
        },
        {x});
  }
}

TEST_CASE("binary_crossentropy from logits has the true gradient sigmoid(x) - z at x = 0") {
  const Tensor z = constant({{0.0, 1.0, 0.25}});
  const Tensor x = zeros({1, 3}, kFloat64);
  GradientTape tape;
  tape.watch(x);
  const Tensor loss = losses::binary_crossentropy(z, x, true, 0, Reduction::kSum);
  // d/dx mean_j(...) = (sigmoid(0) - z) / 3.
  ExpectTensor(tape.gradient(loss, {x})[0], kFloat64, {1, 3}, {0.5 / 3, -0.5 / 3, 0.25 / 3});
}

// ---- eager, traced and Session ----

TEST_CASE("cross-entropy losses agree eagerly, traced and in a Session") {
  for (bool from_logits : {true, false}) {
    INFO(Tag(from_logits));
    const Tensor x = Predictions(from_logits, kFloat32);
    ExpectSameInAllModes(
        [&](const Tensor& y, const Tensor& p) {
          return losses::sparse_categorical_crossentropy(y, p, from_logits);
        },
        SparseLabels(), x);
    ExpectSameInAllModes(
        [&](const Tensor& y, const Tensor& p) {
          return losses::sparse_categorical_crossentropy(y, p, from_logits, Reduction::kNone);
        },
        SparseLabels3d(), from_logits ? Logits3d(kFloat32) : abs(Logits3d(kFloat32)) / 2);
    ExpectSameInAllModes(
        [&](const Tensor& y, const Tensor& p) {
          return losses::categorical_crossentropy(y, p, from_logits, 0.2, Reduction::kNone);
        },
        SoftLabels(kFloat32), x);
    ExpectSameInAllModes(
        [&](const Tensor& y, const Tensor& p) {
          return losses::binary_crossentropy(y, p, from_logits, 0.2, Reduction::kSum);
        },
        BinaryLabels(kFloat32), x);
  }
}

// ---- errors ----

TEST_CASE("cross-entropy errors name the loss, the shapes and the caller's line") {
  ExpectError(
      [] {
        losses::sparse_categorical_crossentropy(constant({1.f, 0.f, 2.f}), Logits(kFloat32));
      },
      {"sparse_categorical_crossentropy", "int32 or int64", "labels: float32 (3,)",
       "predictions: float32 (3, 4)", "crossentropy_test.cc"});
  ExpectError(
      [] {
        losses::sparse_categorical_crossentropy(constant({1, 0}), Logits(kFloat32));
      },
      {"sparse_categorical_crossentropy", "without its last dim", "labels: int32 (2,)", "(3, 4)",
       "crossentropy_test.cc"});
  // A class id outside [0, classes) is found by the op, on the values.
  ExpectError(
      [] {
        losses::sparse_categorical_crossentropy(constant({1, 4, 0}), Logits(kFloat32), true);
      },
      {"SparseSoftmaxCrossEntropyWithLogits", "4"});
  ExpectError(
      [] {
        losses::categorical_crossentropy(OneHot(kFloat32), zeros({3, 5}));
      },
      {"categorical_crossentropy", "same shape", "labels: float32 (3, 4)",
       "predictions: float32 (3, 5)", "crossentropy_test.cc"});
  ExpectError(
      [] {
        losses::binary_crossentropy(OneHot(kFloat32), constant({{1, 2, 3, 4}}));
      },
      {"binary_crossentropy", "floating-point", "predictions: int32 (1, 4)"});
  ExpectError([] { losses::binary_crossentropy(constant(1.f), constant(0.5f)); },
              {"binary_crossentropy", "rank >= 1"});
}

}  // namespace
}  // namespace duet::testing
