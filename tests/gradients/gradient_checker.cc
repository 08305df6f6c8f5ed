#include "tests/gradients/gradient_checker.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_join.h"
#include "kernels/kernel_registry.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

// sum over outputs of sum(y * w), on the host in float64.
double Project(const std::vector<Tensor>& ys, const std::vector<std::vector<double>>& ws) {
  double total = 0;
  for (size_t k = 0; k < ys.size(); ++k) {
    if (ws[k].empty()) continue;
    const std::vector<double> y = ToDoubles(ys[k]);
    for (size_t i = 0; i < y.size(); ++i) total += y[i] * ws[k][i];
  }
  return total;
}

std::vector<int> Differentiated(const std::vector<Tensor>& inputs,
                                const GradientCheckOptions& options) {
  if (!options.wrt.empty()) return options.wrt;
  std::vector<int> wrt;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (IsFloating(inputs[i].dtype())) wrt.push_back(static_cast<int>(i));
  }
  return wrt;
}

// A copy of `x` (float64) with element i moved by `step`.
Tensor Perturbed(const Tensor& x, int64_t i, double step) {
  std::vector<double> v = x.to_vector<double>();
  v[i] += step;
  return from_vector(v, x.shape());
}

std::vector<std::string>& Tested() {
  static auto* ops = new std::vector<std::string>;
  return *ops;
}

// f as a graph: eager vs Session outputs, and gradients() vs the tape's `analytic` gradients
// (same weights). Same kernels, so they agree to rounding.
void CheckGraphAgreement(const std::string& op, const TestFn& f, const std::vector<Tensor>& inputs,
                         const std::vector<int>& wrt, const std::vector<Tensor>& eager_outputs,
                         const std::vector<Tensor>& weights, const std::vector<Tensor>& analytic) {
  Graph graph;
  std::vector<Tensor> xs = inputs, ys, grads;
  {
    GraphScope scope(graph);
    for (int i : wrt) xs[i] = placeholder(inputs[i].dtype(), inputs[i].shape());
    ys = f(xs);
    std::vector<Tensor> targets;
    for (const Tensor& y : ys) {
      if (IsFloating(y.dtype())) targets.push_back(y);
    }
    std::vector<GradientSource> sources;
    for (int i : wrt) sources.push_back(xs[i]);
    grads = gradients(targets, sources, weights);
  }
  bool has_op = false;
  for (const Node* node : graph.nodes()) has_op = has_op || node->op().name == op;
  INFO(op << " in graph mode");
  REQUIRE(has_op);
  FeedList feeds;
  for (int i : wrt) feeds.emplace_back(xs[i], inputs[i]);
  std::vector<GraphTensor> fetches(ys.begin(), ys.end());
  for (const Tensor& g : grads) {
    if (g.defined()) fetches.emplace_back(g);
  }
  const std::vector<Tensor> got = Session(graph).run(feeds, fetches);
  for (size_t k = 0; k < ys.size(); ++k) {
    INFO("output " << k << ": graph vs eager");
    REQUIRE(got[k].shape() == eager_outputs[k].shape());
    ExpectTensorNear(got[k], eager_outputs[k], 1e-12);
  }
  size_t next = ys.size();
  for (size_t s = 0; s < grads.size(); ++s) {
    INFO("gradient of input " << wrt[s] << ": gradients() vs the tape");
    REQUIRE(grads[s].defined() == analytic[s].defined());
    if (grads[s].defined()) ExpectTensorNear(got[next++], analytic[s], 1e-10);
  }
}

