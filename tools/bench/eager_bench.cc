// eager_bench: what an eager op costs in duet, next to peers measured in the same run.
//
//   bazel run //tools/bench:eager_bench
//
// Prints `name<TAB>value<TAB>unit` lines (see bench_util.h):
//   - per-op latency of tiny eager ops (4x4 and 1-element float32 add, 64x64 matmul), against a
//     plain C++ loop doing the same 4x4 add — the gap is the dispatcher's overhead;
//   - 1024^3 float32 matmul GFLOP/s through duet and through oneDNN called directly on raw
//     pointers — the ratio is what duet's op layer costs around the same library call;
//   - 1e7-element float32 add GB/s against memcpy GB/s — how close a memory-bound kernel gets to
//     the machine's copy bandwidth.
// Timings are medians of several repetitions (DUET_BENCH_REPS, DUET_BENCH_MIN_MS override).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/allocator.h"
#include "core/constant.h"
#include "core/tensor.h"
#include "core/thread_pool.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "ops/math/math_ops.h"
#include "ops/nn/nn_ops.h"
#include "tools/bench/bench_util.h"

namespace duet {
namespace {

using duet_bench::DoNotOptimize;
using duet_bench::MedianSecondsPerCall;
using duet_bench::Print;

constexpr double kNsPerSecond = 1e9;

// A float32 tensor of `shape` with varied values, so no kernel can shortcut on zeros.
Tensor Ramp(const Shape& shape) {
  std::vector<float> values(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7) * 0.25f - 0.5f;
  return from_vector(values, shape);
}

// The reference floor for a 4x4 add: the arithmetic alone, no dispatch, no allocation.
void PlainLoopAdd4x4() {
  alignas(64) float a[16], b[16], c[16];
  for (int i = 0; i < 16; ++i) a[i] = b[i] = static_cast<float>(i);
  const double seconds = MedianSecondsPerCall([&] {
    // Without the barriers the compiler would hoist the loop out of the timing loop.
    DoNotOptimize(a);
    DoNotOptimize(b);
    for (int i = 0; i < 16; ++i) c[i] = a[i] + b[i];
    DoNotOptimize(c);
  });
  Print("cpp_loop.add_4x4_f32", seconds * kNsPerSecond, "ns");
}

// Median nanoseconds of one eager op call; the result tensor is dropped each iteration, as in a
// real eager program, so its buffer goes back to the allocator pool.
template <typename Op>
double EagerOpNs(Op op) {
  return MedianSecondsPerCall([&] {
           Tensor out = op();
           DoNotOptimize(out);
         }) *
         kNsPerSecond;
}

// oneDNN's matmul primitive on raw pointers: the best duet's matmul kernel can do, since it
// calls the same library. The primitive is created once, as a primitive cache would.
class DirectOneDnnMatmul {
 public:
  explicit DirectOneDnnMatmul(int64_t n)
      : engine_(dnnl::engine::kind::cpu, 0),
        stream_(engine_),
        md_({n, n}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab),
        prim_(dnnl::matmul::primitive_desc(dnnl::matmul::desc(md_, md_, md_), engine_)),
        // Same values as the duet inputs; 64-byte aligned like duet's buffers.
        a_(Ramp({n, n})),
        b_(Ramp({n, n})),
        c_(Tensor::Empty(kFloat32, {n, n})),
        a_mem_(md_, engine_, a_.raw_data()),
        b_mem_(md_, engine_, b_.raw_data()),
        c_mem_(md_, engine_, c_.raw_data()) {}

  void Run() {
    prim_.execute(stream_,
                  {{DNNL_ARG_SRC, a_mem_}, {DNNL_ARG_WEIGHTS, b_mem_}, {DNNL_ARG_DST, c_mem_}});
    stream_.wait();
  }

