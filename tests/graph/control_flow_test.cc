// cond and while_loop: plain C++ eagerly, If/While nodes in graphs (captures, variables, nesting,
// shape relaxation), GraphDef round trips of their function libraries, cond gradients against
// finite differences, and host_function.
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <thread>

#include "duet.h"
#include "graph/function.h"
#include "proto/graph.pb.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectError;
using testing::ExpectTensorNear;
using Vars = std::vector<Tensor>;

const Node& NodeOf(const Tensor& t) { return *SymbolicOutput(t)->node; }

// A function of x that takes a different path for positive and other sums.
Tensor Piecewise(const Tensor& x) {
  return cond(
      reduce_sum(x) > 0.0, [&] { return x * x; }, [&] { return exp(x) - 1.0; });
}

// sum of 1..n by a loop: (i, total) -> (i + 1, total + i).
Vars SumTo(const Tensor& n) {
  return while_loop([&](const Vars& v) { return v[0] <= n; },
                    [](const Vars& v) {
                      return Vars{v[0] + 1, v[1] + v[0]};
                    },
                    {constant(1), constant(0)});
}

TEST_CASE("cond and while_loop run plain C++ eagerly") {
  CHECK(Piecewise(constant({1.0, 2.0})).to_vector<double>() == std::vector<double>{1.0, 4.0});
  CHECK(Piecewise(constant({-1.0})).to_vector<double>()[0] == Approx(std::exp(-1.0) - 1));
  const Vars sum = SumTo(constant(10));
  CHECK(sum[1].item<int32_t>() == 55);
  CHECK(sum[0].item<int32_t>() == 11);
}

TEST_CASE("cond in a graph is a StatelessIf whose branches run in a session") {
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat64, {-1}, "x");
    y = Piecewise(x);
  }
  CHECK(NodeOf(y).op().name == "StatelessIf");
  CHECK(y.shape() == Shape({-1}));
  Session sess(g);
  for (const Tensor& value : {constant({1.0, 2.0}), constant({-1.0, -2.0, 0.5})}) {
    ExpectTensorNear(sess.run({{x, value}}, {y})[0], Piecewise(value), 1e-12);
  }
}

TEST_CASE("branches capture outer values, eager values and other branches' values") {
  Graph g;
  Tensor x, scale, y;
  const Tensor offset = constant({10.f, 20.f});
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {2}, "x");
    scale = placeholder(kFloat32, {}, "scale");
    const Tensor p = placeholder(kBool, {}, "p");
    y = cond(
        p, [&] { return x * scale; }, [&] { return x + offset; });
    // then captures x and scale, else x: the node takes all three once.
    CHECK(NodeOf(y).inputs().size() == 3);
    Session sess(g);
    const Tensor value = constant({1.f, 2.f});
    CHECK(sess.run({{x, value}, {scale, constant(3.f)}, {"p", constant(true)}}, {y})[0]
              .to_vector<float>() == std::vector<float>{3.f, 6.f});
    CHECK(sess.run({{x, value}, {scale, constant(3.f)}, {"p", constant(false)}}, {y})[0]
              .to_vector<float>() == std::vector<float>{11.f, 22.f});
  }
}

TEST_CASE("branches with different shapes give a partially known shape") {
  Graph g;
  Tensor p, y;
  {
    GraphScope scope(g);
    p = placeholder(kBool, {}, "p");
    y = cond(
        p,
        [] {
          return zeros({2, 3});
        },
        [] {
          return ones({2, 5});
        });
  }
  CHECK(y.shape() == Shape({2, -1}));
  Session sess(g);
  CHECK(sess.run({{p, constant(false)}}, {y})[0].shape() == Shape({2, 5}));
  CHECK(sess.run({{p, constant(true)}}, {y})[0].shape() == Shape({2, 3}));
}

TEST_CASE("a branch's variable reads and assignments are ordered with the graph's") {
  Variable v(constant(1.f), "cond_v");
  Graph g;
  Tensor p, before, y, after;
  {
    GraphScope scope(g);
    p = placeholder(kBool, {}, "p");
    before = v.value();
    y = cond(
        p,
        [&] {
          v.assign_add(constant(10.f));
          return v.value();
        },
        [&] { return v.value() * 2.f; });
    after = v.value();
  }
  CHECK(NodeOf(y).op().name == "If");  // stateful branches
  Session sess(g);
  std::vector<Tensor> out = sess.run({{p, constant(true)}}, {before, y, after});
  CHECK(out[0].item<float>() == 1.f);
  CHECK(out[1].item<float>() == 11.f);
  CHECK(out[2].item<float>() == 11.f);
  out = sess.run({{p, constant(false)}}, {y});
  CHECK(out[0].item<float>() == 22.f);
}

