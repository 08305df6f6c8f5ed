// duet on a CUDA GPU (issue "CUDA device support"; tools/bench/torch_gpu_bench.py is the PyTorch
// peer, with the same cases and shapes). Everything runs on cuda:0:
//   - matmul_4096_f32 / _bf16: a 4096x4096x4096 matmul (cuBLAS; TF32 off), TFLOP/s.
//   - conv_bn_relu_32x56x56x64_f32: 3x3 SAME Conv2D 64->64 on NHWC 32x56x56x64, inference
//     FusedBatchNormV3, Relu; us per block, eager (and traced, the parameters as arguments).
//   - chain_50_64x64_f32: function_bench's 50-op elementwise chain (elementwise_chain.h), eager
//     (50 kernels) vs traced (one _FusedElementwise kernel compiled by NVRTC), us per call.
//   - mlp_train_step_b64_f32 / _b256: function_bench's 784-256-10 MLP SGD step, eager vs traced.
//   - add_4_f32_launch: 10,000 eager `x + y` on 4-element tensors, then one synchronize: the host's
//     cost per op (target <= 5 us), since the GPU's share of such an op is a few microseconds.
// Lines are duet.<case> (eager) and duet_traced.<case>, ratio.<case> = eager / traced. Each timed
// batch starts and ends with the device idle (see GpuSecondsPerCall). A failing case prints
// `# <case> FAILED: <why>` and the run goes on to the next (the exit status is then 1); stdout is
// line-buffered, so a crash loses no line printed before it. Without a GPU, or when built without
// --config=cuda, the program prints why it skips and exits 0.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "duet.h"
#include "kernels/cuda/cuda_context.h"
#include "tools/bench/bench_util.h"
#include "tools/bench/elementwise_chain.h"

