#include "tests/device_cases.h"

#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

// A device's tensors compared with the host's: the values on the host, within `tol`.
void ExpectOn(Device device, const Tensor& actual, const Tensor& expected, double tol) {
  CHECK(actual.device() == device);
  ExpectTensorNear(actual.cpu(), expected, tol);
}

}  // namespace

bool SkipWithoutVirtualDevice() {
  if (num_cpu_devices() > 1) return false;
  WARN("skipped: no virtual device cpu:1 (run with DUET_VIRTUAL_DEVICES=2, as the test rules do)");
  return true;
}

void CheckCopiesEveryDtype(Device device) {
  for (int64_t n : {0, 1, 100'003}) {
    for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool}) {
      INFO(DTypeName(dtype) << " x " << n);
      const Tensor x = cast(random_uniform({n}, 7, kFloat32, -50, 50), dtype);
      const Tensor there = x.to(device);
      CHECK(there.device() == device);
      CHECK_FALSE(there.shares_buffer_with(x));
      const Tensor back = there.cpu();
      CHECK(back.device() == Device::cpu());
      CHECK_FALSE(back.shares_buffer_with(there));
      ExpectTensorNear(back, x, 0);
    }
  }
}

void CheckReadingAndPrintingCopyBack(Device device) {
  const Tensor x = constant({1.5f, -2.f}).to(device);
  CHECK(x.to_vector<float>() == std::vector<float>{1.5f, -2.f});
  CHECK(constant(3.f).to(device).item<float>() == 3.f);
  CHECK(FormatTensor(x) ==
        "Tensor([ 1.5 -2. ], shape=(2,), dtype=float32, device=" + device.str() + ")");
}

void CheckOpsRunWhereInputsAre(Device device) {
  const Tensor a = random_normal({4, 4}, 1), b = random_normal({4, 4}, 2);
  ExpectOn(device, matmul(a.to(device), b.to(device)), matmul(a, b), 1e-5);
  ExpectError([&] { add(a.to(device), b); }, {"AddV2", device.str(), "cpu:0", "different devices"});
  ExpectOn(device, a.to(device) * 2.f, a * 2.f, 0);  // a host scalar goes along
  // So does an empty host tensor: DenseBincount's "no weights".
  const Tensor values = constant({1, 2, 2, 0});
  ExpectOn(device, dense_bincount(values.to(device), 4, zeros({0})),
           dense_bincount(values, 4, zeros({0})), 0);
}

void CheckConcatOfManyValues(Device device) {
  std::vector<Tensor> values, there;
  for (int i = 0; i < 70; ++i) {
    values.push_back(random_normal({2, 3}, i));
    there.push_back(values.back().to(device));
  }
  const Tensor expected = concat(values, 1);
  ExpectOn(device, concat(there, 1), expected, 0);
  auto traced = duet::function([](const std::vector<Tensor>& xs) { return concat(xs, -1); });
  ExpectOn(device, traced(there), expected, 0);
}

void CheckDeviceScope(Device device) {
  const Tensor x = random_normal({8, 8}, 3);
  Tensor y, z;
  {
    DeviceScope on(device);
    y = matmul(x, x);   // x is copied there
    z = zeros_like(x);  // the op makes its output on the scope's device
  }
  ExpectOn(device, y, matmul(x, x), 1e-5);
  ExpectOn(device, z, zeros({8, 8}), 0);
  ExpectOn(device, reduce_sum(y, {1}), reduce_sum(matmul(x, x), {1}), 1e-4);  // axis: host input
}

void CheckGradientsThroughCopies(Device device) {
  const Tensor x = constant({1.0, -2.0, 3.0});
  GradientTape tape;
  tape.watch(x);
  const Tensor there = x.to(device);
  const Tensor loss = reduce_sum(there * there).cpu();
  const Tensor dx = tape.gradient(loss, {x})[0];
  CHECK(dx.device() == Device::cpu());
  ExpectTensorNear(dx, constant({2.0, -4.0, 6.0}), 0);
}