TEST_CASE("while_loop in a graph is a StatelessWhile") {
  Graph g;
  Tensor n;
  Vars sum;
  {
    GraphScope scope(g);
    n = placeholder(kInt32, {}, "n");
    sum = SumTo(n);
  }
  CHECK(NodeOf(sum[1]).op().name == "StatelessWhile");
  CHECK(sum[1].shape() == Shape({}));
  Session sess(g);
  CHECK(sess.run({{n, constant(100)}}, {sum[1]})[0].item<int32_t>() == 5050);
  CHECK(sess.run({{n, constant(0)}}, {sum[1]})[0].item<int32_t>() == 0);
}

// A toy RNN over the rows of x, as Keras writes one: the inputs as a TensorList read by index,
// the outputs written into a reserved list, both carried by the loop, stacked at the end.
Tensor ToyRnn(const Tensor& x) {
  const Tensor shape = from_vector(std::vector<int32_t>{2});
  const Tensor steps = reshape(slice(shape_of(x), {0}, {1}), Shape{});
  const Vars out = while_loop([&](const Vars& v) { return v[0] < steps; },
                              [&](const Vars& v) {
                                const Tensor row =
                                    tensor_list_get_item(v[1], v[0], shape, kFloat32);
                                const Tensor h = tanh(row + v[3] * 0.5f);
                                return Vars{v[0] + 1, v[1], tensor_list_set_item(v[2], v[0], h), h};
                              },
                              {constant(0), tensor_list_from_tensor(x, shape),
                               tensor_list_reserve(shape, steps, kFloat32), zeros({2})});
  return tensor_list_stack(out[2], shape, kFloat32);
}

TEST_CASE("a while_loop carries TensorLists, eagerly, in a session and through a GraphDef") {
  const Tensor x = constant({{0.5f, -1.f}, {2.f, 0.25f}, {-0.75f, 1.5f}});
  const Tensor expected = ToyRnn(x);
  // The reference, in plain C++.
  std::vector<float> h = {0, 0}, want;
  const std::vector<float> xs = x.to_vector<float>();
  for (int t = 0; t < 3; ++t) {
    for (int j = 0; j < 2; ++j) h[j] = std::tanh(xs[2 * t + j] + h[j] * 0.5f);
    want.insert(want.end(), h.begin(), h.end());
  }
  ExpectTensorNear(expected, from_vector(want, {3, 2}), 1e-6);
  Graph g;
  Tensor y;
  {
    GraphScope scope(g);
    y = identity(ToyRnn(placeholder(kFloat32, {-1, 2}, "x")), "y");
  }
  CHECK(NodeOf(y).inputs()[0].node->op().name == "TensorListStack");
  CHECK(y.shape().IsCompatibleWith(Shape({-1, 2})));
  Session sess(g);
  ExpectTensorNear(sess.run({{"x", x}}, {"y"})[0], expected, 0);
  // Variant loop variables and the list ops' attrs survive export and import.
  const tensorflow::GraphDef def = g.to_graph_def();
  Graph h2 = Graph::from_graph_def(def);
  Session imported(h2);
  ExpectTensorNear(imported.run({{"x", x}}, {"y"})[0], expected, 0);
  // A shorter sequence runs the same plan shape-agnostically.
  ExpectTensorNear(sess.run({{"x", constant({{1.f, 2.f}})}}, {"y"})[0],
                   constant({{std::tanh(1.f), std::tanh(2.f)}}), 1e-6);
}

