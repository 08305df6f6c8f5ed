// passes_bench: what the graph passes buy. Each case runs one graph through a Session as built
// (SessionOptions{.optimize = false}) and optimized (the default), next to hand-written C++ doing
// the same work in the same process, the floor the optimized graph is judged against.
//
//   bazel run -c opt //tools/bench:passes_bench
//   OMP_THREAD_LIMIT=1 bazel-bin/tools/bench/passes_bench    # everything on one thread
//   DUET_BENCH_REPS=25 bazel-bin/tools/bench/passes_bench --min   # fastest repetitions
//
// Prints `name<TAB>value<TAB>unit` lines (see bench_util.h); peers are timed interleaved, as
// medians of several repetitions (DUET_BENCH_REPS, DUET_BENCH_MIN_MS override), or their minima
// with --min (steadier on a busy machine). Cases:
//   - elementwise_chain_50_{64x64,1e6}_f32: 50 elementwise ops (adds, muls and maxes with scalars
//     and with two same-shape tensors, a tanh every tenth op) on 64x64 and on 10^6 floats:
//     unfused.* and fused.* (Session::run, us); the hand-written AVX2 loop on one thread, eight
//     vectors at a time (hand.*) and one (hand_1vector.*: the shape of code expression templates
//     give, every op of the expression per vector), and hand_parallel.* (eight at a time, split
//     across duet's intra-op pool); the ratios fused / the fastest hand loop (target <= 1.3) and
//     unfused / fused (target >= 5 at 10^6).
//   - elementwise_chain_50_notanh_1e6_f32: the same without the tanhs (a multiply instead), where
//     the unfused graph is bound by memory rather than by tanh's arithmetic.
//   - add_chain_1000_4_f32_ns_per_op: 1,000 adds of 4-element tensors, unfused (the executor's
//     cost per node) and fused (one node; the kernel's cost per instruction), ns per op.
//   - kernel_*: for the 10^6 chain, one thread each, the fused node's program run directly with
//     tiles of t elements (kernel_tile_<t>.*; the kernel's is
//     ElementwiseProgramRunner::kDefaultTile) next to the two hand loops.
// One function per case; later cases (a CNN, MLP training) join main() the same way.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/thread_pool.h"
#include "duet.h"
#include "kernels/cpu/math/elementwise_program_runner.h"
#include "kernels/cpu/math/simd.h"
#include "ops/math/elementwise_program.h"
#include "tools/bench/bench_util.h"