// Note [Gradient checks on other devices]: f also runs on copies of the inputs on another device,
// inside a DeviceScope (so constants f makes move there too), under a tape: its outputs and
// gradients must equal the host's. On cpu:1 (DUET_VIRTUAL_DEVICES=2, which every test run sets:
// Note [Virtual devices] in core/device.cc) the kernels are the host's, so this checks placement,
// copies and the device check through every gradient, within 1e-12. With a GPU (and
// --config=cuda) it also runs on cuda:0, computed by the CUDA kernels without host round trips:
// both are float64, so only summation order differs (1e-9). Ops with no float64 CUDA kernel run on
// the CPU only (eager placement does not fall back to the CPU), so they skip the GPU, saying so.
void CheckDeviceAgreement(const std::string& op, Device device, double tol,
                          const std::vector<Tensor>& inputs, const TestFn& f,
                          const std::vector<int>& wrt, const std::vector<Tensor>& host_outputs,
                          const std::vector<Tensor>& weights, const std::vector<Tensor>& analytic) {
  DeviceScope on_device(device);
  std::vector<Tensor> xs;
  for (const Tensor& x : inputs) xs.push_back(x.to(device));
  GradientTape tape;
  for (int i : wrt) tape.watch(xs[i]);
  const std::vector<Tensor> ys = f(xs);
  std::vector<Tensor> targets, device_weights;
  for (const Tensor& y : ys) {
    if (IsFloating(y.dtype())) targets.push_back(y);
  }
  for (const Tensor& w : weights) device_weights.push_back(w.to(device));
  std::vector<GradientSource> sources;
  for (int i : wrt) sources.push_back(xs[i]);
  const std::vector<Tensor> grads = tape.gradient(targets, sources, device_weights);
  for (size_t k = 0; k < ys.size(); ++k) {
    INFO("output " << k << ": " << device.str() << " vs the host");
    CHECK(ys[k].device() == device);
    ExpectTensorNear(ys[k].cpu(), host_outputs[k], tol);
  }
  for (size_t s = 0; s < grads.size(); ++s) {
    INFO("gradient of input " << wrt[s] << ": " << device.str() << " vs the host");
    REQUIRE(grads[s].defined() == analytic[s].defined());
    if (!grads[s].defined()) continue;
    CHECK(grads[s].device() == device);
    ExpectTensorNear(grads[s].cpu(), analytic[s], tol);
  }
}

void CheckOtherDevices(const std::string& op, const std::vector<Tensor>& inputs, const TestFn& f,
                       const std::vector<int>& wrt, const std::vector<Tensor>& host_outputs,
                       const std::vector<Tensor>& weights, const std::vector<Tensor>& analytic) {
  if (num_cpu_devices() > 1) {
    CheckDeviceAgreement(op, Device::cpu(1), 1e-12, inputs, f, wrt, host_outputs, weights,
                         analytic);
  }
#if DUET_CUDA
  if (num_gpus() == 0) return;
  const OpDef* def = OpRegistry::Global().Find(op);
  if (def == nullptr || FindKernel(*def, DeviceType::kCuda, kFloat64) == nullptr) {
    WARN(op << " has no float64 CUDA kernel: GPU agreement not checked");
    return;
  }
  CheckDeviceAgreement(op, Device::cuda(0), 1e-9, inputs, f, wrt, host_outputs, weights, analytic);
#endif
}

}  // namespace

