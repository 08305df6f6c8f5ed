// docs/api.md's snippets, as written, for the sections that exist today: this file must compile
// against duet.h alone (a rename or a dropped overload breaks the build), and the snippets that
// need no GPU or files also run. Keep each snippet verbatim; only declarations the page leaves
// to the reader (a model, a batch) are added.
#include <catch2/catch.hpp>
#include <cmath>
#include <iostream>
#include <sstream>

#include "duet.h"

// clang-format off: the snippets keep the page's layout.
namespace {

using namespace duet;

// "Tensors and eager ops".
void TensorsAndEagerOps() {
  Tensor a = constant({{1.f, 2.f}, {3.f, 4.f}});
  Tensor b = a + 1;
  Tensor c = a * b;
  Tensor m = matmul(a, a);
  std::ostringstream cout;  // std::cout in the page
  cout << m;
  std::vector<float> v = m.to_vector<float>();
  Tensor z = zeros({2, 3}), o = ones({2, 3}, kFloat64), r = random_normal({1000}, /*seed=*/7);
  Tensor t = from_vector<float>(v, {2, 2});
  a.shape();
  a.dtype();
  a.device();
  a.rank();
  a.num_elements();
  a.defined();
  Tensor k = cast(a, kInt32);
  Tensor s = reshape(a, {4});
  Tensor tt = transpose(a, {1, 0});
  bool eager = executing_eagerly();
  CHECK(eager);
  CHECK(c.to_vector<float>() == std::vector<float>{2, 6, 12, 20});
  (void)z, (void)o, (void)r, (void)t, (void)k, (void)s, (void)tt;
}

// Op functions take C++ literals for tensors, as the operators do (Note [Literal tensors]).
void LiteralArguments() {
  Tensor x = constant({1.0, 2.0});
  Tensor y = add(x, 1);         // float64 + 1
  Tensor w = maximum(x, 1.5f);  // float64 max 1.5
  Tensor p = matmul(constant({{1.f, 2.f}}), {{3.f}, {4.f}});
  Tensor q = concat({x, {5.0}}, 0);
  CHECK(y.dtype() == kFloat64);
  CHECK(y.to_vector<double>() == std::vector<double>{2, 3});
  CHECK(w.to_vector<double>() == std::vector<double>{1.5, 2});
  CHECK(p.item<float>() == 11.f);
  CHECK(q.to_vector<double>() == std::vector<double>{1, 2, 5});
}

// "Devices" (compiled only: a GPU may be absent).
[[maybe_unused]] void Devices(const Tensor& x) {
  {
    DeviceScope on_gpu("/gpu:0");
    Tensor y = matmul(x, x);
  }
  Tensor g = x.gpu();
  Tensor h = g.cpu();
  Tensor u = x.to(Device::cuda(1));
  int n = num_gpus();
  (void)h, (void)u, (void)n;
}

// "Automatic differentiation".
void Autodiff() {
  Variable w(constant(1.0f), "w");
  Tensor x = constant(3.0f);
  GradientTape tape;
  tape.watch(x);
  Tensor loss = w * w * x;
  std::vector<Tensor> g = tape.gradient(loss, {w, x});
  CHECK(g[0].item<float>() == 6.f);
  auto grad_fn = gradients_function([](Tensor x) { return x * x; });
  auto f = [](Tensor x) { return x * x; };
  auto vgrad_fn = value_and_gradients_function(f);
  auto gradgrad = gradients_function([&](Tensor x) { return grad_fn(x)[0]; });
  CHECK(grad_fn(3.f)[0].item<float>() == 6.f);
  CHECK(gradgrad(3.f)[0].item<float>() == 2.f);
  CHECK(vgrad_fn(3.f).first.item<float>() == 9.f);
  auto log1pexp = custom_gradient([](Tensor x) {
    Tensor e = exp(x);
    return std::make_pair(log(1 + e),
                          [e](Tensor dy) { return std::vector<Tensor>{dy * (1 - 1 / (1 + e))}; });
  });
  CHECK(log1pexp(constant(0.f)).item<float>() == Approx(std::log(2.f)));
}

// "Tracing" (the page's step trains a model, which is not built yet: a stand-in body here).
void Tracing() {
  Tensor images = constant({{1.f, 2.f}}), labels = constant({{3.f}});
  auto step = duet::function([&](Tensor x, Tensor y) { return reduce_sum(x) - reduce_sum(y); });
  Tensor loss = step(images, labels);
  step.trace_count();
  step.retrace_reasons();
  GraphDef gd = step.graph_def(images, labels);
  CHECK(loss.item<float>() == 0.f);
  CHECK(gd.node_size() > 0);
}

// "Graph mode, sessions, export" (files and dumps compiled only).
void GraphMode() {
  Variable W(constant({{1.f}, {2.f}}), "W"), b(constant({0.5f}), "b");
  Tensor batch = constant({{1.f, 1.f}});
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {-1, 2}, "x");
    y = relu(matmul(x, W) + b);
  }
  Session sess(g);
  std::vector<Tensor> out = sess.run({{x, batch}}, {y});
  CHECK(out[0].item<float>() == 3.5f);
  {
    GraphScope scope(g);
    std::vector<Tensor> dx = gradients({y}, {x});
  }
  g.num_nodes();
  GraphDef gd = g.to_graph_def();
  Graph g2 = Graph::from_graph_def(gd);
  PassReport rep = optimize(g);
  (void)rep.str();
}

[[maybe_unused]] void GraphFiles(Graph& g) {
  write_graph(g, "model.pb");
  Graph h = read_graph("model.pb");
  optimize(g, PassOptions{.dump_dir = "passes/"});
}

// clang-format on
TEST_CASE("docs/api.md's snippets compile and run as the page says") {
  TensorsAndEagerOps();
  LiteralArguments();
  Autodiff();
  Tracing();
  GraphMode();
}

}  // namespace