void CheckVariablesLiveOnTheirDevice(Device device) {
  Variable v(constant({1.f, 2.f}).to(device), "v_on_device");
  CHECK(v.value().device() == device);
  v.assign_add(constant({0.5f, 0.5f}).to(device));
  v.assign_sub(constant({1.f, 1.f}));  // a host value: copied to the variable's device
  ExpectOn(device, v.value(), constant({0.5f, 1.5f}), 0);
  Variable scoped = [&] {
    DeviceScope on(device);
    return Variable(constant({4.0}), "scoped");  // made in a scope: lives there
  }();
  CHECK(scoped.value().device() == device);
}

void CheckSessionOnDevice(Device device) {
  const Tensor w = random_normal({8, 4}, 1);
  Graph g;
  Tensor x, y, back, host_side;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {-1, 8}, "x");  // on the host
    {
      DeviceScope on(device);
      y = softmax(relu(matmul(x, w)), "y");
    }
    back = identity(y * 1.f, "back").cpu();
    host_side = reduce_sum(x, {1}, false, "host_side");
  }
  const Tensor batch = random_normal({5, 8}, 2);
  const Tensor expected = softmax(relu(matmul(batch, w)));
  Session sess(g);
  for (int run = 0; run < 3; ++run) {  // the first run plans; later runs reuse it
    INFO("run " << run);
    const std::vector<Tensor> out = sess.run({{x, batch}}, {y, back, host_side});
    ExpectOn(device, out[0], expected, 1e-5);  // a fetch comes back where its node ran
    ExpectOn(Device::cpu(), out[1], expected, 1e-5);
    ExpectOn(Device::cpu(), out[2], reduce_sum(batch, {1}), 1e-5);
  }
  // A value fed from the device is copied to its host placeholder.
  const std::vector<Tensor> fed = sess.run({{x, batch.to(device)}}, {y, host_side});
  ExpectOn(device, fed[0], expected, 1e-5);
  ExpectOn(Device::cpu(), fed[1], reduce_sum(batch, {1}), 1e-5);
}

void CheckDeviceValuesReadThroughCopies(Device device) {
  // Two equal constants (CSE compares their bytes), ones and zeros (simplification looks for
  // them), captured from the device as Consts whose values are its memory.
  const Tensor ones_a = constant({1.f, 1.f, 1.f}).to(device);
  const Tensor ones_b = constant({1.f, 1.f, 1.f}).to(device);
  const Tensor zeros = constant({0.f, 0.f, 0.f}).to(device);
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {3}, "x");
    DeviceScope on(device);
    y = identity(x * ones_a + zeros + x * ones_b, "y");
  }
  SessionOptions options;
  options.passes.verify = true;  // the shadow check compares the fetches of both graphs
  Session sess(g, options);
  ExpectOn(device, sess.run({{x, constant({1.f, 2.f, 3.f})}}, {y})[0], constant({2.f, 4.f, 6.f}),
           0);

  DeviceScope on(device);  // as a layer builds its variables
  const Tensor w = initializers::orthogonal(1.0, 7)(Shape{5, 3}, kFloat32);
  CHECK(w.device() == device);
  ExpectTensorNear(matmul(w, w, /*transpose_a=*/true).cpu(),
                   constant({{1.f, 0.f, 0.f}, {0.f, 1.f, 0.f}, {0.f, 0.f, 1.f}}), 1e-5);
}

void CheckSessionVariablesOnDevice(Device device) {
  Variable v = [&] {
    DeviceScope on(device);
    return Variable(constant({1.0, 2.0}), "session_v");
  }();
  Graph g;
  Tensor x, read, update;
  {
    GraphScope scope(g);
    {
      DeviceScope on(device);
      x = placeholder(kFloat64, {2}, "x");  // fed from the host: the session copies the value
    }
    read = v.value() * x;  // both on the device
    v.assign_add(x);       // runs on the variable's device
    update = v.value();
  }
  Session sess(g);
  const std::vector<Tensor> out = sess.run({{x, constant({0.5, 0.5})}}, {read, update});
  ExpectOn(device, out[0], constant({0.5, 1.0}), 0);
  ExpectOn(device, out[1], constant({1.5, 2.5}), 0);
  ExpectOn(device, v.value(), constant({1.5, 2.5}), 0);
}

