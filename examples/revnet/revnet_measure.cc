// What reversible backprop costs and saves, on synthetic Fashion-MNIST-shaped batches (random
// images and labels: neither memory nor time depends on the values). Prints
// `name<TAB>value<TAB>unit` lines, as tools/bench does.
//
//   bazel run -c opt //examples/revnet:revnet_measure -- [--depth 4] [--batch 128]
//       [--channels 32] [--repeats 7] [--only memory|time]
//
// Memory: each configuration (regular or reversible backprop, eager or traced, at depth d, 2d
// and 4d) runs two training steps in a child process of its own, which reports its peak resident
// set (VmHWM) after building the model and at the end: the difference is the step's peak, pooled
// buffers and all. Eagerly it also reports what the allocator holds between the forward and the
// backward pass (bytes_in_use, measured from before the step): what the tapes keep for backprop.
// Time: median step times (gradients and update) of the four variants at depth d, interleaved
// in one process, and the ratios.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "duet.h"
#include "examples/revnet/flags.h"
#include "examples/revnet/revnet.h"

using namespace duet;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

struct Options {
  int depth, repeats;
  int64_t batch, channels;
  std::string only;
  // A child process's configuration (--child): one memory measurement.
  bool child, regular, eager;
};

Options ParseOptions(int argc, char** argv) {
  revnet::Flags flags(argc, argv);
  Options o;
  o.depth = flags.Int("depth", 4);
  o.repeats = flags.Int("repeats", 7);
  o.batch = flags.Int("batch", 128);
  o.channels = flags.Int("channels", 32);
  o.only = flags.String("only", "");
  o.child = flags.Switch("child");
  o.regular = flags.Switch("regular");
  o.eager = flags.Switch("eager");
  flags.CheckAllRead();
  return o;
}

void Print(const std::string& name, double value, const std::string& unit) {
  std::printf("%s\t%.4g\t%s\n", name.c_str(), value, unit.c_str());
  std::fflush(stdout);
}

// A line "Key:   123 kB" of /proc/self/status, in MiB.
double ProcStatusMiB(const std::string& key) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind(key + ":", 0) == 0) return std::stod(line.substr(key.size() + 1)) / 1024.0;
  }
  throw std::runtime_error("no " + key + " in /proc/self/status");
}

double BytesInUse() { return static_cast<double>(CpuAllocator::Get().stats().bytes_in_use); }

// A random batch of the training binary's shape and a model that has seen it (built).
struct Setup {
  explicit Setup(const Options& o)
      : model({.depth = o.depth, .channels = o.channels}),
        images(random_uniform({o.batch, 28, 28, 1}, /*seed=*/1)),
        labels(cast(floor(random_uniform({o.batch}, /*seed=*/2, kFloat32, 0, 10)), kInt64)) {
    model(slice(images, {0, 0, 0, 0}, {1, 28, 28, 1}));  // builds the layers on one image
  }
  revnet::RevNet model;
  optimizers::SGD sgd{0.01, 0.9};
  Tensor images, labels;
};

// A training step of `setup`'s model: reversible or regular gradients, then the update.
std::function<Tensor()> MakeStep(Setup& s, bool regular, bool eager,
                                 const revnet::AfterForward& after_forward = {}) {
  auto step = [&s, regular, after_forward](const Tensor& x, const Tensor& y) {
    const revnet::StepResult r = regular ? s.model.regular_gradients(x, y, after_forward)
                                         : s.model.reversible_gradients(x, y, after_forward);
    s.sgd.apply_gradients(r.grads, s.model.trainable_variables());
    return r.loss;
  };
  if (eager) return [&s, step] { return step(s.images, s.labels); };
  auto traced = duet::function(step);
  return [&s, traced]() mutable { return traced(s.images, s.labels); };
}

// The child's part: two steps of one configuration, then its memory lines.
void MeasureMemory(const Options& o) {
  Setup s(o);
  const double baseline = ProcStatusMiB("VmHWM");
  double before = 0, held = 0;
  revnet::AfterForward after_forward;
  if (o.eager) after_forward = [&] { held = std::max(held, BytesInUse() - before); };
  const std::function<Tensor()> step = MakeStep(s, o.regular, o.eager, after_forward);
  for (int i = 0; i < 2; ++i) {
    before = BytesInUse();
    step().item<float>();
  }
  Print("baseline", baseline, "MiB");
  Print("step_peak", ProcStatusMiB("VmHWM") - baseline, "MiB");
  if (o.eager) Print("held_for_backward", held / kMiB, "MiB");
}

