// autodiff_bench: what recording on a GradientTape and a whole training step cost in duet.
//
//   bazel run //tools/bench:autodiff_bench [-- --breakdown]
//
// Prints `name<TAB>value<TAB>unit` lines (see bench_util.h):
//   - duet.add_4x4_f32_taped / duet.add_4x4_f32_untaped: ns per 4x4 float32 add, with a
//     GradientTape recording it (its input watched) and without any tape, repetitions
//     interleaved. A tape records kAddsPerTape adds and is then dropped, so the per-add figure
//     includes the tape's construction and the release of its entries, amortized.
//   - duet.mlp_step_f32: us per training step of a 784-256-10 MLP on a batch of 64 (forward,
//     GradientTape::gradient for the 4 Variables, SGD update with resource_apply_gradient_descent);
//     duet.mlp_step_matmuls_f32: us of the step's 6 matmuls alone (2 forward, 4 backward, same
//     shapes and transpose flags, no tape), the floor the step is compared with. Interleaved.
// With --breakdown it also prints where the step's time goes (forward alone, forward while a
// tape records, forward + backward, the update alone, each matmul). `--profile_mlp_step N` and
// `--profile_taped_add N` run untimed loops for perf or callgrind.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "duet.h"
#include "tools/bench/bench_util.h"

namespace duet {
namespace {

using duet_bench::DoNotOptimize;
using duet_bench::InterleavedMedianSecondsPerCall;
using duet_bench::MedianSecondsPerCall;
using duet_bench::Print;

constexpr double kNsPerSecond = 1e9;
constexpr double kUsPerSecond = 1e6;

// Adds recorded per tape in the taped-add case (a tape lives for one step of a program, so it
// records tens to thousands of ops before it is released).
constexpr int kAddsPerTape = 100;

// The MLP of the issue: 784-256-10, batch 64, float32.
constexpr int64_t kBatch = 64, kIn = 784, kHidden = 256, kClasses = 10;
constexpr float kLearningRate = 0.01f;

// A float32 tensor of `shape` with varied values, so no kernel can shortcut on zeros.
Tensor Ramp(const Shape& shape) {
  std::vector<float> values(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7) * 0.25f - 0.5f;
  return from_vector(values, shape);
}

void TapedAdd() {
  const Tensor a = Ramp({4, 4}), b = Ramp({4, 4});
  const std::vector<double> seconds = InterleavedMedianSecondsPerCall({
      [&] {
        GradientTape tape;
        tape.watch(a);
        for (int i = 0; i < kAddsPerTape; ++i) {
          Tensor out = a + b;
          DoNotOptimize(out);
        }
      },
      [&] {
        for (int i = 0; i < kAddsPerTape; ++i) {
          Tensor out = a + b;
          DoNotOptimize(out);
        }
      },
  });
  Print("duet.add_4x4_f32_taped", seconds[0] / kAddsPerTape * kNsPerSecond, "ns");
  Print("duet.add_4x4_f32_untaped", seconds[1] / kAddsPerTape * kNsPerSecond, "ns");
}

class Mlp {
 public:
  Mlp()
      : x_(random_normal({kBatch, kIn}, /*seed=*/1)),
        labels_(cast(floor(random_uniform({kBatch}, /*seed=*/2, kFloat32, 0, kClasses)), kInt64)),
        w1_(random_normal({kIn, kHidden}, /*seed=*/3, kFloat32, 0, 0.05), "w1"),
        b1_(zeros({kHidden}), "b1"),
        w2_(random_normal({kHidden, kClasses}, /*seed=*/4, kFloat32, 0, 0.05), "w2"),
        b2_(zeros({kClasses}), "b2"),
        variables_{w1_, b1_, w2_, b2_} {}

  Tensor Forward() const {
    const Tensor h = relu(bias_add(matmul(x_, w1_), b1_));
    const Tensor logits = bias_add(matmul(h, w2_), b2_);
    return reduce_mean(sparse_softmax_cross_entropy_with_logits(labels_, logits));
  }

  std::vector<Tensor> Gradients(Tensor* loss = nullptr) const {
    GradientTape tape;
    const Tensor l = Forward();
    if (loss != nullptr) *loss = l;
    return tape.gradient(l, variables_);
  }