void CheckGradients(const std::string& op, const TestFn& f, const std::vector<Tensor>& inputs,
                    const GradientCheckOptions& options) {
  const std::vector<int> wrt = Differentiated(inputs, options);
  REQUIRE(!wrt.empty());
  for (int i : wrt) REQUIRE(inputs[i].dtype() == kFloat64);

  // Analytic: the tape's vector-Jacobian product with random output weights.
  std::vector<Tensor> xs;
  for (const Tensor& x : inputs) xs.push_back(x.ViewAs(x.dtype(), x.shape(), x.device()));
  GradientTape tape;
  for (int i : wrt) tape.watch(xs[i]);
  const std::vector<Tensor> ys = f(xs);
  std::vector<std::vector<double>> ws(ys.size());
  std::vector<Tensor> targets, weights;
  for (size_t k = 0; k < ys.size(); ++k) {
    if (!IsFloating(ys[k].dtype())) continue;
    const Tensor w = RandomInput(ys[k].shape(), 1000 + k, -1, 1);
    ws[k] = w.to_vector<double>();
    targets.push_back(ys[k]);
    weights.push_back(cast(w, ys[k].dtype()));
  }
  std::vector<std::string> recorded = tape_internal::RecordedOpNames(tape);
  INFO("op: " << op << "; the tape recorded: " << absl::StrJoin(recorded, ", "));
  REQUIRE(std::find(recorded.begin(), recorded.end(), op) != recorded.end());
  std::vector<GradientSource> sources;
  for (int i : wrt) sources.push_back(xs[i]);
  const std::vector<Tensor> analytic = tape.gradient(targets, sources, weights);
  if (options.check_graph) CheckGraphAgreement(op, f, inputs, wrt, ys, weights, analytic);
  CheckOtherDevices(op, inputs, f, wrt, ys, weights, analytic);

  // Numeric: central differences of the same projection.
  for (size_t s = 0; s < wrt.size(); ++s) {
    const int i = wrt[s];
    const int64_t n = inputs[i].num_elements();
    std::vector<double> numeric(n);
    for (int64_t j = 0; j < n; ++j) {
      std::vector<Tensor> plus = inputs, minus = inputs;
      plus[i] = Perturbed(inputs[i], j, options.delta);
      minus[i] = Perturbed(inputs[i], j, -options.delta);
      numeric[j] = (Project(f(plus), ws) - Project(f(minus), ws)) / (2 * options.delta);
    }
    std::vector<double> got(n, 0.0);
    if (analytic[s].defined()) {
      REQUIRE(analytic[s].shape() == inputs[i].shape());
      got = ToDoubles(analytic[s]);
    }
    double scale = 1;
    for (double v : numeric) scale = std::max(scale, std::abs(v));
    for (int64_t j = 0; j < n; ++j) {
      INFO(op << ": d/d input " << i << " " << inputs[i].shape().str() << " element " << j
              << ": tape " << got[j] << ", finite differences " << numeric[j]);
      CHECK(std::abs(got[j] - numeric[j]) <= options.tolerance * scale);
    }
  }
}

void CheckSecondOrderGradients(const std::string& op, const TestFn& f,
                               const std::vector<Tensor>& inputs,
                               const GradientCheckOptions& options) {
  const std::vector<int> wrt = Differentiated(inputs, options);
  const TestFn first_order = [&](const std::vector<Tensor>& xs) {
    GradientTape tape;
    for (int i : wrt) tape.watch(xs[i]);
    const std::vector<Tensor> ys = f(xs);
    std::vector<Tensor> targets, weights;
    for (size_t k = 0; k < ys.size(); ++k) {
      if (!IsFloating(ys[k].dtype())) continue;
      targets.push_back(ys[k]);
      weights.push_back(cast(RandomInput(ys[k].shape(), 2000 + k), ys[k].dtype()));
    }
    std::vector<GradientSource> sources;
    for (int i : wrt) sources.push_back(xs[i]);
    std::vector<Tensor> grads = tape.gradient(targets, sources, weights);
    for (size_t s = 0; s < grads.size(); ++s) {
      // zeros_like: on the input's device (zeros() makes host values).
      if (!grads[s].defined()) grads[s] = zeros_like(xs[wrt[s]]);
    }
    return grads;
  };
  GradientCheckOptions second = options;
  second.tolerance = std::max(options.tolerance, 1e-5);
  second.check_graph = false;  // first_order runs a tape, which records nothing in a graph
  CheckGradients(op, first_order, inputs, second);
}

Tensor RandomInput(const Shape& shape, int64_t seed, double lo, double hi) {
  return random_uniform(shape, seed, kFloat64, lo, hi);
}

bool MarkGradientTested(const std::string& op) {
  Tested().push_back(op);
  return true;
}

const std::vector<std::string>& GradientTestedOps() { return Tested(); }

}  // namespace duet::testing
