// duet::function: results equal eager ones, the signature cache (retraces, their reasons, shape
// relaxation, input_signature, LRU eviction), variables, tapes inside and outside traced
// functions, thread safety, the debugging switch, and GraphDef export.
#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectError;
using testing::ExpectTensorNear;

Tensor Mlp(const Tensor& x, const Tensor& w1, const Tensor& w2) {
  return matmul(relu(matmul(x, w1)), w2);
}

// A relu MLP's mean sparse cross-entropy on (xs, ys) and its gradients for v = {w1, b1, w2, b2},
// through a GradientTape (inside a traced function: the graph's symbolic gradients).
std::pair<Tensor, std::vector<Tensor>> MlpLossAndGradients(const std::vector<Variable>& v,
                                                           const Tensor& xs, const Tensor& ys) {
  GradientTape tape;
  const Tensor h = relu(bias_add(matmul(xs, v[0]), v[1]));
  const Tensor loss =
      reduce_mean(sparse_softmax_cross_entropy_with_logits(ys, bias_add(matmul(h, v[2]), v[3])));
  return {loss, tape.gradient(loss, std::vector<GradientSource>(v.begin(), v.end()))};
}

TEST_CASE("a traced function equals its callable run eagerly and traces once per signature") {
  const Tensor w1 = random_normal({784, 32}, 1), w2 = random_normal({32, 10}, 2);
  auto f = duet::function([&](const Tensor& x) { return Mlp(x, w1, w2); });
  const Tensor x = random_normal({8, 784}, 3);
  ExpectTensorNear(f(x), Mlp(x, w1, w2), 1e-5);
  ExpectTensorNear(f(x), Mlp(x, w1, w2), 1e-5);
  CHECK(f.trace_count() == 1);
  CHECK(f.retrace_reasons().empty());
}

TEST_CASE("retraces say which argument changed, and relaxed shapes stop shape retraces") {
  auto f = duet::function([](const Tensor& x, int power) {
    Tensor y = x;
    for (int i = 1; i < power; ++i) y = y * x;
    return y;
  });
  f(ones({32, 784}), 2);
  f(ones({17, 784}), 2);
  f(ones({5, 784}), 2);  // the relaxed trace, (-1, 784), takes it
  CHECK(f.trace_count() == 2);
  f(ones({5, 784}, kFloat64), 2);
  const Tensor cube = f(fill({2, 2}, 2.0, kFloat64), 3);
  ExpectTensorNear(cube, fill({2, 2}, 8.0, kFloat64), 0);
  const std::vector<std::string> reasons = f.retrace_reasons();
  REQUIRE(reasons.size() == 3);
  CHECK(reasons[0] ==
        "arg 0: shape (32, 784) -> (17, 784) (traced with relaxed shapes (None, 784))");
  CHECK(reasons[1] == "arg 0: dtype float32 -> float64");
  CHECK(reasons[2] == "arg 0: shape (5, 784) -> (2, 2); arg 1: value 2 -> 3");
}

TEST_CASE("without relax_shapes each shape traces; input_signature traces once") {
  auto exact = duet::function([](const Tensor& x) { return x + 1.f; },
                              FunctionOptions{.relax_shapes = false});
  for (int n = 1; n <= 3; ++n) exact(ones({n}));
  CHECK(exact.trace_count() == 3);

  auto declared = duet::function(
      [](const Tensor& x) { return x * 2.f; },
      FunctionOptions{.input_signature = std::vector<TensorSpec>{{kFloat32, Shape{-1, 3}}}});
  for (int n = 1; n <= 3; ++n) ExpectTensorNear(declared(ones({n, 3})), fill(Shape{n, 3}, 2.0), 0);
  CHECK(declared.trace_count() == 1);
  ExpectError([&] { declared(ones({2, 4})); }, {"input_signature", "(2, 4)", "(None, 3)"});
}

TEST_CASE("the cache keeps cache_size signatures, least recently used first out") {
  auto f = duet::function([](const Tensor& x) { return x * x; }, FunctionOptions{.cache_size = 2});
  f(ones({1}, kFloat32));
  f(ones({1}, kFloat64));
  f(ones({1}, kInt32));  // drops float32
  f(ones({1}, kFloat64));
  CHECK(f.trace_count() == 3);
  f(ones({1}, kFloat32));
  CHECK(f.trace_count() == 4);
  f(ones({1}, kInt32));  // dropped for float32 just now (float64 was used more recently)
  CHECK(f.trace_count() == 5);
  CHECK(f.retrace_reasons().back().find("dropped from the cache") != std::string::npos);
}

