// fusion_bench: what the fused ops the fusion pass produces save, eagerly, against the same work
// done op by op.
//
//   bazel run -c opt //tools/bench:fusion_bench
//
// Prints `name<TAB>value<TAB>unit` lines (see bench_util.h): for each case the microseconds of
// _FusedMatMul / _FusedConv2D (bias and activation inside oneDNN's primitive), of MatMul / Conv2D
// -> BiasAdd -> Relu as three ops, and the ratio unfused / fused, timed interleaved in one run.
// Timings are medians of several repetitions (DUET_BENCH_REPS, DUET_BENCH_MIN_MS override).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/constant.h"
#include "core/tensor.h"
#include "ops/math/math_ops.h"
#include "ops/nn/fused_nn_ops.h"
#include "ops/nn/nn_ops.h"
#include "tools/bench/bench_util.h"

namespace duet {
namespace {

using duet_bench::DoNotOptimize;
using duet_bench::InterleavedMedianSecondsPerCall;
using duet_bench::Print;

constexpr double kUsPerSecond = 1e6;

// A float32 tensor of `shape` with varied values of both signs, so Relu has work to do.
Tensor Ramp(const Shape& shape) {
  std::vector<float> values(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7) * 0.25f - 0.75f;
  return from_vector(values, shape);
}

// Times `fused` against `unfused` (interleaved) and prints both and their ratio.
void Compare(const std::string& name, std::function<Tensor()> fused,
             std::function<Tensor()> unfused) {
  const std::vector<double> seconds = InterleavedMedianSecondsPerCall({
      [&] {
        Tensor out = fused();
        DoNotOptimize(out);
      },
      [&] {
        Tensor out = unfused();
        DoNotOptimize(out);
      },
  });
  Print("fused." + name, seconds[0] * kUsPerSecond, "us");
  Print("unfused." + name, seconds[1] * kUsPerSecond, "us");
  Print("ratio.unfused_over_fused." + name, seconds[1] / seconds[0], "x");
}

// A dense layer relu(x w + b), x [batch, in], w [in, out].
void DenseCase(int64_t batch, int64_t in, int64_t out) {
  const Tensor x = Ramp({batch, in}), w = Ramp({in, out}), b = Ramp({out});
  Compare(
      "dense_" + std::to_string(batch) + "x" + std::to_string(in) + "x" + std::to_string(out) +
          "_relu_f32",
      [&] {
        return fused_matmul(x, w, {b}, {"BiasAdd", "Relu"});
      },
      [&] { return relu(bias_add(matmul(x, w), b)); });
}

// A 3x3 SAME convolution layer relu(conv(x, f) + b), x NHWC, f HWIO.
void ConvCase(int64_t batch, int64_t size, int64_t in_c, int64_t out_c) {
  const Tensor x = Ramp({batch, size, size, in_c}), f = Ramp({3, 3, in_c, out_c}),
               b = Ramp({out_c});
  Compare(
      "conv3x3_" + std::to_string(batch) + "x" + std::to_string(size) + "x" + std::to_string(size) +
          "x" + std::to_string(in_c) + "_to_" + std::to_string(out_c) + "_relu_f32",
      [&] {
        return fused_conv2d(x, f, {b}, {"BiasAdd", "Relu"}, {1}, "SAME");
      },
      [&] { return relu(bias_add(conv2d(x, f, {1}, "SAME"), b)); });
}

}  // namespace
}  // namespace duet

int main() {
  duet::DenseCase(1, 64, 64);
  duet::DenseCase(64, 784, 256);
  duet::DenseCase(256, 1024, 1024);
  duet::ConvCase(1, 28, 16, 32);
  duet::ConvCase(8, 56, 64, 64);
  return 0;
}