namespace duet {
namespace {

using duet_bench::DoNotOptimize;
using duet_bench::Print;

// Set by --min: report each peer's fastest repetition instead of the median.
bool use_minimum = false;

// Seconds per call of each peer, repetitions interleaved.
std::vector<double> Time(const std::vector<std::function<void()>>& peers) {
  return use_minimum ? duet_bench::InterleavedMinSecondsPerCall(peers)
                     : duet_bench::InterleavedMedianSecondsPerCall(peers);
}

constexpr double kUsPerSecond = 1e6;

// ---- The 50-op elementwise chain ----------------------------------------------------------------

// Op i of a chain: y = step(y), with scalars and the same-shape tensors p and q.
enum class ChainOp {
  kMulScalar,
  kAddTensor,
  kMaxTensor,
  kMulTensor,
  kAddScalar,
  kMaxScalar,
  kTanh
};
constexpr int kChainOps = 50;
using Cycle = ChainOp[10];  // op i is cycle[i % 10]
constexpr Cycle kTanhCycle = {ChainOp::kMulScalar, ChainOp::kAddTensor, ChainOp::kMaxTensor,
                              ChainOp::kMulTensor, ChainOp::kAddScalar, ChainOp::kMaxScalar,
                              ChainOp::kMulScalar, ChainOp::kAddTensor, ChainOp::kAddScalar,
                              ChainOp::kTanh};
constexpr Cycle kPlainCycle = {ChainOp::kMulScalar, ChainOp::kAddTensor, ChainOp::kMaxTensor,
                               ChainOp::kMulTensor, ChainOp::kAddScalar, ChainOp::kMaxScalar,
                               ChainOp::kMulScalar, ChainOp::kAddTensor, ChainOp::kAddScalar,
                               ChainOp::kMulScalar};
constexpr float kScale = 0.9f, kShift = 0.1f, kFloor = -0.5f;

Tensor ChainStep(ChainOp op, const Tensor& y, const Tensor& p, const Tensor& q) {
  switch (op) {
    case ChainOp::kMulScalar:
      return y * kScale;
    case ChainOp::kAddTensor:
      return y + p;
    case ChainOp::kMaxTensor:
      return maximum(y, q);
    case ChainOp::kMulTensor:
      return y * q;
    case ChainOp::kAddScalar:
      return y + kShift;
    case ChainOp::kMaxScalar:
      return maximum(y, constant(kFloor));
    case ChainOp::kTanh:
      return tanh(y);
  }
  return y;
}

struct ChainGraph {
  Graph graph;
  Tensor x, p, q, y;
};

ChainGraph BuildChain(const Shape& shape, const Cycle& cycle) {
  ChainGraph c;
  GraphScope scope(c.graph);
  c.x = placeholder(kFloat32, shape, "x");
  c.p = placeholder(kFloat32, shape, "p");
  c.q = placeholder(kFloat32, shape, "q");
  Tensor y = c.x;
  for (int i = 0; i < kChainOps; ++i) y = ChainStep(cycle[i % 10], y, c.p, c.q);
  c.y = y;
  return c;
}

// ---- The hand-written loops
// ----------------------------------------------------------------------

// One op of the chain on a vector, chosen at compile time.
template <ChainOp kOp>
[[gnu::always_inline]] inline __m256 HandStep(__m256 y, __m256 p, __m256 q) {
  if constexpr (kOp == ChainOp::kMulScalar) return _mm256_mul_ps(y, _mm256_set1_ps(kScale));
  if constexpr (kOp == ChainOp::kAddTensor) return _mm256_add_ps(y, p);
  if constexpr (kOp == ChainOp::kMaxTensor) return _mm256_max_ps(y, q);
  if constexpr (kOp == ChainOp::kMulTensor) return _mm256_mul_ps(y, q);
  if constexpr (kOp == ChainOp::kAddScalar) return _mm256_add_ps(y, _mm256_set1_ps(kShift));
  if constexpr (kOp == ChainOp::kMaxScalar) return _mm256_max_ps(y, _mm256_set1_ps(kFloor));
  if constexpr (kOp == ChainOp::kTanh) return simd::Tanh(y);
}

// The 50 ops written out in sequence (a fold over the op indices) on kVectors independent
// vectors. The chain is one long dependency chain per vector: across SLEEF's calls one vector at
// a time waits on every op's latency, eight keep the pipelines full (without calls, the core
// overlaps consecutive vectors of the one-vector loop by itself). Inlined: as references into a
// call, the vectors would round-trip through memory at every op.
template <const Cycle& kCycle, int kVectors, size_t... kI>
[[gnu::always_inline]] inline void HandBody(__m256* y, const __m256* p, const __m256* q,
                                            std::index_sequence<kI...>) {
  auto step = [&]<ChainOp kOp>() {
    for (int v = 0; v < kVectors; ++v) y[v] = HandStep<kOp>(y[v], p[v], q[v]);
  };
  (step.template operator()<kCycle[kI % 10]>(), ...);
}

// out = the chain of x, p, q over [begin, end), kVectors vectors at a time: what a person writes
// for exactly this expression (SLEEF's tanh, as duet's kernels use; the hardware max). A tail
// shorter than a block goes through zero-padded buffers.
template <const Cycle& kCycle, int kVectors>
void HandChain(const float* x, const float* p, const float* q, float* out, int64_t begin,
               int64_t end) {
  constexpr int64_t kBlock = 8 * kVectors;
  auto block = [](const float* bx, const float* bp, const float* bq, float* bo) {
    __m256 y[kVectors], vp[kVectors], vq[kVectors];
    for (int v = 0; v < kVectors; ++v) {
      y[v] = _mm256_loadu_ps(bx + 8 * v);
      vp[v] = _mm256_loadu_ps(bp + 8 * v);
      vq[v] = _mm256_loadu_ps(bq + 8 * v);
    }
    HandBody<kCycle, kVectors>(y, vp, vq, std::make_index_sequence<kChainOps>());
    for (int v = 0; v < kVectors; ++v) _mm256_storeu_ps(bo + 8 * v, y[v]);
  };
  int64_t i = begin;
  for (; i + kBlock <= end; i += kBlock) block(x + i, p + i, q + i, out + i);
  if (i == end) return;
  float bx[kBlock] = {}, bp[kBlock] = {}, bq[kBlock] = {}, bo[kBlock];
  const size_t tail = static_cast<size_t>(end - i) * sizeof(float);
  std::memcpy(bx, x + i, tail);
  std::memcpy(bp, p + i, tail);
  std::memcpy(bq, q + i, tail);
  block(bx, bp, bq, bo);
  std::memcpy(out + i, bo, tail);
}

using HandFn = void (*)(const float*, const float*, const float*, float*, int64_t, int64_t);

// ---- Helpers
// ----------------------------------------------------------------------------------------

// A float32 tensor of `shape` with values spread over [-1.5, 1.5).
Tensor Spread(const Shape& shape, int seed) {
  return random_uniform(shape, seed, kFloat32, -1.5, 1.5);
}

double MaxAbsDifference(const Tensor& a, const Tensor& b) {
  const std::vector<float> u = a.to_vector<float>(), v = b.to_vector<float>();
  double worst = 0;
  for (size_t i = 0; i < u.size(); ++i) worst = std::max(worst, std::abs(double(u[i]) - v[i]));
  return worst;
}

void Fail(const std::string& why) {
  std::fprintf(stderr, "passes_bench: %s\n", why.c_str());
  std::exit(1);
}

// The fused node the pass makes of a chain, as the runner takes it.
struct FusedChain {
  ElementwiseProgram program;
  std::vector<const float*> inputs;
  std::unique_ptr<bool[]> single;
  std::vector<Tensor> constants;  // the scalars' values, kept alive
};

FusedChain FuseChain(const ChainGraph& chain,
                     const absl::flat_hash_map<std::string, const float*>& fed) {
  const std::string result = chain.graph.OutputOf(chain.y)->node->name();
  Graph copy = chain.graph.Copy();
  optimize(copy, PassOptions{.keep = {result}});
  const Node* fused = copy.FindNode(result);
  const OpDef& op = fused->op();
  if (op.name != "_FusedElementwise") Fail("the chain did not fuse");
  FusedChain out{
      *DecodeElementwiseProgram(fused->attr<std::vector<std::string>>(op.attr_index("ops")),
                                fused->attr<std::vector<int64_t>>(op.attr_index("operands")),
                                static_cast<int>(fused->inputs().size()))};
  out.single.reset(new bool[fused->inputs().size()]);
  out.constants.reserve(fused->inputs().size());
  for (size_t i = 0; i < fused->inputs().size(); ++i) {
    const Node* in = fused->inputs()[i].node;
    out.single[i] = in->bound_value() != nullptr;
    if (out.single[i]) {
      out.constants.push_back(*in->bound_value());
      out.inputs.push_back(out.constants.back().data<float>());
    } else {
      out.inputs.push_back(fed.at(in->name()));
    }
  }
  return out;
}

// ---- Cases
// ------------------------------------------------------------------------------------------

// The fused node's runner alone on one thread with tiles of several sizes, next to the hand
// loops on one thread: the cost of interpreting, without sessions or threads.
void KernelOnly(const std::string& name, const FusedChain& fused, HandFn hand, HandFn hand_1vector,
                const float* x, const float* p, const float* q, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n));
  const absl::Span<const bool> single(fused.single.get(), fused.inputs.size());
  std::vector<std::function<void()>> peers = {
      [&] {
        hand(x, p, q, out.data(), 0, n);
        DoNotOptimize(out);
      },
      [&] {
        hand_1vector(x, p, q, out.data(), 0, n);
        DoNotOptimize(out);
      },
  };
  const std::vector<int64_t> tiles = {256, 512, 1024, 2048, 4096, 16384};
  for (int64_t tile : tiles) {
    peers.push_back([&, tile] {
      const ElementwiseProgramRunner<float> runner(fused.program, single, tile);
      runner.Run(runner.Bind(fused.inputs), out.data(), 0, n);
      DoNotOptimize(out);
    });
  }
  const std::vector<double> seconds = Time(peers);
  Print("kernel_hand." + name, seconds[0] * kUsPerSecond, "us");
  Print("kernel_hand_1vector." + name, seconds[1] * kUsPerSecond, "us");
  for (size_t i = 0; i < tiles.size(); ++i) {
    Print("kernel_tile_" + std::to_string(tiles[i]) + "." + name, seconds[i + 2] * kUsPerSecond,
          "us");
  }
}