// Runs this program again with `args` and returns its `name -> value` lines.
std::map<std::string, double> RunChild(const std::string& args) {
  std::array<char, 4096> self{};
  const ssize_t n = readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (n <= 0) throw std::runtime_error("cannot find /proc/self/exe");
  const std::string command = "'" + std::string(self.data(), n) + "' --child " + args;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
  std::map<std::string, double> values;
  std::array<char, 512> line{};
  while (std::fgets(line.data(), line.size(), pipe) != nullptr) {
    std::istringstream fields(line.data());
    std::string name;
    double value;
    if (fields >> name >> value) values[name] = value;
  }
  if (pclose(pipe) != 0) throw std::runtime_error("failed: " + command);
  return values;
}

std::string Name(bool regular, bool eager) {
  return std::string(regular ? "regular" : "reversible") + (eager ? ".eager" : ".traced");
}

void MemoryTable(const Options& o) {
  const std::string shape =
      " --batch " + std::to_string(o.batch) + " --channels " + std::to_string(o.channels);
  for (bool eager : {true, false}) {
    std::map<std::pair<bool, int>, double> peak;
    for (int times : {1, 2, 4}) {
      const int depth = o.depth * times;
      for (bool regular : {true, false}) {
        const std::string name =
            "memory." + Name(regular, eager) + ".depth" + std::to_string(depth);
        std::map<std::string, double> v =
            RunChild("--depth " + std::to_string(depth) + shape + (regular ? " --regular" : "") +
                     (eager ? " --eager" : ""));
        peak[{regular, times}] = v.at("step_peak");
        Print(name + ".step_peak", v.at("step_peak"), "MiB");
        if (eager) Print(name + ".held_for_backward", v.at("held_for_backward"), "MiB");
      }
      const std::string at =
          std::string(eager ? "eager" : "traced") + ".depth" + std::to_string(depth);
      Print("memory.ratio.regular_over_reversible." + at,
            peak[{true, times}] / peak[{false, times}], "x");
    }
    for (bool regular : {true, false}) {
      for (int times : {2, 4}) {
        Print("memory.growth." + Name(regular, eager) + "." + std::to_string(times) + "x_depth",
              peak[{regular, times}] / peak[{regular, 1}], "x");
      }
    }
  }
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median milliseconds per step of each variant, interleaved so that a noisy stretch of the
// machine's time hits all four alike; each repetition times 3 steps after 2 warm-up steps (the
// traced ones trace there).
void TimeTable(const Options& o) {
  Setup s(o);
  std::map<std::string, std::function<Tensor()>> steps;
  std::map<std::string, std::vector<double>> ms;
  for (bool eager : {true, false}) {
    for (bool regular : {true, false}) steps[Name(regular, eager)] = MakeStep(s, regular, eager);
  }
  for (auto& [name, step] : steps) {
    for (int i = 0; i < 2; ++i) step().item<float>();
  }
  for (int r = 0; r < o.repeats; ++r) {
    for (auto& [name, step] : steps) {
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < 3; ++i) step().item<float>();
      const std::chrono::duration<double, std::milli> took =
          std::chrono::steady_clock::now() - start;
      ms[name].push_back(took.count() / 3);
    }
  }
  std::map<std::string, double> median;
  for (const auto& [name, times] : ms) {
    median[name] = Median(times);
    Print("step_time." + name + ".depth" + std::to_string(o.depth), median[name], "ms");
  }
  for (const char* mode : {"eager", "traced"}) {
    const std::string m = mode;
    Print("overhead.reversible_over_regular." + m,
          100 * (median["reversible." + m] / median["regular." + m] - 1), "%");
  }
  for (const char* backprop : {"regular", "reversible"}) {
    const std::string b = backprop;
    Print("speedup.traced_over_eager." + b, median[b + ".eager"] / median[b + ".traced"], "x");
  }
}

int Run(const Options& o) {
  if (o.child) {
    MeasureMemory(o);
    return 0;
  }
  std::printf("# revnet_measure: base depth %d, batch %lld, channels %lld, %d repeats\n", o.depth,
              static_cast<long long>(o.batch), static_cast<long long>(o.channels), o.repeats);
  if (o.only.empty() || o.only == "memory") MemoryTable(o);
  if (o.only.empty() || o.only == "time") TimeTable(o);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(ParseOptions(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "revnet_measure: %s\n", e.what());
    return 1;
  }
}