  // The SGD update as an optimizer does it: one fused pass per variable (PyTorch's peers use
  // p.add_(grad, alpha=-lr), torch.optim.SGD's form).
  void Update(const std::vector<Tensor>& grads) const {
    const Tensor rate = constant(kLearningRate);
    for (size_t i = 0; i < variables_.size(); ++i) {
      resource_apply_gradient_descent(variables_[i].handle(), rate, grads[i]);
    }
  }

  void Step(Tensor* loss = nullptr) const { Update(Gradients(loss)); }

  // The non-matmul ops the backward pass and the update run, each alone, as the gradient
  // functions call them (for --breakdown).
  void BackwardPieces() const {
    const Tensor logits = bias_add(matmul(relu(bias_add(matmul(x_, w1_), b1_)), w2_), b2_);
    const Tensor h = relu(matmul(x_, w1_.value()));
    const Tensor dz = Ramp({kBatch, kHidden}), g1 = Ramp({kIn, kHidden});
    const Tensor lr = scalar(kLearningRate, kFloat32);
    const Tensor zero_delta = g1 * 0.0f;  // leaves w1 as it is
    const std::vector<std::pair<const char*, std::function<void()>>> pieces = {
        {"sce_forward",
         [&] { DoNotOptimize(sparse_softmax_cross_entropy_with_logits(labels_, logits)); }},
        {"softmax_64x10", [&] { DoNotOptimize(softmax(logits)); }},
        {"one_hot_64x10", [&] { DoNotOptimize(one_hot(labels_, kClasses)); }},
        {"relu_grad_64x256", [&] { DoNotOptimize(relu_grad(dz, h)); }},
        {"bias_grad_sum_64x256", [&] { DoNotOptimize(reduce_sum(dz, 0)); }},
        {"mul_lr_784x256", [&] { DoNotOptimize(g1 * lr); }},
        {"assign_sub_784x256", [&] { w1_.assign_sub(zero_delta); }},
    };
    std::vector<std::function<void()>> fns;
    for (const auto& piece : pieces) fns.push_back(piece.second);
    const std::vector<double> seconds = InterleavedMedianSecondsPerCall(fns);
    for (size_t i = 0; i < pieces.size(); ++i) {
      Print(std::string("duet.mlp_piece_") + pieces[i].first, seconds[i] * kUsPerSecond, "us");
    }
  }

  // The step's matmuls alone: forward x.w1 and h.w2, backward (the MatMul gradient computes
  // both inputs' gradients) dlogits.w2^T, h^T.dlogits, dz1.w1^T and x^T.dz1.
  class Matmuls {
   public:
    explicit Matmuls(const Mlp& mlp)
        : x_(mlp.x_),
          w1_(mlp.w1_.value()),
          w2_(mlp.w2_.value()),
          h_(relu(matmul(x_, w1_))),
          dlogits_(Ramp({kBatch, kClasses})),
          dz1_(Ramp({kBatch, kHidden})) {}

    // The six products, in the order above; `skip_dx` leaves out dz1.w1^T, the gradient of the
    // input x, which no variable needs.
    std::vector<std::function<void()>> Products(bool skip_dx = false) const {
      std::vector<std::function<Tensor()>> products = {
          [this] { return matmul(x_, w1_); },
          [this] { return matmul(h_, w2_); },
          [this] { return matmul(dlogits_, w2_, false, true); },
          [this] { return matmul(h_, dlogits_, true, false); },
          [this] { return matmul(dz1_, w1_, false, true); },
          [this] { return matmul(x_, dz1_, true, false); },
      };
      if (skip_dx) products.erase(products.begin() + 4);
      std::vector<std::function<void()>> fns;
      for (std::function<Tensor()>& product : products) {
        fns.push_back([product = std::move(product)] {
          Tensor out = product();
          DoNotOptimize(out);
        });
      }
      return fns;
    }

   private:
    Tensor x_, w1_, w2_, h_, dlogits_, dz1_;
  };