TEST_CASE("a session runs control flow from several threads at once") {
  Graph g;
  Tensor x, n;
  Vars out;
  {
    GraphScope scope(g);
    x = placeholder(kFloat64, {-1}, "x");
    n = placeholder(kInt32, {}, "n");
    out = while_loop([&](const Vars& v) { return v[0] < n; },
                     [](const Vars& v) {
                       return Vars{v[0] + 1, Piecewise(v[1])};
                     },
                     {constant(0), x});
  }
  Session sess(g);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        const Tensor value = constant({t % 2 ? 0.5 : -0.5, 0.25});
        const Tensor got = sess.run({{x, value}, {n, constant(i % 3)}}, {out[1]})[0];
        Tensor want = value;
        for (int k = 0; k < i % 3; ++k) want = Piecewise(want);
        const std::vector<double> a = got.to_vector<double>(), b = want.to_vector<double>();
        for (size_t k = 0; k < b.size(); ++k) {
          if (a.size() != b.size() || std::abs(a[k] - b[k]) > 1e-12) ++wrong;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(wrong == 0);
}

TEST_CASE("a loop variable whose shape grows gets an unknown dim") {
  Graph g;
  Tensor n;
  Vars out;
  {
    GraphScope scope(g);
    n = placeholder(kInt32, {}, "n");
    out = while_loop([&](const Vars& v) { return v[0] < n; },
                     [](const Vars& v) {
                       return Vars{v[0] + 1, concat({v[1], cast(reshape(v[0], {1}), kFloat32)}, 0)};
                     },
                     {constant(0), zeros({1})});
  }
  CHECK(out[1].shape() == Shape({-1}));
  Session sess(g);
  CHECK(sess.run({{n, constant(3)}}, {out[1]})[0].to_vector<float>() ==
        std::vector<float>{0.f, 0.f, 1.f, 2.f});
}

TEST_CASE("control flow nests: a cond in a loop body capturing an outer placeholder") {
  Graph g;
  Tensor n, step;
  Vars out;
  {
    GraphScope scope(g);
    n = placeholder(kInt32, {}, "n");
    step = placeholder(kFloat32, {}, "step");
    // Adds `step` on even iterations and subtracts 1 on odd ones.
    out = while_loop([&](const Vars& v) { return v[0] < n; },
                     [&](const Vars& v) {
                       const Tensor even = equal(floor_mod(v[0], constant(2)), constant(0));
                       const Tensor next = cond(
                           even, [&] { return v[1] + step; }, [&] { return v[1] - 1.f; });
                       return Vars{v[0] + 1, next};
                     },
                     {constant(0), constant(0.f)});
  }
  Session sess(g);
  CHECK(sess.run({{n, constant(5)}, {step, constant(10.f)}}, {out[1]})[0].item<float>() == 28.f);
}

TEST_CASE("functions survive a GraphDef round trip") {
  Graph g;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kFloat64, {-1}, "x");
    const Tensor n = placeholder(kInt32, {}, "n");
    const Tensor y = Piecewise(x);
    const Vars loop = while_loop([&](const Vars& v) { return v[0] < n; },
                                 [](const Vars& v) {
                                   return Vars{v[0] + 1, v[1] * 2.0};
                                 },
                                 {constant(0), y});
    identity(loop[1], "out");
  }
  const tensorflow::GraphDef def = g.to_graph_def();
  CHECK(def.library().function_size() == 4);  // two branches, a cond and a body
  const std::string path = "control_flow_test.pbtxt";
  write_graph(g, path);
  Graph h = read_graph(path);
  Session a(g), b(h);
  for (const Tensor& x : {constant({1.0, -2.0}), constant({-3.0})}) {
    const FeedList feeds = {{"x", x}, {"n", constant(3)}};
    ExpectTensorNear(b.run(feeds, {"out"})[0], a.run(feeds, {"out"})[0], 0);
  }
  // Damaged libraries are rejected with the function's name.
  tensorflow::GraphDef broken = def;
  broken.mutable_library()->mutable_function(0)->mutable_node_def(0)->set_op("NoSuchOp");
  ExpectError([&] { Graph::from_graph_def(broken); },
              {def.library().function(0).signature().name(), "NoSuchOp"});
  broken = def;
  broken.mutable_library()->clear_function();
  ExpectError([&] { Graph::from_graph_def(broken); }, {"is not in the graph's function library"});
}