void CheckFusedElementwiseWithHostScalars(Device device) {
  // The scalars are host Consts; the fused kernel on the device must get copies of them there
  // (on a GPU, an NVRTC kernel once read a host address this way).
  const auto chain = [](const Tensor& x) { return tanh(x * 2.f + 1.f) * x - 0.5f; };
  const Tensor in = random_normal({3, 8}, 1);
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    DeviceScope on(device);
    x = placeholder(kFloat32, {3, 8}, "x");
    y = chain(x);
  }
  Session sess(g);
  ExpectOn(device, sess.run({{x, in}}, {y})[0], chain(in), 1e-6);
  CHECK(sess.plan_info({x}, {y}).passes.counter("fusion.elementwise") == 1);
  auto traced = duet::function(chain);  // the same in a function's plan
  ExpectOn(device, traced(in.to(device)), chain(in), 1e-6);
}

void CheckTracedTrainingStep(Device device) {
  auto make = [](Device on_device) {
    DeviceScope on(on_device);
    return std::vector<Variable>{Variable(random_normal({6, 8}, 11, kFloat64, 0, 0.3), "w1"),
                                 Variable(zeros({8}, kFloat64), "b1"),
                                 Variable(random_normal({8, 3}, 12, kFloat64, 0, 0.3), "w2"),
                                 Variable(zeros({3}, kFloat64), "b2")};
  };
  const std::vector<Variable> host_vars = make(Device::cpu()), device_vars = make(device);
  auto step_of = [](const std::vector<Variable>& v) {
    return duet::function([v](const Tensor& xs, const Tensor& ys) {
      GradientTape tape;
      const Tensor h = relu(bias_add(matmul(xs, v[0]), v[1]));
      const Tensor loss = reduce_mean(
          sparse_softmax_cross_entropy_with_logits(ys, bias_add(matmul(h, v[2]), v[3])));
      const std::vector<Tensor> grads =
          tape.gradient(loss, std::vector<GradientSource>(v.begin(), v.end()));
      for (size_t i = 0; i < v.size(); ++i) v[i].assign_sub(0.1 * grads[i]);
      return loss;
    });
  };
  auto host_step = step_of(host_vars);
  auto device_step = step_of(device_vars);
  const Tensor x = random_normal({16, 6}, 5, kFloat64);
  const Tensor y = cast(floor(random_uniform({16}, 6, kFloat32, 0, 3)), kInt64);
  const Tensor dx = x.to(device), dy = y.to(device);
  std::vector<Tensor> device_losses;
  device_losses.push_back(device_step(dx, dy));  // traces and plans
  // The steps, gradients and updates included, never touch the host: no copy either way.
  const HostTransfers before = host_transfers();
  for (int step = 1; step < 10; ++step) device_losses.push_back(device_step(dx, dy));
  const HostTransfers after = host_transfers();
  CHECK(after.to_device == before.to_device);
  CHECK(after.to_host == before.to_host);
  for (int step = 0; step < 10; ++step) {
    INFO("step " << step);
    ExpectOn(device, device_losses[step], host_step(x, y), 1e-9);
  }
  for (size_t i = 0; i < host_vars.size(); ++i) {
    ExpectOn(device, device_vars[i].value(), host_vars[i].value(), 1e-9);
  }
}