namespace duet {
namespace {

using duet_bench::DoNotOptimize;
using duet_bench::Print;

// DUET_CUDA comes from //kernels/cuda:duet_cuda_define under --config=cuda: without it no CUDA
// kernel is registered and every op on a GPU tensor would fail.
#ifdef DUET_CUDA
constexpr bool kCudaKernels = true;
#else
constexpr bool kCudaKernels = false;
#endif

constexpr double kUsPerSecond = 1e6;
const Device kGpu = Device::cuda(0);

// A case's failure: Run reports it and goes on to the next case.
struct CaseFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void Fail(const std::string& message) { throw CaseFailed(message); }

// Waits for everything queued on cuda:0's one stream (Note [One stream per device]).
void Synchronize() {
  absl::StatusOr<cuda::DeviceContext*> context = cuda::DeviceContext::Get(0);
  const absl::Status status = context.ok() ? (*context)->Synchronize() : context.status();
  if (!status.ok()) Fail("synchronize: " + status.ToString());
}

// Seconds per call of each peer: the median of at least 10 timed batches, the peers' batches
// interleaved (A, B, A, B, ...) as in bench_util.h so that a slow spell hits all of them. Ops only
// queue work, so each batch is bracketed by synchronizes: it counts the GPU's work, not only the
// launches. `fixed_calls` > 0 sets the calls per batch; else a batch lasts DUET_BENCH_MIN_MS.
std::vector<double> GpuSecondsPerCall(const std::vector<std::function<void()>>& fns,
                                      int64_t fixed_calls = 0) {
  using Clock = std::chrono::steady_clock;
  duet_bench::TimingOptions options = duet_bench::OptionsFromEnv();
  options.repetitions = std::max(options.repetitions, 10);
  std::vector<int64_t> calls(fns.size(), std::max<int64_t>(fixed_calls, 1));
  auto time_calls = [&](size_t i) {
    Synchronize();
    const auto start = Clock::now();
    for (int64_t c = 0; c < calls[i]; ++c) fns[i]();
    Synchronize();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  // Warm-up (cuBLAS/cuDNN handles and algorithm choice, NVRTC compiles, the allocator's pools)
  // doubling as calibration.
  for (size_t i = 0; i < fns.size(); ++i) {
    const double first = time_calls(i);
    if (fixed_calls > 0) continue;
    for (double seconds = first; seconds < options.min_repetition_seconds;
         seconds = time_calls(i)) {
      calls[i] *= 2;
    }
  }
  std::vector<std::vector<double>> per_call(fns.size());
  for (int r = 0; r < options.repetitions; ++r) {
    for (size_t i = 0; i < fns.size(); ++i) {
      per_call[i].push_back(time_calls(i) / static_cast<double>(calls[i]));
    }
  }
  std::vector<double> medians;
  for (std::vector<double>& times : per_call) {
    std::sort(times.begin(), times.end());
    medians.push_back(times[times.size() / 2]);
  }
  return medians;
}

// Checks before timing that `got` (any device) matches `expected` (computed independently,
// usually on the CPU): |got - expected| <= tol * (1 + |expected|) elementwise.
// The error bound is relative to the larger of |e[i]| and the values' RMS: an entry of a long dot
// product that cancels to near 0 carries the rounding of its large terms (on an H200, a 4096-term
// float32 product differed by 1.8e-4 at an entry of 0.09, where the entries' RMS is 64).
void CheckNear(const std::string& what, const Tensor& got, const Tensor& expected, double tol) {
  const std::vector<float> g = cast(got.cpu(), kFloat32).to_vector<float>();
  const std::vector<float> e = cast(expected.cpu(), kFloat32).to_vector<float>();
  if (g.size() != e.size()) Fail(what + ": sizes differ");
  double sum_squares = 0;
  for (float v : e) sum_squares += double(v) * v;
  const double rms = e.empty() ? 0 : std::sqrt(sum_squares / e.size());
  for (size_t i = 0; i < g.size(); ++i) {
    if (!(std::abs(g[i] - e[i]) <= tol * std::max({1.0, rms, double(std::abs(e[i]))}))) {
      Fail(what + ": element " + std::to_string(i) + " is " + std::to_string(g[i]) + ", expected " +
           std::to_string(e[i]));
    }
  }
}

void PrintDevice() {
  cudaDeviceProp properties;
  if (cudaGetDeviceProperties(&properties, 0) != cudaSuccess) Fail("cudaGetDeviceProperties");
  std::printf("device\t%s\tname\n", properties.name);
  duet_bench::PrintCount("device.sm", properties.major * 10 + properties.minor,
                         "compute_capability");
}

// (a) cuBLAS throughput. The check compares a 64x64 corner with the CPU's product of the same
// rows and columns (cheap, and it would catch a transposed operand or TF32 rounding in float32).
void MatmulCase(DType dtype, const std::string& name, double tol) {
  constexpr int64_t n = 4096, k = 64;
  const Tensor a = cast(random_normal({n, n}, 1), dtype), b = cast(random_normal({n, n}, 2), dtype);
  const Tensor ga = a.gpu(), gb = b.gpu();
  const Tensor corner = slice(matmul(ga, gb), {0, 0}, {k, k});
  const Tensor expected =
      matmul(cast(slice(a, {0, 0}, {k, n}), kFloat32), cast(slice(b, {0, 0}, {n, k}), kFloat32));
  CheckNear(name, corner, expected, tol);
  const double seconds = GpuSecondsPerCall({[&] {
    Tensor c = matmul(ga, gb);
    DoNotOptimize(c);
  }})[0];
  Print("duet." + name, duet_bench::MatmulFlops(n) / seconds / 1e12, "TFLOP/s");
}

// Eager vs duet::function on the same GPU inputs, both checked first against `fn` on the CPU.
template <typename Fn>
void EagerVsTraced(const std::string& name, Fn fn, double tol, const std::vector<Tensor>& cpu) {
  std::vector<Tensor> gpu;
  for (const Tensor& t : cpu) gpu.push_back(t.gpu());
  auto traced = duet::function(fn);
  const Tensor expected = fn(cpu), eager = fn(gpu), from_trace = traced(gpu);
  if (eager.device() != kGpu || from_trace.device() != kGpu) Fail(name + " did not run on the GPU");
  CheckNear(name + " eager", eager, expected, tol);
  CheckNear(name + " traced", from_trace, expected, tol);
  const std::vector<double> seconds = GpuSecondsPerCall({
      [&] {
        Tensor out = fn(gpu);
        DoNotOptimize(out);
      },
      [&] {
        Tensor out = traced(gpu);
        DoNotOptimize(out);
      },
  });
  Print("duet." + name, seconds[0] * kUsPerSecond, "us");
  Print("duet_traced." + name, seconds[1] * kUsPerSecond, "us");
  Print("ratio." + name, seconds[0] / seconds[1], "x");
}

// (b) Conv2D + inference batch norm + relu, NHWC (cuDNN's preferred layout for this).
void ConvBnReluCase() {
  auto block = [](const std::vector<Tensor>& t) {
    const Tensor conv = conv2d(t[0], t[1], {1, 1}, "SAME");
    return relu(fused_batch_norm(conv, t[2], t[3], t[4], t[5], 1e-3f, /*is_training=*/false).y);
  };
  EagerVsTraced("conv_bn_relu_32x56x56x64_f32", block, 1e-4,
                {random_normal({32, 56, 56, 64}, 1),
                 random_normal({3, 3, 64, 64}, 2, kFloat32, 0, 0.06),  // filter, HWIO
                 random_uniform({64}, 3, kFloat32, 0.5, 1.5),          // scale
                 random_normal({64}, 4, kFloat32, 0, 0.1),             // offset
                 random_normal({64}, 5, kFloat32, 0, 0.1),             // mean
                 random_uniform({64}, 6, kFloat32, 0.5, 1.5)});        // variance
}

// (c) function_bench's chain (elementwise_chain.h, the tanh cycle); CUDA's tanh and SLEEF's differ
// by a few ulps, hence the tolerance.
void ChainCase() {
  auto chain = [](const std::vector<Tensor>& t) {
    Tensor y = t[0];
    for (int i = 0; i < kChainOps; ++i) y = ChainStep(kTanhCycle[i % 10], y, t[1], t[2]);
    return y;
  };
  EagerVsTraced("chain_50_64x64_f32", chain, 1e-5,
                {random_uniform({64, 64}, 1, kFloat32, -1.5, 1.5),
                 random_uniform({64, 64}, 2, kFloat32, -1.5, 1.5),
                 random_uniform({64, 64}, 3, kFloat32, -1.5, 1.5)});
}

// (d) function_bench's training step on the GPU. The update is assign_sub, not
// resource_apply_gradient_descent as on the CPU: ResourceApplyGradientDescent has no CUDA kernel.
void TrainStepCase(int batch) {
  constexpr float kRate = 0.01f;
  // Variables of their own per peer (same initial values), on `device`.
  auto make = [](Device device) {
    return std::vector<Variable>{
        Variable(random_normal({784, 256}, 1, kFloat32, 0, 0.05).to(device), "w1"),
        Variable(zeros({256}).to(device), "b1"),
        Variable(random_normal({256, 10}, 2, kFloat32, 0, 0.05).to(device), "w2"),
        Variable(zeros({10}).to(device), "b2")};
  };
  auto step_of = [](std::vector<Variable> v) {
    return [v](const Tensor& xs, const Tensor& ys) {
      GradientTape tape;
      const Tensor h = relu(bias_add(matmul(xs, v[0]), v[1]));
      const Tensor loss = reduce_mean(
          sparse_softmax_cross_entropy_with_logits(ys, bias_add(matmul(h, v[2]), v[3])));
      const std::vector<Tensor> grads =
          tape.gradient(loss, std::vector<GradientSource>(v.begin(), v.end()));
      for (size_t i = 0; i < v.size(); ++i) v[i].assign_sub(grads[i] * kRate);
      return loss;
    };
  };
  const Tensor x = random_normal({batch, 784}, 3);
  const Tensor y = cast(floor(random_uniform({batch}, 4, kFloat32, 0, 10)), kInt64);
  const Tensor gx = x.gpu(), gy = y.gpu();
  auto on_cpu = step_of(make(Device::cpu()));
  auto eager = step_of(make(kGpu));
  auto traced = duet::function(step_of(make(kGpu)));
  // Two steps each: the second sees the first's updates.
  const std::string name = "mlp_train_step_b" + std::to_string(batch) + "_f32";
  for (int step = 0; step < 2; ++step) {
    const Tensor expected = on_cpu(x, y);
    CheckNear(name + " eager", eager(gx, gy), expected, 1e-5);
    CheckNear(name + " traced", traced(gx, gy), expected, 1e-5);
  }
  const std::vector<double> seconds = GpuSecondsPerCall({
      [&] {
        Tensor loss = eager(gx, gy);
        DoNotOptimize(loss);
      },
      [&] {
        Tensor loss = traced(gx, gy);
        DoNotOptimize(loss);
      },
  });
  Print("duet." + name, seconds[0] * kUsPerSecond, "us");
  Print("duet_traced." + name, seconds[1] * kUsPerSecond, "us");
  Print("ratio." + name, seconds[0] / seconds[1], "x");
}

// (e) The host's cost of one eager op: 10,000 launches, one synchronize at the end, so the GPU
// (a few us per kernel) runs behind the host and only the slower of the two shows.
void LaunchCase() {
  const Tensor x = random_normal({4}, 1).gpu(), y = random_normal({4}, 2).gpu();
  CheckNear("add_4", x + y, x.cpu() + y.cpu(), 1e-6);
  const double seconds = GpuSecondsPerCall({[&] {
                                             Tensor z = x + y;
                                             DoNotOptimize(z);
                                           }},
                                           /*fixed_calls=*/10'000)[0];
  Print("duet.add_4_f32_launch", seconds * kUsPerSecond, "us");
}

// Runs every case, reporting each failure (a wrong result, a duet::Error) and going on. Returns
// how many failed.
int Run() {
  PrintDevice();
  cuda::set_allow_tf32(false);  // float32 matmuls are true float32 products (as in the peer)
  const std::vector<std::pair<std::string, std::function<void()>>> cases = {
      {"matmul_4096_f32", [] { MatmulCase(kFloat32, "matmul_4096_f32", 1e-4); }},
      // bfloat16 output: 8 bits of mantissa; the 4096x4096 blocks are not needed again after it.
      {"matmul_4096_bf16",
       [] {
         MatmulCase(kBFloat16, "matmul_4096_bf16", 1e-2);
         empty_cache();
       }},
      {"conv_bn_relu_32x56x56x64_f32", ConvBnReluCase},
      {"chain_50_64x64_f32", ChainCase},
      {"mlp_train_step_b64_f32", [] { TrainStepCase(64); }},
      {"mlp_train_step_b256_f32", [] { TrainStepCase(256); }},
      {"add_4_f32_launch", LaunchCase},
  };
  int failed = 0;
  for (const auto& [name, run_case] : cases) {
    try {
      run_case();
    } catch (const std::exception& e) {  // CaseFailed, duet::Error
      ++failed;
      std::printf("# %s FAILED: %s\n", name.c_str(), e.what());
    }
  }
  return failed;
}

}  // namespace
}  // namespace duet

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // every line out before a crash could lose it
  if (!duet::kCudaKernels) {
    std::printf("# gpu_bench skipped: built without --config=cuda (no CUDA kernels)\n");
    return 0;
  }
  if (duet::num_gpus() == 0) {
    std::printf("# gpu_bench skipped: no CUDA device (num_gpus() is 0)\n");
    return 0;
  }
  int failed = 0;
  try {
    failed = duet::Run();
  } catch (const std::exception& e) {  // the device's properties could not be read
    std::fprintf(stderr, "gpu_bench: %s\n", e.what());
    return 1;
  }
  if (failed > 0) std::fprintf(stderr, "gpu_bench: %d case(s) failed\n", failed);
  return failed > 0 ? 1 : 0;
}
