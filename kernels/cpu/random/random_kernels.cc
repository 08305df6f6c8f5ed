// CPU kernels of the random ops: the stateless ones (the stream from a seed pair) and the
// stateful ones (the stream from a generator state variable, which they advance). Block g of the
// output comes from Philox counter (start + g), so chunks run in parallel and the numbers do not
// depend on the split.
#include <algorithm>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "core/resource.h"
#include "kernels/common/philox_seed.h"
#include "kernels/common/random_distributions.h"
#include "kernels/common/variable_update.h"
#include "kernels/kernel_registry.h"
#include "ops/random/random_attrs.h"

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

// The Philox stream a generator state (counter low, counter high, key; int64 each) holds, as
// TensorFlow's GetPhiloxRandomFromCounterKeyMem reads it.
philox::Stream StateStream(const int64_t* state) {
  auto lo = [](int64_t v) { return static_cast<uint32_t>(static_cast<uint64_t>(v)); };
  auto hi = [](int64_t v) { return static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32); };
  return {{lo(state[2]), hi(state[2])}, {lo(state[0]), hi(state[0]), lo(state[1]), hi(state[1])}};
}

// StatefulStandardNormalV2 / StatefulUniform: fills the output from the state variable's stream
// and advances its counter by the number of samples (TensorFlow's UpdateVariableAndFill_Philox:
// Skip(output size)), under the variable's lock. Note [Variables copy on write]: the new state is
// written in place only when no reader holds the old one.
template <template <typename> class Dist, typename T>
absl::Status StatefulKernel(KernelContext& ctx) {
  VariableResource* variable = VariableOf(ctx.input(0));
  if (variable == nullptr) return absl::InvalidArgumentError("resource is not a variable handle");
  const int64_t algorithm = ctx.input(1).data<int64_t>()[0];
  if (algorithm != kPhiloxAlgorithm) {
    return absl::InvalidArgumentError(absl::StrCat(
        "algorithm ", algorithm, " is not supported; only Philox (", kPhiloxAlgorithm, ") is"));
  }
  std::lock_guard<std::mutex> lock(variable->mu);
  DUET_RETURN_IF_ERROR(CheckValueDevice(*variable, ctx.device()));  // read here, before its update
  const Tensor& state = variable->value;
  if (!state.defined() || state.dtype() != kInt64 || state.rank() != 1 ||
      state.num_elements() < kPhiloxStateSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "variable '", variable->name, "' is not a Philox state (an int64 vector of at least ",
        kPhiloxStateSize, " elements)",
        state.defined()
            ? absl::StrCat(", it holds ", DTypeName(state.dtype()), " ", state.shape().str())
            : ""));
  }
  philox::Stream stream = StateStream(state.data<int64_t>());
  Tensor& out = ctx.output(0);
  FillBlocks<Dist<T>>(stream, out.mutable_data<T>(), out.num_elements(), ctx.pool());
  DUET_ASSIGN_OR_RETURN(Tensor next, WritableValue(*variable, ctx.device(), /*copy_value=*/true));
  const philox::Counter counter =
      philox::Advance(stream.counter, static_cast<uint64_t>(out.num_elements()));
  int64_t* words = next.mutable_data<int64_t>();
  words[0] = static_cast<int64_t>(uint64_t{counter[0]} | (uint64_t{counter[1]} << 32));
  words[1] = static_cast<int64_t>(uint64_t{counter[2]} | (uint64_t{counter[3]} << 32));
  variable->value = std::move(next);
  return absl::OkStatus();
}

const KernelRegistrar kStatefulNormalF32("StatefulStandardNormalV2", DeviceType::kCpu, {kFloat32},
                                         {StatefulKernel<philox::Normal, float>});
const KernelRegistrar kStatefulNormalF64("StatefulStandardNormalV2", DeviceType::kCpu, {kFloat64},
                                         {StatefulKernel<philox::Normal, double>});
const KernelRegistrar kStatefulUniformF32("StatefulUniform", DeviceType::kCpu, {kFloat32},
                                          {StatefulKernel<philox::Uniform, float>});
const KernelRegistrar kStatefulUniformF64("StatefulUniform", DeviceType::kCpu, {kFloat64},
                                          {StatefulKernel<philox::Uniform, double>});

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