TEST_CASE("variables are captured by handle: reads and updates act on the live variable") {
  Variable counter(constant(0.0), "counter");
  Variable scale(constant(2.0), "scale");
  auto step = duet::function([&](const Tensor& x) {
    counter.assign_add(constant(1.0));
    return x * scale.value();
  });
  ExpectTensorNear(step(constant(3.0)), constant(6.0), 0);
  scale.assign(constant(5.0));
  ExpectTensorNear(step(constant(3.0)), constant(15.0), 0);
  CHECK(counter.value().item<double>() == 2.0);
  CHECK(step.trace_count() == 1);
}

TEST_CASE("a training step with a tape inside matches eager SGD step by step") {
  auto make = [](uint64_t seed) {
    return std::vector<Variable>{Variable(random_normal({6, 8}, seed, kFloat64, 0, 0.3), "w1"),
                                 Variable(zeros({8}, kFloat64), "b1"),
                                 Variable(random_normal({8, 3}, seed + 1, kFloat64, 0, 0.3), "w2"),
                                 Variable(zeros({3}, kFloat64), "b2")};
  };
  std::vector<Variable> eager_vars = make(11), traced_vars = make(11);
  const Tensor x = random_normal({16, 6}, 5, kFloat64);
  const Tensor y = cast(floor(random_uniform({16}, 6, kFloat32, 0, 3)), kInt64);
  const Tensor rate = constant(0.1);
  auto train_step = [&](const std::vector<Variable>& v, const Tensor& xs, const Tensor& ys) {
    const auto [loss, grads] = MlpLossAndGradients(v, xs, ys);
    for (size_t i = 0; i < v.size(); ++i) v[i].assign_sub(rate * grads[i]);
    return loss;
  };
  auto traced = duet::function(
      [&](const Tensor& xs, const Tensor& ys) { return train_step(traced_vars, xs, ys); });
  for (int step = 0; step < 20; ++step) {
    INFO("step " << step);
    const Tensor eager_loss = train_step(eager_vars, x, y);
    ExpectTensorNear(traced(x, y), eager_loss, 1e-12);
  }
  for (size_t i = 0; i < eager_vars.size(); ++i) {
    ExpectTensorNear(traced_vars[i].value(), eager_vars[i].value(), 1e-12);
  }
  CHECK(traced.trace_count() == 1);
}

TEST_CASE("gradients through a traced function equal eager gradients, second order too") {
  Variable w(random_normal({3, 2}, 1, kFloat64), "w");
  auto model = [&](const Tensor& x) { return reduce_sum(tanh(matmul(x, w))) * reduce_sum(x * x); };
  auto traced = duet::function(model);
  const Tensor x = random_normal({4, 3}, 2, kFloat64);
  GradientTape eager_tape;
  eager_tape.watch(x);
  const std::vector<Tensor> expected = eager_tape.gradient(model(x), {x, w});
  GradientTape tape;
  tape.watch(x);
  const std::vector<Tensor> got = tape.gradient(traced(x), {x, w});
  ExpectTensorNear(got[0], expected[0], 1e-12);
  ExpectTensorNear(got[1], expected[1], 1e-12);

  auto square = duet::function([](const Tensor& t) { return t * t * t; });
  const Tensor t = constant(2.0);
  GradientTape outer;
  outer.watch(t);
  GradientTape inner;
  inner.watch(t);
  const Tensor dy = inner.gradient(square(t), {t})[0];
  const Tensor d2y = outer.gradient(dy, {t})[0];
  CHECK(dy.item<double>() == Approx(12.0));   // 3t^2
  CHECK(d2y.item<double>() == Approx(12.0));  // 6t
}