// Session::run of the chain unfused and fused, and the hand loop on one thread and on the pool.
template <const Cycle& kCycle>
void ElementwiseChainCase(const std::string& name, const Shape& shape, bool kernel_lines) {
  const ChainGraph chain = BuildChain(shape, kCycle);
  const FeedList feeds = {
      {chain.x, Spread(shape, 1)}, {chain.p, Spread(shape, 2)}, {chain.q, Spread(shape, 3)}};
  Session unfused(chain.graph, SessionOptions{.optimize = false});
  Session fused(chain.graph);
  const int64_t n = shape.num_elements();
  const float* x = feeds[0].second.data<float>();
  const float* p = feeds[1].second.data<float>();
  const float* q = feeds[2].second.data<float>();
  std::vector<float> out(static_cast<size_t>(n));
  constexpr HandFn hand = &HandChain<kCycle, 8>, hand_1vector = &HandChain<kCycle, 1>;
  // Split like the kernels' ParallelElements: chunks of at least 256 elements.
  auto hand_parallel = [&] {
    ThreadPool::Intra().ParallelFor(
        n, 256, [&](int64_t begin, int64_t end) { hand(x, p, q, out.data(), begin, end); });
  };

  const Tensor reference = unfused.run(feeds, {chain.y})[0];
  const Tensor optimized = fused.run(feeds, {chain.y})[0];
  hand_parallel();
  if (MaxAbsDifference(optimized, reference) != 0) Fail(name + ": fused values differ");
  if (MaxAbsDifference(from_vector(out, shape), reference) > 1e-5) Fail(name + ": hand differs");
  if (fused.plan_info({"x", "p", "q"}, {chain.y}).passes.counter("fusion.elementwise") != 1) {
    Fail(name + " did not fuse into one node");
  }

  const std::vector<double> seconds = Time({
      [&] {
        std::vector<Tensor> y = unfused.run(feeds, {chain.y});
        DoNotOptimize(y);
      },
      [&] {
        std::vector<Tensor> y = fused.run(feeds, {chain.y});
        DoNotOptimize(y);
      },
      [&] {
        hand(x, p, q, out.data(), 0, n);
        DoNotOptimize(out);
      },
      [&] {
        hand_1vector(x, p, q, out.data(), 0, n);
        DoNotOptimize(out);
      },
      [&] {
        hand_parallel();
        DoNotOptimize(out);
      },
  });
  Print("unfused." + name, seconds[0] * kUsPerSecond, "us");
  Print("fused." + name, seconds[1] * kUsPerSecond, "us");
  Print("hand." + name, seconds[2] * kUsPerSecond, "us");
  Print("hand_1vector." + name, seconds[3] * kUsPerSecond, "us");
  Print("hand_parallel." + name, seconds[4] * kUsPerSecond, "us");
  Print("ratio.fused_over_hand." + name,
        seconds[1] / std::min({seconds[2], seconds[3], seconds[4]}), "x");
  Print("ratio.unfused_over_fused." + name, seconds[0] / seconds[1], "x");
  if (kernel_lines) {
    KernelOnly(name, FuseChain(chain, {{"x", x}, {"p", p}, {"q", q}}), hand, hand_1vector, x, p, q,
               n);
  }
}