TEST_CASE("control flow reports mistakes at the call") {
  ExpectError(
      [] {
        cond(
            constant(1.f), [] { return constant(1.f); }, [] { return constant(2.f); });
      },
      {"cond", "bool scalar", "float32"});
  Graph g;
  GraphScope scope(g);
  const Tensor p = placeholder(kBool, {}, "p");
  ExpectError(
      [&] {
        cond(
            p, [] { return constant(1.f); }, [] { return constant(1); });
      },
      {"then_fn returns [float32] but else_fn returns [int32]"});
  ExpectError(
      [&] {
        while_loop([](const Vars& v) { return v[0] < 3; },
                   [](const Vars& v) {
                     return Vars{v[0] + 1, v[0]};
                   },
                   {constant(0)});
      },
      {"body_fn returns 2 tensors for 1 loop variables"});
  ExpectError(
      [&] {
        while_loop([](const Vars& v) { return v[0]; }, [](const Vars& v) { return v; },
                   {constant(0)});
      },
      {"cond_fn", "bool scalar"});
}

// d/dx of sum(Piecewise(x) * w) by central differences, in float64.
std::vector<double> NumericGradient(const std::vector<double>& x, const std::vector<double>& w) {
  std::vector<double> grad(x.size());
  auto f = [&](const std::vector<double>& at) {
    const Tensor y = Piecewise(from_vector(at));
    return reduce_sum(y * from_vector(w)).item<double>();
  };
  for (size_t i = 0; i < x.size(); ++i) {
    std::vector<double> up = x, down = x;
    up[i] += 1e-6;
    down[i] -= 1e-6;
    grad[i] = (f(up) - f(down)) / 2e-6;
  }
  return grad;
}

TEST_CASE("cond's symbolic gradient matches finite differences on both branches") {
  const std::vector<double> w = {0.5, -1.5, 2.0};
  Graph g;
  Tensor x, dx;
  {
    GraphScope scope(g);
    x = placeholder(kFloat64, {3}, "x");
    dx = gradients({reduce_sum(Piecewise(x) * from_vector(w))}, {x})[0];
  }
  CHECK(NodeOf(dx).op().name == "StatelessIf");
  Session sess(g);
  for (const std::vector<double>& at :
       {std::vector<double>{0.3, 1.2, -0.4}, std::vector<double>{-0.3, -1.2, 0.4}}) {
    const std::vector<double> got = sess.run({{x, from_vector(at)}}, {dx})[0].to_vector<double>();
    const std::vector<double> want = NumericGradient(at, w);
    for (size_t i = 0; i < at.size(); ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-6));
  }
}

TEST_CASE("cond gradients reach variables read in one branch only") {
  Variable v(constant({2.0, 3.0}), "cond_grad_v");
  Graph g;
  Tensor p, dv;
  {
    GraphScope scope(g);
    p = placeholder(kBool, {}, "p");
    const Tensor y = cond(
        p, [&] { return v.value() * v.value(); },
        [] {
          return constant({1.0, 1.0});
        });
    dv = gradients({reduce_sum(y)}, {v})[0];
  }
  Session sess(g);
  CHECK(sess.run({{p, constant(true)}}, {dv})[0].to_vector<double>() ==
        std::vector<double>{4.0, 6.0});
  CHECK(sess.run({{p, constant(false)}}, {dv})[0].to_vector<double>() ==
        std::vector<double>{0.0, 0.0});
}

TEST_CASE("a scalar variable broadcast in a branch gets a scalar gradient") {
  // In the branch the variable's read has an unknown shape; its gradient is still summed over
  // the broadcast axes at run time.
  Variable w(constant(1.5), "cond_grad_w");
  Graph g;
  Tensor x, dw;
  {
    GraphScope scope(g);
    x = placeholder(kFloat64, {2}, "x");
    const Tensor y = cond(
        reduce_sum(x) > 0.0, [&] { return w * x * x; }, [&] { return w * x; });
    dw = gradients({reduce_sum(y)}, {w})[0];
  }
  Session sess(g);
  const Tensor then_dw = sess.run({{x, constant({1.0, 2.0})}}, {dw})[0];
  CHECK(then_dw.shape() == Shape({}));
  CHECK(then_dw.item<double>() == Approx(5.0));  // sum of x^2
  CHECK(sess.run({{x, constant({-1.0, -3.0})}}, {dw})[0].item<double>() == Approx(-4.0));
}

TEST_CASE("second-order gradients go through cond") {
  Graph g;
  Tensor x, d2;
  {
    GraphScope scope(g);
    x = placeholder(kFloat64, {}, "x");
    const Tensor y = cond(
        x > 0.0, [&] { return x * x * x; }, [&] { return -x; });
    const Tensor d1 = gradients({y}, {x})[0];
    d2 = gradients({d1}, {x})[0];
  }
  Session sess(g);
  CHECK(sess.run({{x, constant(2.0)}}, {d2})[0].item<double>() == Approx(12.0));
  CHECK(sess.run({{x, constant(-2.0)}}, {d2})[0].item<double>() == Approx(0.0));
}