TEST_CASE("results may be tensors, vectors, tuples, pairs or nothing") {
  Variable total(constant(0.f), "total");
  auto both = duet::function([](const Tensor& a, const Tensor& b) {
    return std::pair{a + b, a - b};
  });
  auto [sum, difference] = both(constant(3.f), constant(1.f));
  CHECK(sum.item<float>() == 4.f);
  CHECK(difference.item<float>() == 2.f);
  auto split = duet::function([](const std::vector<Tensor>& xs) {
    return std::tuple<Tensor, Tensor, Tensor>{xs[0], xs[1], xs[0] + xs[1]};
  });
  auto [a, b, c] = split(std::vector<Tensor>{constant(1.f), constant(2.f)});
  CHECK(c.item<float>() == 3.f);
  auto twice = duet::function([](const Tensor& x) { return std::vector<Tensor>{x, x * 2.f}; });
  CHECK(twice(constant(1.f))[1].item<float>() == 2.f);
  auto add = duet::function([&](const Tensor& x) { total.assign_add(x); });
  add(constant(2.f));
  add(constant(3.f));
  CHECK(total.value().item<float>() == 5.f);
}

TEST_CASE("a traced function that calls itself, or makes variables on a retrace, is an error") {
  std::function<Tensor(const Tensor&)> self;
  auto f = duet::function([&](const Tensor& x) { return self(x) + 1.f; });
  self = [&](const Tensor& x) { return f(x); };
  ExpectError([&] { f(constant(1.f)); }, {"calls itself", "recursion"});

  std::vector<Variable> made;
  auto g = duet::function([&](const Tensor& x) {
    made.emplace_back(zeros({}, x.dtype()), "v");
    return x + made.back().value();
  });
  g(constant(1.f));
  ExpectError([&] { g(constant(1.0)); }, {"created a Variable while retracing", "first trace"});
}

TEST_CASE("calls from four threads trace a signature once") {
  const Tensor w = random_normal({16, 16}, 1);
  auto f = duet::function([&](const Tensor& x) { return matmul(x, w); });
  const Tensor x = random_normal({4, 16}, 2);
  const Tensor expected = matmul(x, w);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        const Tensor got = f(x);
        if (reduce_max(abs(got - expected)).item<float>() > 1e-5f) ++mismatches;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(mismatches == 0);
  CHECK(f.trace_count() == 1);
}

TEST_CASE("check_host_values reports host values that changed after tracing, once each") {
  float scale = 2.f;
  Tensor bias = constant(1.f);
  bool negate = false;
  const int line = __LINE__ + 3;
  auto f = duet::function(
      [&](const Tensor& x) {
        const Tensor y = x * scale + bias;
        return negate ? -y : y;
      },
      FunctionOptions{.name = "scaled", .check_host_values = true});
  const Tensor x = constant({1.f, 2.f});
  ExpectTensorNear(f(x), constant({3.f, 5.f}));
  ExpectTensorNear(f(x), constant({3.f, 5.f}));
  bias = constant(1.f);  // another tensor, the same value: nothing changed
  f(x);
  CHECK(f.host_value_changes().empty());

  scale = 3.f;  // the trace keeps 2: the call runs the old graph, and says so once
  ExpectTensorNear(f(x), constant({3.f, 5.f}));
  f(x);
  REQUIRE(f.host_value_changes().size() == 1);
  const std::string change = f.host_value_changes()[0];
  CHECK(change.find("node 'Const' (Const, at ") == 0);
  CHECK(change.find("traced_function_test.cc:" + std::to_string(line) + "): its value changed") !=
        std::string::npos);
  CHECK(change.find("pass the value as an argument") != std::string::npos);

  scale = 2.f;
  negate = true;  // a C++ branch: the callable now builds another node
  f(x);
  REQUIRE(f.host_value_changes().size() == 2);
  CHECK(f.host_value_changes()[1].find("now builds") != std::string::npos);
  CHECK(f.trace_count() == 1);

  auto unchecked = duet::function([&](const Tensor& v) { return v * scale; });
  unchecked(x);
  scale = 5.f;
  unchecked(x);
  CHECK(unchecked.host_value_changes().empty());  // off by default: no extra trace per call

  auto makes_variable =
      duet::function([](const Tensor& v) { return v * Variable(ones({2}), "made").value(); },
                     FunctionOptions{.check_host_values = true});
  makes_variable(x);
  makes_variable(x);
  REQUIRE(makes_variable.host_value_changes().size() == 1);
  CHECK(makes_variable.host_value_changes()[0].find("cannot check: the callable created a "
                                                    "Variable") == 0);
}