void CheckTracedControlFlow(Device device) {
  // A cond on a predicate computed on the device (If reads it on the host), a loop whose counter
  // stays on the host while its accumulator lives on the device, and the gradient of the cond.
  auto f = duet::function([](const Tensor& x, const Tensor& n) {
    GradientTape tape;
    tape.watch(x);
    const std::vector<Tensor> branch = cond(
        reduce_sum(x) > 0.0, [&] { return std::vector<Tensor>{x * x * 2.0}; },
        [&] { return std::vector<Tensor>{exp(x) - 1.0}; });
    const Tensor loss = reduce_sum(branch[0]);
    const Tensor dx = tape.gradient(loss, {x})[0];
    const std::vector<Tensor> loop =
        while_loop([&](const std::vector<Tensor>& v) { return v[0] < n; },
                   [](const std::vector<Tensor>& v) {
                     return std::vector<Tensor>{v[0] + 1, v[1] * 1.5 + 0.25};
                   },
                   {constant(0), branch[0]});
    return std::make_tuple(loss, dx, loop[1]);
  });
  const Tensor n = constant(3);
  for (double sign : {1.0, -1.0}) {
    INFO("sign " << sign);
    const Tensor x = random_normal({5}, 21, kFloat64) * 0.1 + sign;
    const auto [loss, dx, looped] = f(x, n);
    const auto [device_loss, device_dx, device_looped] = f(x.to(device), n);
    ExpectOn(device, device_loss, loss, 1e-12);
    ExpectOn(device, device_dx, dx, 1e-12);
    ExpectOn(device, device_looped, looped, 1e-12);
  }
}

void CheckNestedCallsAndTheirGradients(Device device) {
  // A traced function calling another, with one variable on the device and one on the host: the
  // call takes each argument where it lives (Note [Calls across devices] in ops/placement.h), and
  // an eager tape over the outer call hands each gradient back on its source's device.
  auto make = [&](Device on_device) {
    DeviceScope on(on_device);
    return Variable(random_normal({4, 3}, 31, kFloat64), "w_nested");
  };
  const Variable host_w = make(Device::cpu()), device_w = make(device);
  const Variable scale(constant(1.5), "scale");  // on the host for both
  auto inner = duet::function([](const Tensor& h, const Variable& w) { return matmul(h, w); });
  auto outer = duet::function([&](const Tensor& x, const Variable& w) {
    return reduce_sum(tanh(inner(x * scale.value(), w)));
  });
  const Tensor x = random_normal({2, 4}, 32, kFloat64);
  auto run = [&](const Tensor& xs, const Variable& w) {
    GradientTape tape;
    tape.watch(xs);
    const Tensor loss = outer(xs, w);
    const std::vector<Tensor> grads = tape.gradient(loss, {xs, w, scale});
    return std::make_tuple(loss, grads);
  };
  const auto [loss, grads] = run(x, host_w);
  const auto [device_loss, device_grads] = run(x.to(device), device_w);
  ExpectOn(device, device_loss, loss, 1e-12);
  ExpectOn(device, device_grads[0], grads[0], 1e-12);
  ExpectOn(device, device_grads[1], grads[1], 1e-12);
  ExpectOn(Device::cpu(), device_grads[2], grads[2], 1e-12);
}

void CheckFrozenExportOfAFunctionTracedThere(Device device) {
  const Variable w = [&] {
    DeviceScope on(device);
    return Variable(random_normal({3, 2}, 61), "w_export");
  }();
  const Tensor bias = random_normal({2}, 62).to(device);  // captured: a Const of a device tensor
  auto f = duet::function([&](const Tensor& x) { return relu(matmul(x, w.value()) + bias); });
  const Tensor x = random_normal({4, 3}, 63).to(device);
  const Tensor y = f(x);
  // Frozen: the variable and the captured tensor become Consts, written from host memory; the
  // nodes keep their device, so the imported graph runs there again.
  const Graph g = Graph::from_graph_def(f.frozen_graph_def(x));
  bool on_device = false;
  for (const Node* node : g.nodes()) on_device = on_device || node->placement() == device;
  CHECK(on_device);
  const std::vector<Tensor> out = Session(g).run({{"arg0", x.cpu()}}, {"output_0"});
  ExpectOn(device, out[0], y.cpu(), 1e-6);
}