// 1,000 AddV2 of 4-element tensors: where a fused node's per-instruction cost (decoding, binding,
// a step on a partial vector) meets the executor's per-node cost. ns per op.
void TinyChainCase() {
  constexpr int kOps = 1000;
  const Tensor one = constant({1.f, 1.f, 1.f, 1.f});
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {4}, "x");
    y = x;
    for (int i = 0; i < kOps; ++i) y = y + one;
  }
  Session unfused(g, SessionOptions{.optimize = false});
  Session fused(g);
  const FeedList feeds = {{x, constant({0.f, 1.f, 2.f, 3.f})}};
  const std::vector<double> seconds = Time({
      [&] {
        std::vector<Tensor> out = unfused.run(feeds, {y});
        DoNotOptimize(out);
      },
      [&] {
        std::vector<Tensor> out = fused.run(feeds, {y});
        DoNotOptimize(out);
      },
  });
  const std::string name = "add_chain_1000_4_f32_ns_per_op";
  Print("unfused." + name, seconds[0] / kOps * 1e9, "ns");
  Print("fused." + name, seconds[1] / kOps * 1e9, "ns");
}

}  // namespace
}  // namespace duet

int main(int argc, char** argv) {
  duet::use_minimum = argc > 1 && std::strcmp(argv[1], "--min") == 0;
  duet::ElementwiseChainCase<duet::kTanhCycle>("elementwise_chain_50_64x64_f32", {64, 64},
                                               /*kernel_lines=*/false);
  duet::ElementwiseChainCase<duet::kTanhCycle>("elementwise_chain_50_1e6_f32", {1000, 1000},
                                               /*kernel_lines=*/true);
  duet::ElementwiseChainCase<duet::kPlainCycle>("elementwise_chain_50_notanh_1e6_f32", {1000, 1000},
                                                /*kernel_lines=*/false);
  duet::TinyChainCase();
  return 0;
}