TEST_CASE("run_functions_eagerly runs the callable on every call") {
  int runs = 0;
  auto f = duet::function([&](const Tensor& x) {
    ++runs;
    return x * 2.f;
  });
  f(constant(1.f));
  f(constant(1.f));
  CHECK(runs == 1);  // host code runs only while tracing
  run_functions_eagerly(true);
  f(constant(1.f));
  f(constant(1.f));
  run_functions_eagerly(false);
  CHECK(runs == 3);
  CHECK(f.trace_count() == 1);
}

TEST_CASE("graph_def exports the optimized graph, unfused, which a Session runs, frozen or not") {
  Variable w(random_normal({4, 3}, 1), "w"), b(random_normal({3}, 3), "b");
  auto f = duet::function([&](const Tensor& x) { return relu(matmul(x, w) + b); });
  const Tensor x = random_normal({2, 4}, 2);
  const Tensor expected = f(x);
  for (bool freeze : {false, true}) {
    INFO("freeze " << freeze);
    const tensorflow::GraphDef gd = freeze ? f.frozen_graph_def(x) : f.graph_def(x);
    Graph g = Graph::from_graph_def(gd);
    bool has_variable = false, has_fused = false, has_add = false;
    for (const Node* node : g.nodes()) {
      has_variable |= node->op().name == "VarHandleOp";
      has_fused |= node->op().name == "_FusedMatMul";
      has_add |= node->op().name == "AddV2";
    }
    CHECK(has_variable == !freeze);
    // TensorFlow fuses on import, as duet's Session does; duet's _FusedConv2D is not TF 2.21's.
    CHECK_FALSE(has_fused);
    CHECK(has_add);
    if (freeze) ExpectTensorNear(Session(g).run({{"arg0", x}}, {"output_0"})[0], expected, 1e-6);
  }
}

TEST_CASE("an error while a traced function runs names the op and the user's line") {
  const int line = __LINE__ + 2;
  auto f = duet::function([](const Tensor& params, const Tensor& indices) {
    return gather(params * 2.f, indices);  // the failing line
  });
  const Tensor params = ones({3, 2});
  CHECK(f(params, from_vector(std::vector<int64_t>{0, 2})).shape() == Shape{2, 2});
  ExpectError(
      [&] {
        f(params, from_vector(std::vector<int64_t>{0, 7}));
      },
      {"GatherV2", "indices[1] = 7", "traced_function_test.cc:" + std::to_string(line)});
}

TEST_CASE("API.md's examples give the same values traced as eagerly") {
  const Tensor a = constant({{1.f, 2.f}, {3.f, 4.f}});
  auto tensors = [](const Tensor& x) {
    const Tensor b = x + 1;
    const Tensor c = x * b;
    const Tensor m = matmul(x, x);
    return std::vector<Tensor>{b,
                               c,
                               m,
                               cast(x, kInt32),
                               reshape(x, {4}),
                               transpose(x, {1, 0}),
                               reduce_mean(c, {0}, true),
                               softmax(m)};
  };
  const std::vector<Tensor> eager = tensors(a), traced = duet::function(tensors)(a);
  REQUIRE(traced.size() == eager.size());
  for (size_t i = 0; i < eager.size(); ++i) ExpectTensorNear(traced[i], eager[i], 1e-6);

  Variable w(constant(1.0f), "w");
  auto tape_grads = duet::function([&](const Tensor& x) {
    GradientTape tape;
    tape.watch(x);
    const Tensor loss = w * w * x;
    return tape.gradient(loss, {w, x});  // {2*w*x, w*w}
  });
  const std::vector<Tensor> g = tape_grads(constant(3.0f));
  CHECK(g[0].item<float>() == 6.f);
  CHECK(g[1].item<float>() == 1.f);

  auto grad_fn = gradients_function([](Tensor x) { return x * x; });
  auto gradgrad = gradients_function([&](Tensor x) { return grad_fn(x)[0]; });
  auto derivatives = duet::function([&](const Tensor& x) {
    return std::pair{grad_fn(x)[0], gradgrad(x)[0]};
  });
  const auto [dx, d2x] = derivatives(constant(3.f));
  CHECK(dx.item<float>() == 6.f);
  CHECK(d2x.item<float>() == 2.f);

  auto branchy = duet::function([](const Tensor& x) {
    const Tensor y = cond(
        reduce_sum(x) > 0.f, [&] { return x * 2.f; }, [&] { return -x; });
    return while_loop([](const std::vector<Tensor>& v) { return v[0] < 3; },
                      [](const std::vector<Tensor>& v) {
                        return std::vector<Tensor>{v[0] + 1, v[1] * 2.f};
                      },
                      {constant(0), y})[1];
  });
  ExpectTensorNear(branchy(constant({1.f, 2.f})), constant({16.f, 32.f}), 0);
  ExpectTensorNear(branchy(constant({-1.f, -2.f})), constant({8.f, 16.f}), 0);
  CHECK(branchy.trace_count() == 1);
}

