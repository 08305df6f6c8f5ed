// Graph mode against eager execution, in one process:
//   - graph.chain_1000_tiny_ns_per_node: Session::run of a chain of 1,000 AddV2 nodes on 4-element
//     float32 values, not optimized (the executor's cost per node), time per node;
//     eager.chain_1000_tiny_ns_per_op: the same 1,000 adds eagerly.
//   - {eager,session}.mlp_784_256_256_10_forward_f32: us per forward pass of a 784-256-256-10 MLP
//     (relu, batch 64); {eager,session}.chain_50_64x64_f32: us per 50-op elementwise chain on
//     64x64.
//   - {eager,session}.mlp_train_step_peak_rss: how far the peak resident memory (MiB, getrusage)
//     of a process rises above its resident memory at the start while it runs 50 SGD steps of a
//     784-256-256-10 MLP of the forward case (batch 64) eagerly with a GradientTape, or as one
//     Session::run of a graph with gradients() and ResourceApplyGradientDescent nodes. Each is
//     measured in a child process of its own (`graph_bench --peak_rss eager|session`). The
//     *_code_resident variants first fault in the pages of the code both modes share (`--peak_rss
//     MODE --code_resident`), so their growth counts the memory training allocates, not which code
//     pages each mode touched.
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "duet.h"
#include "tools/bench/bench_util.h"

namespace duet {
namespace {

using duet_bench::DoNotOptimize;
using duet_bench::InterleavedMedianSecondsPerCall;
using duet_bench::Print;

constexpr double kNsPerSecond = 1e9, kUsPerSecond = 1e6;

void TinyChain() {
  constexpr int kNodes = 1000;
  const Tensor one = constant({1.f, 1.f, 1.f, 1.f});
  const Tensor start = constant({0.f, 1.f, 2.f, 3.f});
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {4}, "x");
    y = x;
    for (int i = 0; i < kNodes; ++i) y = y + one;
  }
  // Not optimized: fuse_elementwise would make the chain one node, and this measures the executor.
  Session session(g, SessionOptions{.optimize = false});
  const std::vector<double> seconds = InterleavedMedianSecondsPerCall({
      [&] {
        std::vector<Tensor> out = session.run({{x, start}}, {y});
        DoNotOptimize(out);
      },
      [&] {
        Tensor v = start;
        for (int i = 0; i < kNodes; ++i) v = v + one;
        DoNotOptimize(v);
      },
  });
  Print("graph.chain_1000_tiny_ns_per_node", seconds[0] / kNodes * kNsPerSecond, "ns");
  Print("eager.chain_1000_tiny_ns_per_op", seconds[1] / kNodes * kNsPerSecond, "ns");
}

struct Mlp {
  Tensor w1 = random_normal({784, 256}, 1, kFloat32, 0, 0.05), b1 = zeros({256});
  Tensor w2 = random_normal({256, 256}, 2, kFloat32, 0, 0.05), b2 = zeros({256});
  Tensor w3 = random_normal({256, 10}, 3, kFloat32, 0, 0.05), b3 = zeros({10});
  Tensor operator()(const Tensor& x) const {
    const Tensor h1 = relu(bias_add(matmul(x, w1), b1));
    const Tensor h2 = relu(bias_add(matmul(h1, w2), b2));
    return bias_add(matmul(h2, w3), b3);
  }
};

Tensor ElementwiseChain(const Tensor& x) {
  Tensor y = x;
  for (int i = 0; i < 10; ++i) y = tanh(relu(y * 0.9f + 0.1f) - 0.05f);  // 5 ops per round
  return y;
}

// Eager vs Session::run of the same function of one input, median us per call.
void EagerVsSession(const std::string& name, const std::function<Tensor(const Tensor&)>& fn,
                    const Tensor& input) {
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(input.dtype(), input.shape(), "x");
    y = fn(x);
  }
  Session session(g);
  const std::vector<double> seconds = InterleavedMedianSecondsPerCall({
      [&] {
        Tensor out = fn(input);
        DoNotOptimize(out);
      },
      [&] {
        std::vector<Tensor> out = session.run({{x, input}}, {y});
        DoNotOptimize(out);
      },
  });
  Print("eager." + name, seconds[0] * kUsPerSecond, "us");
  Print("session." + name, seconds[1] * kUsPerSecond, "us");
}