TEST_CASE("cond gradients skip what the results do not need, and nest") {
  Variable noise(zeros({2}), "cond_noise");
  Variable w(constant({3.0, 4.0}), "cond_nested_w");
  Graph g;
  Tensor x, p, q, dx;
  {
    GraphScope scope(g);
    x = placeholder(kFloat64, {2}, "x");
    p = placeholder(kBool, {}, "p");
    q = placeholder(kBool, {}, "q");
    const Tensor y = cond(
        p,
        [&] {
          noise.assign(random_normal({2}, 1));  // stateful, but no result needs it
          return x * 2.0;
        },
        [&] {  // an inner cond that reads a variable
          return cond(
              q, [&] { return x * w.value(); }, [&] { return x * x; });
        });
    dx = gradients({reduce_sum(y)}, {x})[0];
  }
  Session sess(g);
  const Tensor at = constant({1.0, -2.0});
  auto grad = [&](bool pv, bool qv) {
    return sess.run({{x, at}, {p, constant(pv)}, {q, constant(qv)}}, {dx})[0].to_vector<double>();
  };
  CHECK(grad(true, true) == std::vector<double>{2.0, 2.0});
  CHECK(grad(false, true) == std::vector<double>{3.0, 4.0});
  CHECK(grad(false, false) == std::vector<double>{2.0, -4.0});
}

TEST_CASE("cond gradients that would re-read an updated variable are refused") {
  Variable v(constant(2.0), "cond_updated_v");
  Graph g;
  GraphScope scope(g);
  const Tensor x = placeholder(kFloat64, {}, "x");
  const Tensor p = placeholder(kBool, {}, "p");
  SECTION("updated after the cond") {
    const Tensor y = cond(
        p, [&] { return x * v.value(); }, [&] { return x; });
    v.assign(constant(5.0));
    ExpectError([&] { gradients({y}, {x}); }, {"updates variable", "after the cond"});
  }
  SECTION("updated and read in the branch") {
    const Tensor y = cond(
        p,
        [&] {
          const Tensor r = x * v.value();
          v.assign(constant(0.0));
          return r;
        },
        [&] { return x; });
    ExpectError([&] { gradients({y}, {x}); }, {"both updates and reads"});
  }
}

TEST_CASE("generated function names avoid imported ones") {
  const std::string first = UniqueFunctionName("probe");
  const int64_t n = std::stoll(first.substr(first.rfind('_') + 1));
  ReserveFunctionName("probe_" + std::to_string(n + 1));
  CHECK(UniqueFunctionName("probe") == "probe_" + std::to_string(n + 2));
}

// A recurrence with a data-dependent trip count: h -> tanh(h * w + x) until sum(h^2) >= limit or
// `max` steps; returns (steps, h).
Vars Recurrence(const Tensor& h0, const Tensor& w, const Tensor& x, double limit,
                int64_t max = -1) {
  return while_loop([&](const Vars& v) { return reduce_sum(v[1] * v[1]) < limit; },
                    [&](const Vars& v) {
                      return Vars{v[0] + 1, tanh(v[1] * w + x)};
                    },
                    {constant(0), h0}, WhileOptions{.maximum_iterations = max});
}

// d(sum(h * u))/d(h0, w, x) by an eager tape over the plain C++ loop.
Vars EagerRecurrenceGradients(const Vars& in, double limit, int64_t max = -1) {
  GradientTape tape;
  for (const Tensor& t : in) tape.watch(t);
  const Vars out = Recurrence(in[0], in[1], in[2], limit, max);
  const Tensor u = constant({0.3, -0.7, 1.1});
  return tape.gradient(reduce_sum(out[1] * u), {in[0], in[1], in[2]});
}