TEST_CASE("custom_gradient in a traced function: its backward is the gradient, as eagerly") {
  // API.md's example, traced: value and tape gradient as eagerly.
  auto log1pexp = custom_gradient([](Tensor x) {
    Tensor e = exp(x);
    return std::make_pair(log(1 + e),
                          [e](Tensor dy) { return std::vector<Tensor>{dy * (1 - 1 / (1 + e))}; });
  });
  auto value_and_grad = [&](const Tensor& x) {
    GradientTape tape;
    tape.watch(x);
    const Tensor y = log1pexp(x);
    return std::pair{y, tape.gradient(y, {x})[0]};
  };
  auto traced = duet::function(value_and_grad);
  const Tensor x = constant({0.f, 2.f, 50.f});
  const auto [y, dy] = value_and_grad(x);
  const auto [traced_y, traced_dy] = traced(x);
  ExpectTensorNear(traced_y, y, 1e-6);
  ExpectTensorNear(traced_dy, dy, 1e-6);

  // A backward that differs from the ops' gradient shows which one ran; gradients() uses it too.
  auto marked = custom_gradient([](Tensor v) {
    return std::make_pair(v * v, [](Tensor g) { return std::vector<Tensor>{g * 42.f}; });
  });
  Graph graph;
  Tensor in, grad;
  {
    GraphScope scope(graph);
    in = placeholder(kFloat32, {2}, "in");
    grad = gradients({marked(in)}, {in})[0];
  }
  ExpectTensorNear(Session(graph).run({{in, constant({1.f, 3.f})}}, {grad})[0],
                   constant({42.f, 42.f}), 0);
  // A file cannot hold the closure: importing the node is a clear error, not a crash.
  ExpectError([&] { Graph::from_graph_def(graph.to_graph_def()); },
              {"DuetCustomGradient", "is not in the graph's function library"});

  // From outside: the gradient of a call of the traced function (Note [Call gradients]).
  auto squared = duet::function([&](const Tensor& v) { return marked(v); });
  const Tensor at = constant({1.f, 3.f});
  GradientTape tape;
  tape.watch(at);
  const Tensor out = squared(at);
  ExpectTensorNear(tape.gradient(out, {at})[0], constant({42.f, 42.f}), 0);

  // The same with a backward that reads a forward value (log1pexp's e).
  auto traced_log1pexp = duet::function([&](const Tensor& v) { return log1pexp(v); });
  GradientTape outer;
  outer.watch(x);
  const Tensor z = traced_log1pexp(x);
  ExpectTensorNear(outer.gradient(z, {x})[0], dy, 1e-6);
}