 private:
  Tensor x_, labels_;
  Variable w1_, b1_, w2_, b2_;
  std::vector<Variable> variables_;
};

void MlpStep(bool breakdown) {
  const Mlp mlp;
  Tensor loss;
  mlp.Step(&loss);
  const float first_loss = loss.item<float>();
  const Mlp::Matmuls matmuls(mlp);
  const std::vector<std::function<void()>> products = matmuls.Products();
  const std::vector<double> seconds = InterleavedMedianSecondsPerCall({
      [&] { mlp.Step(); },
      [&] {
        for (const auto& product : products) product();
      },
  });
  Print("duet.mlp_step_f32", seconds[0] * kUsPerSecond, "us");
  Print("duet.mlp_step_matmuls_f32", seconds[1] * kUsPerSecond, "us");
  mlp.Step(&loss);
  // Training on one fixed batch must lower the loss; anything else means the step is wrong.
  std::fprintf(stderr, "# mlp loss: %.4f at the first step, %.4f after the timed steps\n",
               first_loss, loss.item<float>());
  if (!breakdown) return;

  const std::vector<double> parts = InterleavedMedianSecondsPerCall({
      [&] {
        Tensor l = mlp.Forward();
        DoNotOptimize(l);
      },
      [&] {
        GradientTape tape;
        Tensor l = mlp.Forward();
        DoNotOptimize(l);
      },
      [&] {
        std::vector<Tensor> g = mlp.Gradients();
        DoNotOptimize(g);
      },
      [&] { mlp.Step(); },
  });
  const std::vector<Tensor> grads = mlp.Gradients();
  // The update alone applies the same gradients each time (the variables drift; harmless here).
  const double update = MedianSecondsPerCall([&] { mlp.Update(grads); });
  Print("duet.mlp_forward_f32", parts[0] * kUsPerSecond, "us");
  Print("duet.mlp_forward_taped_f32", parts[1] * kUsPerSecond, "us");
  Print("duet.mlp_forward_backward_f32", parts[2] * kUsPerSecond, "us");
  Print("duet.mlp_backward_f32_difference", (parts[2] - parts[1]) * kUsPerSecond, "us");
  Print("duet.mlp_step_f32_breakdown_run", parts[3] * kUsPerSecond, "us");
  Print("duet.mlp_update_f32", update * kUsPerSecond, "us");
  // Each product alone (interleaved), and the five a step needs (not the gradient of x).
  const std::vector<double> each = InterleavedMedianSecondsPerCall(products);
  const char* const names[] = {"x.w1", "h.w2", "dlogits.w2T", "hT.dlogits", "dz1.w1T", "xT.dz1"};
  for (size_t i = 0; i < each.size(); ++i) {
    Print(std::string("duet.mlp_matmul_") + names[i], each[i] * kUsPerSecond, "us");
  }
  const std::vector<std::function<void()>> needed = matmuls.Products(/*skip_dx=*/true);
  const std::vector<double> floors = InterleavedMedianSecondsPerCall({
      [&] {
        for (const auto& product : needed) product();
      },
      [&] { mlp.Step(); },
  });
  Print("duet.mlp_step_matmuls_without_dx_f32", floors[0] * kUsPerSecond, "us");
  Print("duet.mlp_step_f32_breakdown_run_2", floors[1] * kUsPerSecond, "us");
  mlp.BackwardPieces();
}

// Untimed loops for perf or callgrind: N MLP steps, or N taped 4x4 adds (kAddsPerTape a tape).
void ProfileMlpStep(int64_t steps) {
  const Mlp mlp;
  for (int64_t i = 0; i < steps; ++i) mlp.Step();
}
void ProfileTapedAdd(int64_t adds) {
  const Tensor a = Ramp({4, 4}), b = Ramp({4, 4});
  for (int64_t i = 0; i < adds; i += kAddsPerTape) {
    GradientTape tape;
    tape.watch(a);
    for (int j = 0; j < kAddsPerTape; ++j) {
      Tensor out = a + b;
      DoNotOptimize(out);
    }
  }
}

}  // namespace
}  // namespace duet

int main(int argc, char** argv) {
  // `--profile_mlp_step N` / `--profile_taped_add N`: untimed loops for perf or callgrind.
  if (argc == 3 && std::strcmp(argv[1], "--profile_mlp_step") == 0) {
    duet::ProfileMlpStep(std::atoll(argv[2]));
    return 0;
  }
  if (argc == 3 && std::strcmp(argv[1], "--profile_taped_add") == 0) {
    duet::ProfileTapedAdd(std::atoll(argv[2]));
    return 0;
  }
  const bool breakdown = argc == 2 && std::strcmp(argv[1], "--breakdown") == 0;
  duet::TapedAdd();
  duet::MlpStep(breakdown);
  return 0;
}
