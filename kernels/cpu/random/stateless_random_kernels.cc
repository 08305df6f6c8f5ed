// CPU kernels of the stateless random ops. Block g of the output comes from Philox counter
// (start + g), so chunks run in parallel and the numbers do not depend on the split.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "kernels/common/philox_seed.h"
#include "kernels/common/random_distributions.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// Blocks per parallel chunk: each block costs ~50 ns (Philox plus Box-Muller).
constexpr int64_t kMinBlocksPerChunk = 1024;

// Fills out[0, n) with Dist's values, block by block; the last block may be cut short.
template <typename Dist, typename T>
void FillBlocks(const philox::Stream& stream, T* out, int64_t n, ThreadPool& pool) {
  constexpr int k = Dist::kPerBlock;
  const int64_t blocks = (n + k - 1) / k;
  pool.ParallelFor(blocks, kMinBlocksPerChunk, [&](int64_t begin, int64_t end) {
    philox::Counter counter = philox::Advance(stream.counter, begin);
    T values[k];
    for (int64_t b = begin; b < end; ++b) {
      Dist::Fill(philox::Philox4x32(counter, stream.key), values);
      counter = philox::Advance(counter, 1);
      const int64_t offset = b * k;
      std::copy(values, values + std::min<int64_t>(k, n - offset), out + offset);
    }
  });
}

// out = out * scale + shift, as two rounded operations in T (TensorFlow's Mul then AddV2). The
// two passes are separate ParallelFor calls, opaque to the optimizer, so GCC (which contracts
// a * b + c into an FMA by default in C++) cannot fuse them and change the last bit.
template <typename T>
void ScaleAndShift(T* out, int64_t n, T scale, T shift, ThreadPool& pool) {
  constexpr int64_t kMinChunk = 1 << 16;
  pool.ParallelFor(n, kMinChunk, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] *= scale;
  });
  pool.ParallelFor(n, kMinChunk, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] += shift;
  });
}

// Fills output 0 with Dist's values for the seed input.
template <template <typename> class Dist, typename T>
void Generate(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  FillBlocks<Dist<T>>(SeedStream(ctx.input(1)), out.mutable_data<T>(), out.num_elements(),
                      ctx.pool());
}

template <template <typename> class Dist, typename T>
absl::Status StatelessKernel(KernelContext& ctx) {
  Generate<Dist, T>(ctx);
  return absl::OkStatus();
}

// rnd * stddev + mean.
template <typename T>
absl::Status NormalScaledKernel(KernelContext& ctx) {
  Generate<philox::Normal, T>(ctx);
  Tensor& out = ctx.output(0);
  const T mean = ctx.input(2).data<T>()[0], stddev = ctx.input(3).data<T>()[0];
  ScaleAndShift<T>(out.mutable_data<T>(), out.num_elements(), stddev, mean, ctx.pool());
  return absl::OkStatus();
}

// rnd * (maxval - minval) + minval.
template <typename T>
absl::Status UniformScaledKernel(KernelContext& ctx) {
  Generate<philox::Uniform, T>(ctx);
  Tensor& out = ctx.output(0);
  const T minval = ctx.input(2).data<T>()[0], maxval = ctx.input(3).data<T>()[0];
  ScaleAndShift<T>(out.mutable_data<T>(), out.num_elements(), maxval - minval, minval, ctx.pool());
  return absl::OkStatus();
}

const KernelRegistrar kNormalF32("StatelessRandomNormal", DeviceType::kCpu, {kFloat32},
                                 {StatelessKernel<philox::Normal, float>});
const KernelRegistrar kNormalF64("StatelessRandomNormal", DeviceType::kCpu, {kFloat64},
                                 {StatelessKernel<philox::Normal, double>});
const KernelRegistrar kUniformF32("StatelessRandomUniform", DeviceType::kCpu, {kFloat32},
                                  {StatelessKernel<philox::Uniform, float>});
const KernelRegistrar kUniformF64("StatelessRandomUniform", DeviceType::kCpu, {kFloat64},
                                  {StatelessKernel<philox::Uniform, double>});
const KernelRegistrar kNormalScaledF32("_StatelessRandomNormalScaled", DeviceType::kCpu, {kFloat32},
                                       {NormalScaledKernel<float>});
const KernelRegistrar kNormalScaledF64("_StatelessRandomNormalScaled", DeviceType::kCpu, {kFloat64},
                                       {NormalScaledKernel<double>});
const KernelRegistrar kUniformScaledF32("_StatelessRandomUniformScaled", DeviceType::kCpu,
                                        {kFloat32}, {UniformScaledKernel<float>});
const KernelRegistrar kUniformScaledF64("_StatelessRandomUniformScaled", DeviceType::kCpu,
                                        {kFloat64}, {UniformScaledKernel<double>});

}  // namespace
}  // namespace duet