 private:
  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::memory::desc md_;
  dnnl::matmul prim_;
  Tensor a_, b_, c_;
  dnnl::memory a_mem_, b_mem_, c_mem_;
};

void TinyOps() {
  const Tensor a44 = Ramp({4, 4}), b44 = Ramp({4, 4});
  Print("duet.add_4x4_f32", EagerOpNs([&] { return a44 + b44; }), "ns");
  const Tensor a1 = Ramp({1}), b1 = Ramp({1});
  Print("duet.add_1_f32", EagerOpNs([&] { return a1 + b1; }), "ns");
  const int64_t n = duet_bench::kSmallMatmulN;
  const Tensor m1 = Ramp({n, n}), m2 = Ramp({n, n});
  Print("duet.matmul_64x64_f32", EagerOpNs([&] { return matmul(m1, m2); }), "ns");
  // Direct oneDNN at the same size separates duet's overhead from oneDNN's own (OpenMP fork/join
  // dominates at this size, and suffers most when other processes hold the cores).
  DirectOneDnnMatmul direct(n);
  Print("onednn.matmul_64x64_f32", MedianSecondsPerCall([&] { direct.Run(); }) * kNsPerSecond,
        "ns");
}

void LargeMatmul() {
  const int64_t n = duet_bench::kLargeMatmulN;
  const double flops = duet_bench::MatmulFlops(n);
  const Tensor a = Ramp({n, n}), b = Ramp({n, n});
  DirectOneDnnMatmul direct(n);
  const std::vector<double> seconds = duet_bench::InterleavedMedianSecondsPerCall({
      [&] {
        Tensor c = matmul(a, b);
        DoNotOptimize(c);
      },
      [&] { direct.Run(); },
  });
  const double duet_s = seconds[0], onednn_s = seconds[1];
  Print("duet.matmul_1024_f32", flops / duet_s / 1e9, "GFLOP/s");
  Print("onednn.matmul_1024_f32", flops / onednn_s / 1e9, "GFLOP/s");
  Print("ratio.duet_matmul_1024_vs_onednn", onednn_s / duet_s, "x");
}

void LargeAdd() {
  const int64_t n = duet_bench::kLargeAddElements;
  const Tensor a = Ramp({n}), b = Ramp({n});
  // memcpy into a destination written once beforehand, so no page faults are timed: the
  // bandwidth ceiling a streaming kernel can approach. Also the same copy split across duet's
  // intra-op pool, as the add kernel splits its loop, since one core may not saturate memory.
  std::vector<float> src(static_cast<size_t>(n), 1.0f), dst(static_cast<size_t>(n), 0.0f);
  ThreadPool& pool = ThreadPool::Intra();
  const std::vector<double> seconds = duet_bench::InterleavedMedianSecondsPerCall({
      [&] {
        Tensor c = a + b;
        DoNotOptimize(c);
      },
      [&] {
        std::memcpy(dst.data(), src.data(), static_cast<size_t>(n) * sizeof(float));
        DoNotOptimize(dst.data()[n - 1]);
      },
      [&] {
        pool.ParallelFor(n, /*min_chunk=*/1 << 16, [&](int64_t begin, int64_t end) {
          std::memcpy(dst.data() + begin, src.data() + begin,
                      static_cast<size_t>(end - begin) * sizeof(float));
        });
        DoNotOptimize(dst.data()[n - 1]);
      },
  });
  const double add_s = seconds[0], copy_s = seconds[1], parallel_copy_s = seconds[2];
  const double add_gbs = duet_bench::AddBytes(n) / add_s / 1e9;
  const double copy_gbs = duet_bench::CopyBytes(n) / copy_s / 1e9;
  const double parallel_copy_gbs = duet_bench::CopyBytes(n) / parallel_copy_s / 1e9;
  Print("duet.add_1e7_f32", add_gbs, "GB/s");
  Print("memcpy.copy_1e7_f32", copy_gbs, "GB/s");
  Print("memcpy_parallel.copy_1e7_f32", parallel_copy_gbs, "GB/s");
  Print("ratio.duet_add_1e7_vs_memcpy", add_gbs / copy_gbs, "x");
  Print("ratio.duet_add_1e7_vs_memcpy_parallel", add_gbs / parallel_copy_gbs, "x");
}

void ProfileAdd4x4(int64_t iterations) {
  const Tensor a = Ramp({4, 4}), b = Ramp({4, 4});
  for (int64_t i = 0; i < iterations; ++i) {
    Tensor out = a + b;
    DoNotOptimize(out);
  }
}

}  // namespace
}  // namespace duet

int main(int argc, char** argv) {
  // `eager_bench --profile_add_4x4 N` runs N untimed 4x4 adds and nothing else: a steady loop
  // for callgrind or perf to attribute the per-op cost (see docs/benchmarks.md).
  if (argc == 3 && std::strcmp(argv[1], "--profile_add_4x4") == 0) {
    duet::ProfileAdd4x4(std::atoll(argv[2]));
    return 0;
  }
  duet_bench::PrintCount("duet.threads", duet::ThreadPool::Intra().num_threads(), "threads");
  duet::PlainLoopAdd4x4();
  duet::TinyOps();
  duet::LargeMatmul();
  duet::LargeAdd();
  return 0;
}