TEST_CASE("a graph and its custom_gradient closures are freed together") {
  // Note [Closures in graphs]: each backward captures the forward's symbolic e, which keeps the
  // graph alive; the closure must still go with the graph's last handle. Each backward also
  // captures a token, watched here, which expires with the closure.
  std::vector<std::weak_ptr<int>> tokens;
  auto log1pexp = custom_gradient([&tokens](Tensor x) {
    Tensor e = exp(x);
    auto token = std::make_shared<int>(0);
    tokens.push_back(token);
    return std::make_pair(
        log(1 + e), [e, token](Tensor dy) { return std::vector<Tensor>{dy * (1 - 1 / (1 + e))}; });
  });
  {
    Graph graph;
    Tensor in, grad;
    {
      GraphScope scope(graph);
      in = placeholder(kFloat32, {2}, "in");
      grad = gradients({log1pexp(in)}, {in})[0];
    }
    Session session(graph);
    ExpectTensorNear(session.run({{in, constant({0.f, 0.f})}}, {grad})[0], constant({0.5f, 0.5f}),
                     1e-6);
  }
  {  // A trace, differentiated from outside after tracing (the backward runs later).
    auto traced = duet::function([&](const Tensor& v) { return log1pexp(v); });
    const Tensor at = constant({0.f});
    GradientTape tape;
    tape.watch(at);
    ExpectTensorNear(tape.gradient(traced(at), {at})[0], constant({0.5f}), 1e-6);
  }
  CHECK(tokens.size() >= 2);
  for (const std::weak_ptr<int>& token : tokens) CHECK(token.expired());
}

TEST_CASE("a training step calling a traced model (a nested call) matches eager") {
  Variable w(random_normal({3, 2}, 1, kFloat64), "w"), w_eager(w.value(), "w_eager");
  const Tensor x = random_normal({4, 3}, 2, kFloat64);
  auto model_of = [](const Variable& v) {
    return [v](const Tensor& xs) { return reduce_sum(tanh(matmul(xs, v)) * xs.shape().dim(0)); };
  };
  auto model = duet::function(model_of(w));
  auto step = duet::function([&](const Tensor& xs) {
    GradientTape tape;
    const Tensor loss = model(xs);
    w.assign_sub(0.1 * tape.gradient(loss, {w})[0]);
    return loss;
  });
  for (int i = 0; i < 3; ++i) {
    GradientTape tape;
    const Tensor loss = model_of(w_eager)(x);
    w_eager.assign_sub(0.1 * tape.gradient(loss, {w_eager})[0]);
    ExpectTensorNear(step(x), loss, 1e-12);
  }
  ExpectTensorNear(w.value(), w_eager.value(), 1e-12);
}

TEST_CASE("a traced training step runs a static plan: no allocation per call but the loss") {
  std::vector<Variable> v{
      Variable(random_normal({20, 16}, 1, kFloat32, 0, 0.1), "w1"), Variable(zeros({16}), "b1"),
      Variable(random_normal({16, 4}, 2, kFloat32, 0, 0.1), "w2"), Variable(zeros({4}), "b2")};
  const Tensor x = random_normal({8, 20}, 3);
  const Tensor y = cast(floor(random_uniform({8}, 4, kFloat32, 0, 4)), kInt64);
  auto step = duet::function([&](const Tensor& xs, const Tensor& ys) {
    const auto [loss, grads] = MlpLossAndGradients(v, xs, ys);
    for (size_t i = 0; i < v.size(); ++i) {
      resource_apply_gradient_descent(v[i].handle(), constant(0.1f), grads[i]);
    }
    return loss;
  });
  step(x, y);  // traces, compiles, lays the plan out
  step(x, y);
  for (int i = 0; i < 3; ++i) {
    const int64_t before = CpuAllocator::Get().stats().allocations;
    step(x, y);
    CHECK(CpuAllocator::Get().stats().allocations - before == 1);  // the fetched loss
  }
}

TEST_CASE("indexing traces to StridedSlice: static shapes for integers, tensor indices as inputs") {
  const Tensor x = from_vector(std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4});
  auto rows = duet::function([](const Tensor& t, const Tensor& i) {
    const Tensor fixed = t.index({Slice(), Slice(1, None, 2)});
    CHECK(fixed.shape() == Shape({3, 2}));  // known while tracing
    return std::vector<Tensor>{fixed, t(i), t(Slice(None, i), NewAxis, -1)};
  });
  for (int i : {0, 2}) {
    const std::vector<Tensor> got = rows(x, constant(i));
    testing::ExpectTensorNear(got[0], x.index({Slice(), Slice(1, None, 2)}), 0);
    testing::ExpectTensorNear(got[1], x(i), 0);
    testing::ExpectTensorNear(got[2], x(Slice(None, i), NewAxis, -1), 0);
  }
  CHECK(rows.trace_count() == 1);
}

}  // namespace
}  // namespace duet