TEST_CASE("while_loop gradients: gradients() in a session equal an eager tape over the C++ loop") {
  const Vars in = {constant({0.1, 0.2, -0.3}), constant({0.9, 1.1, 0.8}),
                   constant({0.2, 0.3, 0.25})};
  for (auto [limit, max] : {std::pair{0.4, int64_t{-1}}, std::pair{0.5, int64_t{-1}},
                            std::pair{100.0, int64_t{6}}, std::pair{0.0, int64_t{-1}}}) {
    INFO("limit " << limit << ", maximum_iterations " << max);
    Graph g;
    Vars ph, grads;
    Tensor steps;
    {
      GraphScope scope(g);
      for (const char* name : {"h0", "w", "x"}) ph.push_back(placeholder(kFloat64, {3}, name));
      const Vars out = Recurrence(ph[0], ph[1], ph[2], limit, max);
      steps = out[0];
      grads = gradients({reduce_sum(out[1] * constant({0.3, -0.7, 1.1}))}, {ph[0], ph[1], ph[2]});
    }
    Session sess(g);
    const std::vector<GraphTensor> fetches = {grads[0], grads[1], grads[2], steps};
    const Vars got = sess.run({{ph[0], in[0]}, {ph[1], in[1]}, {ph[2], in[2]}}, fetches);
    const Vars want = EagerRecurrenceGradients(in, limit, max);
    const int expected_steps = limit == 0.0 ? 0 : limit == 100.0 ? 6 : -1;
    if (expected_steps >= 0) CHECK(got[3].item<int32_t>() == expected_steps);
    CHECK(got[3].item<int32_t>() == Recurrence(in[0], in[1], in[2], limit, max)[0].item<int32_t>());
    for (int i = 0; i < 3; ++i) {
      // No iteration ran: the eager tape saw no path from w and x, the graph gives zeros.
      ExpectTensorNear(got[i], want[i].defined() ? want[i] : zeros_like(in[i]), 1e-12);
    }
  }
}

TEST_CASE("while_loop gradients in a traced function: tapes and variables read in the body") {
  Variable w(constant({0.9, 1.1, 0.8}), "loop_w");
  const Tensor x = constant({0.2, 0.3, 0.25});
  auto loss = [&](const Tensor& h0) {
    const Vars out = while_loop([](const Vars& v) { return v[0] < 5; },
                                [&](const Vars& v) {
                                  return Vars{v[0] + 1, tanh(v[1] * w.value() + x)};
                                },
                                {constant(0), h0});
    return reduce_sum(out[1] * out[1]);
  };
  auto traced = duet::function(loss);
  const Tensor h0 = constant({0.1, 0.2, -0.3});
  Vars want, got;
  {
    GradientTape tape;
    tape.watch(h0);
    want = tape.gradient(loss(h0), {GradientSource(h0), GradientSource(w)});
  }
  for (int call = 0; call < 2; ++call) {  // the second call reuses the traced gradient
    GradientTape tape;
    tape.watch(h0);
    got = tape.gradient(traced(h0), {GradientSource(h0), GradientSource(w)});
    ExpectTensorNear(got[0], want[0], 1e-12);
    ExpectTensorNear(got[1], want[1], 1e-12);
  }
  // A training step traced whole: the tape inside the function.
  auto step = duet::function([&](const Tensor& h) {
    GradientTape tape;
    const Tensor l = loss(h);
    return tape.gradient(l, {GradientSource(w)})[0];
  });
  ExpectTensorNear(step(h0), want[1], 1e-12);
}

TEST_CASE("while_loop gradients nest and take a cond in the body, in a session") {
  auto f = [](const Tensor& x) {
    const Vars out = while_loop([](const Vars& v) { return v[0] < 3; },
                                [](const Vars& v) {
                                  const Vars inner =
                                      while_loop([](const Vars& u) { return u[0] < 2; },
                                                 [](const Vars& u) {
                                                   return Vars{u[0] + 1, sin(u[1]) + u[1] * 0.5};
                                                 },
                                                 {constant(0), v[1]});
                                  const Tensor next = cond(
                                      reduce_sum(inner[1]) > 0.0, [&] { return inner[1] * 1.5; },
                                      [&] { return inner[1] - 0.25; });
                                  return Vars{v[0] + 1, next};
                                },
                                {constant(0), x});
    return reduce_sum(out[1] * out[1]);
  };
  const Tensor at = constant({0.4, -0.9});
  GradientTape tape;
  tape.watch(at);
  const Tensor want = tape.gradient(f(at), {at})[0];
  Graph g;
  Tensor x, dx;
  {
    GraphScope scope(g);
    x = placeholder(kFloat64, {2}, "x");
    dx = gradients({f(x)}, {x})[0];
  }
  ExpectTensorNear(Session(g).run({{x, at}}, {dx})[0], want, 1e-12);
}

