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
#include "tools/bench/elementwise_chain.h"

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

// ---- The chain as a graph ------------------------------------------------------------------

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
