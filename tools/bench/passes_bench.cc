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
//   - cnn_inference_b64_f32: three blocks of 3x3 SAME Conv2D + inference FusedBatchNormV3
//     (constant statistics) + Relu on a [64, 28, 28, 1] batch, 2x2 max pool, dense to 10 classes
//     and Softmax. fold_batch_norm folds each batch norm into its filter and a bias;
//     fuse_bias_activation makes each block one _FusedConv2D with Relu.
//   - cnn_inference_nchw_b64_f32: the same CNN channels-first (NCHW ops), as built (each op its
//     NHWC kernel between transposes) and optimized (convert_layout), and fused_nhwc.* the NHWC
//     graph optimized: ratio.nchw_over_nhwc is what channels-first costs after the layout pass.
//   - mlp_train_step_b64_f32: one SGD step (rate 0.01) of a 784-256-10 relu MLP with sparse
//     softmax cross-entropy: gradients() and ResourceApplyGradientDescent, each session on its
//     own variables.
//   For these two: unfused.* and fused.* (Session::run, us), their ratio (target >= 1.3 for the
//   CNN), graph nodes before and after the pipeline (nodes_*), the executor's steps (steps_*),
//   and fired.<case>.<counter> per pass counter (what fired; missed fusions go to stderr).
// One function per case, joined in main().
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
#include "ops/math/math_attrs.h"
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
  FusedChain out{*DecodeElementwiseProgram(fused->attr(FusedElementwiseAttrs::kOps),
                                           fused->attr(FusedElementwiseAttrs::kOperands),
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

// ---- Whole models: what the pipeline buys a CNN and a training step ------------------------

// Prints node and step counts, and every counter the pipeline recorded, summed over rounds.
void PrintPassStats(const std::string& name, const Session::PlanInfo& unoptimized,
                    const Session::PlanInfo& optimized) {
  const PassReport& report = optimized.passes;
  duet_bench::PrintCount("nodes_unoptimized." + name, report.nodes_before, "nodes");
  duet_bench::PrintCount("nodes_optimized." + name, report.nodes_after, "nodes");
  duet_bench::PrintCount("steps_unoptimized." + name, unoptimized.steps, "steps");
  duet_bench::PrintCount("steps_optimized." + name, optimized.steps, "steps");
  std::vector<std::string> seen;
  for (const PassRun& run : report.runs) {
    for (const auto& [counter, value] : run.counters) {
      if (std::find(seen.begin(), seen.end(), counter) != seen.end()) continue;
      seen.push_back(counter);
      duet_bench::PrintCount("fired." + name + "." + counter, report.counter(counter), "times");
    }
  }
  for (const MissedFusion& m : report.missed) {
    std::fprintf(stderr, "# %s: %s did not fire at %s (%s): %s\n", name.c_str(), m.fusion.c_str(),
                 m.node.c_str(), m.op.c_str(), m.why.c_str());
  }
}

// Times the two sessions' runs interleaved; prints both timings and their ratio.
void TimePair(const std::string& name, const std::function<void()>& unoptimized,
              const std::function<void()>& optimized) {
  const std::vector<double> seconds = Time({unoptimized, optimized});
  Print("unfused." + name, seconds[0] * kUsPerSecond, "us");
  Print("fused." + name, seconds[1] * kUsPerSecond, "us");
  Print("ratio.unoptimized_over_optimized." + name, seconds[0] / seconds[1], "x");
}

// Uniform values in [low, high): batch-norm parameters of a trained-looking network.
Tensor UniformVector(int64_t n, int seed, double low, double high) {
  return random_uniform({n}, seed, kFloat32, low, high);
}

// A block's constants: a He-initialized 3x3 filter and batch-norm statistics far from the
// identity, so that folding them changes the filter. Made eagerly: inside a GraphScope the
// random ops would become nodes that every run evaluates.
struct ConvBnParams {
  Tensor filter, scale, offset, mean, variance;
};

ConvBnParams MakeConvBnParams(int64_t in, int64_t out, int seed) {
  return {random_normal({3, 3, in, out}, seed, kFloat32, 0, std::sqrt(2.0 / (9.0 * in))),
          UniformVector(out, seed + 1, 0.5, 1.5), UniformVector(out, seed + 2, -0.2, 0.2),
          UniformVector(out, seed + 3, -0.3, 0.3), UniformVector(out, seed + 4, 0.5, 2.0)};
}

// 3x3 SAME convolution, inference batch norm with constant statistics, relu.
Tensor ConvBnRelu(const Tensor& x, const ConvBnParams& p, DataFormat format) {
  const Tensor conv = conv2d(x, p.filter, {1, 1}, "SAME", format);
  const FusedBatchNormResult bn =
      fused_batch_norm(conv, p.scale, p.offset, p.mean, p.variance,
                       /*epsilon=*/1e-3f, /*is_training=*/false, format);
  return relu(bn.y);
}

struct CnnGraph {
  Graph graph;
  Tensor x, logits, probabilities;
};

// conv-bn-relu x3 (1 -> 16 -> 32 -> 32 channels), 2x2 max pool, dense to 10 classes, softmax;
// images in `format` (channels-first flattens C, H, W: other logits, the same work).
CnnGraph BuildCnn(DataFormat format = DataFormat::kNHWC) {
  const ConvBnParams blocks[] = {MakeConvBnParams(1, 16, 10), MakeConvBnParams(16, 32, 20),
                                 MakeConvBnParams(32, 32, 30)};
  constexpr int64_t kFlat = 14 * 14 * 32;
  const Tensor w = random_normal({kFlat, 10}, 40, kFloat32, 0, std::sqrt(1.0 / kFlat));
  const Tensor b = UniformVector(10, 41, -0.1, 0.1);
  CnnGraph c;
  GraphScope scope(c.graph);
  const bool first = format == DataFormat::kNCHW;
  c.x = placeholder(kFloat32, first ? Shape{64, 1, 28, 28} : Shape{64, 28, 28, 1}, "x");
  Tensor h = c.x;
  for (const ConvBnParams& block : blocks) h = ConvBnRelu(h, block, format);
  h = reshape(max_pool(h, {2, 2}, {2, 2}, "VALID", format), {64, kFlat});
  c.logits = bias_add(matmul(h, w), b);
  c.probabilities = softmax(c.logits);
  return c;
}

// The largest difference between a and b relative to the largest magnitude in b (at least 1).
double RelativeDifference(const Tensor& a, const Tensor& b) {
  const std::vector<float> v = b.to_vector<float>();
  double scale = 1;
  for (float f : v) scale = std::max(scale, double(std::abs(f)));
  return MaxAbsDifference(a, b) / scale;
}

void CnnInferenceCase() {
  const std::string name = "cnn_inference_b64_f32";
  const CnnGraph cnn = BuildCnn();
  Session unoptimized(cnn.graph, SessionOptions{.optimize = false});
  Session optimized(cnn.graph);
  const FeedList feeds = {{cnn.x, random_normal({64, 28, 28, 1}, 1)}};
  // Folding the batch norms rounds differently (filter * m once, instead of conv * m per value),
  // so the outputs agree to float32 rounding, not bit for bit.
  const std::vector<Tensor> want = unoptimized.run(feeds, {cnn.logits, cnn.probabilities});
  const std::vector<Tensor> got = optimized.run(feeds, {cnn.logits, cnn.probabilities});
  const double logits_error = RelativeDifference(got[0], want[0]);
  const double probability_error = MaxAbsDifference(got[1], want[1]);
  std::fprintf(stderr, "# %s: logits differ by %.3g (relative), probabilities by %.3g\n",
               name.c_str(), logits_error, probability_error);
  if (logits_error > 1e-4 || probability_error > 1e-5) Fail(name + ": optimized values differ");

  PrintPassStats(name, unoptimized.plan_info({cnn.x}, {cnn.probabilities}),
                 optimized.plan_info({cnn.x}, {cnn.probabilities}));
  auto run = [&](Session& session) {
    std::vector<Tensor> y = session.run(feeds, {cnn.probabilities});
    DoNotOptimize(y);
  };
  TimePair(
      name, [&] { run(unoptimized); }, [&] { run(optimized); });
}

// The same CNN channels-first: as built (every NCHW op runs its NHWC kernel between transposes) and
// optimized (convert_layout: a transpose at the input and one after the pool), against the NHWC
// graph optimized.
void CnnInferenceNchwCase() {
  const std::string name = "cnn_inference_nchw_b64_f32";
  const CnnGraph nchw = BuildCnn(DataFormat::kNCHW);
  const CnnGraph nhwc = BuildCnn();
  Session unoptimized(nchw.graph, SessionOptions{.optimize = false});
  Session optimized(nchw.graph);
  Session channels_last(nhwc.graph);
  const Tensor x = random_normal({64, 28, 28, 1}, 1);
  const FeedList feeds = {{nchw.x, transpose(x, {0, 3, 1, 2})}};
  const FeedList nhwc_feeds = {{nhwc.x, x}};
  const double error = RelativeDifference(optimized.run(feeds, {nchw.logits})[0],
                                          unoptimized.run(feeds, {nchw.logits})[0]);
  std::fprintf(stderr, "# %s: optimized logits differ by %.3g (relative)\n", name.c_str(), error);
  if (error > 1e-4) Fail(name + ": optimized values differ");
  PrintPassStats(name, unoptimized.plan_info({nchw.x}, {nchw.probabilities}),
                 optimized.plan_info({nchw.x}, {nchw.probabilities}));
  const std::vector<double> seconds = Time({
      [&] {
        std::vector<Tensor> y = unoptimized.run(feeds, {nchw.probabilities});
        DoNotOptimize(y);
      },
      [&] {
        std::vector<Tensor> y = optimized.run(feeds, {nchw.probabilities});
        DoNotOptimize(y);
      },
      [&] {
        std::vector<Tensor> y = channels_last.run(nhwc_feeds, {nhwc.probabilities});
        DoNotOptimize(y);
      },
  });
  Print("unfused." + name, seconds[0] * kUsPerSecond, "us");
  Print("fused." + name, seconds[1] * kUsPerSecond, "us");
  Print("fused_nhwc." + name, seconds[2] * kUsPerSecond, "us");
  Print("ratio.unoptimized_over_optimized." + name, seconds[0] / seconds[1], "x");
  Print("ratio.nchw_over_nhwc." + name, seconds[1] / seconds[2], "x");
}

struct TrainGraph {
  Graph graph;
  std::vector<Variable> variables;
  Tensor x, labels, loss;
};

// A 784-256-10 MLP's SGD step on variables of its own: the loss, gradients() and one
// ResourceApplyGradientDescent per variable (targets update_0 .. update_3), as graph_bench's.
TrainGraph BuildTrainStep() {
  TrainGraph t;
  const Variable w1(random_normal({784, 256}, 1, kFloat32, 0, 0.05), "w1"), b1(zeros({256}), "b1");
  const Variable w2(random_normal({256, 10}, 2, kFloat32, 0, 0.05), "w2"), b2(zeros({10}), "b2");
  t.variables = {w1, b1, w2, b2};
  const Tensor rate = constant(0.01f);
  GraphScope scope(t.graph);
  t.x = placeholder(kFloat32, {64, 784}, "x");
  t.labels = placeholder(kInt64, {64}, "labels");
  const Tensor logits = bias_add(matmul(relu(bias_add(matmul(t.x, w1), b1)), w2), b2);
  t.loss = reduce_mean(sparse_softmax_cross_entropy_with_logits(t.labels, logits));
  const std::vector<Tensor> grads =
      gradients({t.loss}, std::vector<GradientSource>(t.variables.begin(), t.variables.end()));
  ControlDependencies after_loss({t.loss});  // the updates must not race the forward's reads
  for (size_t i = 0; i < t.variables.size(); ++i) {
    resource_apply_gradient_descent(t.variables[i].handle(), rate, grads[i],
                                    "update_" + std::to_string(i));
  }
  return t;
}

const std::vector<GraphTensor> kUpdates = {"update_0", "update_1", "update_2", "update_3"};

void MlpTrainStepCase() {
  const std::string name = "mlp_train_step_b64_f32";
  const TrainGraph plain = BuildTrainStep(), fused = BuildTrainStep();
  Session unoptimized(plain.graph, SessionOptions{.optimize = false});
  Session optimized(fused.graph);
  const Tensor batch = random_normal({64, 784}, 3);
  const Tensor labels = cast(floor(random_uniform({64}, 4, kFloat32, 0, 10)), kInt64);
  auto step = [&](Session& session, const TrainGraph& t) {
    return session.run({{t.x, batch}, {t.labels, labels}}, {t.loss}, kUpdates)[0];
  };
  // Two steps each: the first loss checks the forward, the second the updates (the fused update
  // accumulates -rate * gradient in another order, so float32 rounding differs).
  for (int i = 0; i < 2; ++i) {
    const float want = step(unoptimized, plain).item<float>();
    const float got = step(optimized, fused).item<float>();
    std::fprintf(stderr, "# %s: loss after %d steps %.6f unoptimized, %.6f optimized\n",
                 name.c_str(), i, want, got);
    if (std::abs(got - want) > 1e-5 * std::max(1.f, std::abs(want))) {
      Fail(name + ": optimized loss differs");
    }
  }

  PrintPassStats(name, unoptimized.plan_info({plain.x, plain.labels}, {plain.loss}, kUpdates),
                 optimized.plan_info({fused.x, fused.labels}, {fused.loss}, kUpdates));
  // Both sessions keep training on their own variables while timed, at equal cost per step.
  auto run = [&](Session& session, const TrainGraph& t) {
    Tensor loss = step(session, t);
    DoNotOptimize(loss);
  };
  TimePair(
      name, [&] { run(unoptimized, plain); }, [&] { run(optimized, fused); });
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
  duet::CnnInferenceCase();
  duet::CnnInferenceNchwCase();
  duet::MlpTrainStepCase();
  return 0;
}