TEST_CASE("while_loop gradients free their accumulators after the backward") {
  // 1000 iterations over a 64 KiB loop variable: the accumulators hold 64 MB until the backward
  // loop pops them.
  auto grad = duet::function([](const Tensor& x) {
    GradientTape tape;
    tape.watch(x);
    const Vars out = while_loop([](const Vars& v) { return v[0] < 1000; },
                                [](const Vars& v) {
                                  return Vars{v[0] + 1, v[1] * 0.999 + 0.001};
                                },
                                {constant(0), x});
    return tape.gradient(reduce_sum(out[1]), {x})[0];
  });
  const Tensor x = fill({8192}, constant(1.0));
  ExpectTensorNear(grad(x), fill({8192}, constant(std::pow(0.999, 1000))), 1e-12);
  const int64_t before = CpuAllocator::Get().stats().bytes_in_use;
  const Tensor again = grad(x);
  CHECK(CpuAllocator::Get().stats().bytes_in_use - before <= 2 * 8192 * 8);
}

TEST_CASE("host_function calls C++ eagerly and from a session") {
  int calls = 0;
  auto twice = [&](const Vars& in) {
    ++calls;
    return Vars{in[0] * 2.f, cast(reduce_sum(in[1]), kInt64)};
  };
  const Vars eager =
      host_function(twice, {constant({1.f, 2.f}), constant({1, 2, 3})}, {kFloat32, kInt64});
  CHECK(eager[0].to_vector<float>() == std::vector<float>{2.f, 4.f});
  CHECK(eager[1].item<int64_t>() == 6);
  CHECK(calls == 1);

  Graph g;
  Tensor x;
  Vars out;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {-1}, "x");
    out = host_function(twice, {x, constant({4, 5})}, {kFloat32, kInt64});
  }
  CHECK(calls == 1);  // building the graph does not call it
  CHECK(NodeOf(out[0]).op().name == "DuetHostFunction");
  CHECK(out[0].shape().unknown_rank());
  Session sess(g);
  const Vars got = sess.run({{x, constant({3.f})}}, {out[0], out[1]});
  CHECK(got[0].to_vector<float>() == std::vector<float>{6.f});
  CHECK(got[1].item<int64_t>() == 9);
  CHECK(calls == 2);

  // Exported graphs keep the node; another process could not run it, so import says so.
  ExpectError([&] { Graph::from_graph_def(g.to_graph_def()); },
              {"DuetHostFunction", "host_function", "only runs in the process"});
}

TEST_CASE("a host_function closure lives as long as a graph or session that calls it") {
  // Note [Closures in graphs]: the closure captures a symbolic tensor of its own graph.
  auto alive = std::make_shared<int>(0);
  const std::weak_ptr<int> watch = alive;
  auto g = std::make_unique<Graph>();
  Tensor x, y;
  {
    GraphScope scope(*g);
    x = placeholder(kFloat32, {}, "x");
    const Tensor captured = x;
    y = host_function([alive, captured](const Vars& in) { return Vars{in[0] + 1.f}; }, {x},
                      {kFloat32})[0];
  }
  alive.reset();
  auto session = std::make_unique<Session>(*g);
  g.reset();  // the session's handle keeps the closure
  CHECK_FALSE(watch.expired());
  CHECK(session->run({{x, constant(1.f)}}, {y})[0].item<float>() == 2.f);
  session.reset();
  CHECK(watch.expired());  // though x and y still hold the graph's nodes
}

TEST_CASE("host_function errors name the node and the callable's message") {
  auto failing = [](const Vars&) -> Vars { throw std::runtime_error("bad input"); };
  ExpectError([&] { host_function(failing, {constant(1.f)}, {kFloat32}); },
              {"DuetHostFunction", "the host function threw: bad input"});
  auto wrong_dtype = [](const Vars& in) { return Vars{in[0]}; };
  ExpectError([&] { host_function(wrong_dtype, {constant(1.f)}, {kInt32}); },
              {"result 0 must be a int32", "got float32"});
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {}, "x");
    y = host_function(failing, {x}, {kFloat32}, "my_hook")[0];
  }
  Session sess(g);
  ExpectError([&] { sess.run({{x, constant(1.f)}}, {y}); }, {"my_hook", "bad input"});
}

}  // namespace
}  // namespace duet