// 50 SGD steps of case (b)'s 784-256-256-10 MLP (batch 64, mean sparse softmax cross-entropy);
// returns the final loss.
float TrainSteps(bool as_session) {
  constexpr int kSteps = 50;
  Variable w1(random_normal({784, 256}, 1, kFloat32, 0, 0.05), "w1"), b1(zeros({256}), "b1");
  Variable w2(random_normal({256, 256}, 2, kFloat32, 0, 0.05), "w2"), b2(zeros({256}), "b2");
  Variable w3(random_normal({256, 10}, 3, kFloat32, 0, 0.05), "w3"), b3(zeros({10}), "b3");
  const std::vector<Variable> variables = {w1, b1, w2, b2, w3, b3};
  const Tensor batch = random_normal({64, 784}, 4);
  const Tensor labels = cast(floor(random_uniform({64}, 5, kFloat32, 0, 10)), kInt64);
  const Tensor rate = constant(0.01f);
  auto loss_of = [&](const Tensor& x, const Tensor& y) {
    const Tensor h1 = relu(bias_add(matmul(x, w1), b1));
    const Tensor h2 = relu(bias_add(matmul(h1, w2), b2));
    const Tensor logits = bias_add(matmul(h2, w3), b3);
    return reduce_mean(sparse_softmax_cross_entropy_with_logits(y, logits));
  };
  Tensor loss;
  if (!as_session) {
    for (int step = 0; step < kSteps; ++step) {
      GradientTape tape;
      loss = loss_of(batch, labels);
      const std::vector<Tensor> grads = tape.gradient(loss, variables);
      for (size_t i = 0; i < variables.size(); ++i) {
        resource_apply_gradient_descent(variables[i].handle(), rate, grads[i]);
      }
    }
    return loss.item<float>();
  }
  Graph g;
  Tensor x, y, l;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {-1, 784}, "x");
    y = placeholder(kInt64, {-1}, "labels");
    l = loss_of(x, y);
    const std::vector<Tensor> grads =
        gradients({l}, std::vector<GradientSource>(variables.begin(), variables.end()));
    ControlDependencies after_loss({l});
    for (size_t i = 0; i < variables.size(); ++i) {
      resource_apply_gradient_descent(variables[i].handle(), rate, grads[i],
                                      "update_" + std::to_string(i));
    }
  }
  Session session(g);
  std::vector<GraphTensor> updates;
  for (size_t i = 0; i < variables.size(); ++i) updates.push_back("update_" + std::to_string(i));
  for (int step = 0; step < kSteps; ++step) {
    loss = session.run({{x, batch}, {y, labels}}, {l}, updates)[0];
  }
  return loss.item<float>();
}

double PeakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
}

double CurrentRssMiB() {
  long pages = 0, resident = 0;
  if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(statm, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(statm);
  }
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1048576.0;
}

// Faults in every page of the process's file-backed mappings under 64 MiB (this binary, oneDNN,
// the C++ and math runtimes; not the CUDA libraries, which the CPU path never runs), so that the
// growth measured afterwards is the memory training allocates (data, oneDNN's JIT code) rather
// than which pages of the same code each mode happens to execute first. Returns false when the
// kernel cannot (MADV_POPULATE_READ is Linux 5.14+).
bool MakeCodeResident() {
  std::FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return false;
  bool ok = true;
  char line[4096];
  while (std::fgets(line, sizeof line, maps) != nullptr) {
    uintptr_t begin = 0, end = 0;
    char perms[8] = {};
    int path_at = 0;
    if (std::sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &begin, &end, perms, &path_at) < 3)
      continue;
    const bool from_file = line[path_at] == '/';
    if (!from_file || perms[0] != 'r' || end - begin >= (64u << 20)) continue;
    ok &= madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_READ) == 0;
  }
  std::fclose(maps);
  return ok;
}

// Runs `self --peak_rss mode [--code_resident]` and returns the MiB it prints, or -1.
double ChildPeakRss(const char* self, const char* mode, bool code_resident) {
  const std::string command =
      std::string(self) + " --peak_rss " + mode + (code_resident ? " --code_resident" : "");
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  double mib = -1;
  if (std::fscanf(pipe, "%lf", &mib) != 1) mib = -1;
  pclose(pipe);
  return mib;
}

}  // namespace
}  // namespace duet

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "--peak_rss") == 0) {
    // Growth of the peak over what the process held before (libraries, the thread pool): what
    // the training itself needs.
    duet::random_normal({8}, 1);  // loads and initializes the kernels, as both modes do
    if (argc == 4 && !duet::MakeCodeResident()) {
      std::printf("-1\n");  // the kernel cannot prefault: no figure rather than a wrong one
      return 0;
    }
    const double before = duet::CurrentRssMiB();
    const float loss = duet::TrainSteps(std::strcmp(argv[2], "session") == 0);
    std::printf("%.2f\n", duet::PeakRssMiB() - before);
    std::fprintf(stderr, "# %s training: loss %.4f after 50 steps\n", argv[2], loss);
    return 0;
  }
  duet::TinyChain();
  duet::EagerVsSession("mlp_784_256_256_10_forward_f32", duet::Mlp(),
                       duet::random_normal({64, 784}, 7));
  duet::EagerVsSession("chain_50_64x64_f32", duet::ElementwiseChain,
                       duet::random_normal({64, 64}, 8));
  for (const bool code_resident : {false, true}) {
    const std::string suffix = code_resident ? "_code_resident" : "";
    for (const char* mode : {"eager", "session"}) {
      duet_bench::Print(std::string(mode) + ".mlp_train_step_peak_rss" + suffix,
                        duet::ChildPeakRss(argv[0], mode, code_resident), "MiB");
    }
  }
  return 0;
}