namespace {

struct Mlp : nn::Module {
  nn::Dense hidden{this, "hidden", 16, Activation::kRelu};
  nn::Dense logits{this, "logits", 3};
  Tensor operator()(const Tensor& x, bool /*training*/) { return logits(hidden(x)); }
};

struct ConvBnRelu : nn::Module {
  // No bias before the batch norm, which cancels it: its true gradient is 0, and Adam would turn
  // the rounding noise standing for it (which differs between devices' kernels) into steps.
  nn::Conv2D conv{this, "conv", 4, 3, {.padding = "same", .use_bias = false}};
  nn::BatchNorm norm{this, "norm"};
  nn::MaxPool2D pool{this, "pool"};
  nn::Flatten flatten{this};
  nn::Dense logits{this, "logits", 3};
  Tensor operator()(const Tensor& x, bool training) {
    return logits(flatten(pool(relu(norm(conv(x), training)))));
  }
};

// Three traced training steps of `Model` with `Optimizer` on `device`, the model built (on its
// first call) and the optimizer made under a DeviceScope there, or the optimizer made outside any
// scope (its step counter then stays on the host). Returns the losses, then every variable.
template <typename Model, typename Optimizer>
std::vector<Tensor> Train(Device device, const Tensor& x, const Tensor& y,
                          bool optimizer_in_scope) {
  initializers::set_random_seed(41);
  Model model;
  std::unique_ptr<Optimizer> optimizer;
  if (!optimizer_in_scope) optimizer = std::make_unique<Optimizer>(0.05);
  DeviceScope on(device);
  if (optimizer_in_scope) optimizer = std::make_unique<Optimizer>(0.05);
  auto step = duet::function([&](const Tensor& xs, const Tensor& ys) {
    GradientTape tape;
    const Tensor loss =
        losses::sparse_categorical_crossentropy(ys, model(xs, /*training=*/true), true);
    optimizer->apply_gradients(tape.gradient(loss, model.trainable_variables()),
                               model.trainable_variables());
    return loss;
  });
  std::vector<Tensor> results;
  for (int i = 0; i < 3; ++i) results.push_back(step(x.to(device), y.to(device)));
  for (const Variable& v : model.variables()) results.push_back(v.value());
  for (const Variable& v : optimizer->variables()) results.push_back(v.value());
  return results;
}

template <typename Model, typename Optimizer>
void CheckTraining(Device device, const std::string& what, const Tensor& x, const Tensor& y) {
  const std::vector<Tensor> host = Train<Model, Optimizer>(Device::cpu(), x, y, true);
  for (bool optimizer_in_scope : {true, false}) {
    INFO(what << (optimizer_in_scope ? "" : ", the optimizer made outside the DeviceScope"));
    const std::vector<Tensor> there = Train<Model, Optimizer>(device, x, y, optimizer_in_scope);
    REQUIRE(there.size() == host.size());
    for (size_t i = 0; i < host.size(); ++i) {
      INFO("result " << i << " (3 losses, then the model's and the optimizer's variables)");
      if (there[i].dtype() == kInt64) {  // the optimizer's step counter: where it was made
        ExpectTensorNear(there[i].cpu(), host[i], 0);
        continue;
      }
      ExpectOn(device, there[i], host[i], 1e-5);
    }
  }
}

}  // namespace

void CheckTracedModelTraining(Device device) {
  const Tensor x = random_normal({8, 5}, 51);
  const Tensor y = cast(floor(random_uniform({8}, 52, kFloat32, 0, 3)), kInt64);
  CheckTraining<Mlp, optimizers::SGD>(device, "MLP with SGD", x, y);
  CheckTraining<Mlp, optimizers::Adam>(device, "MLP with Adam", x, y);
  const Tensor images = random_normal({4, 6, 6, 2}, 53);
  const Tensor labels = cast(floor(random_uniform({4}, 54, kFloat32, 0, 3)), kInt64);
  CheckTraining<ConvBnRelu, optimizers::SGD>(device, "conv-bn-relu CNN with SGD", images, labels);
  CheckTraining<ConvBnRelu, optimizers::Adam>(device, "conv-bn-relu CNN with Adam", images, labels);
}

}  // namespace duet::testing
