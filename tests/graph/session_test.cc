// Session: runs what the fetches need, by handle or by name, reuses plans, frees intermediates,
// and reports errors with the node, op, shapes and source line.
#include <catch2/catch.hpp>
#include <thread>

#include "duet.h"
#include "ops/nn/fused_nn_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

TEST_CASE("run feeds placeholders and fetches by handle or by name") {
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {-1, 2}, "x");
    y = relu(matmul(x, constant({{1.f, -1.f}, {2.f, 0.5f}})), "y");
  }
  Session sess(g);
  const Tensor batch = constant({{1.f, 2.f}, {-3.f, 1.f}});
  // [1, 2] -> [5, 0]; [-3, 1] -> [-1, 3.5] -> relu [0, 3.5]
  std::vector<Tensor> out = sess.run({{x, batch}}, {y});
  REQUIRE(out.size() == 1);
  testing::ExpectTensor(out[0], kFloat32, {2, 2}, {5, 0, 0, 3.5});
  out = sess.run({{"x", batch}}, {"y:0", "y"});
  testing::ExpectTensor(out[1], kFloat32, {2, 2}, {5, 0, 0, 3.5});
  CHECK(sess.num_plans() == 2);
  sess.run({{"x:0", constant({{0.f, 1.f}, {1.f, 0.f}})}}, {"y"});  // the first signature, by name
  sess.run({{x, batch}}, {y});
  CHECK(sess.num_plans() == 2);
}

TEST_CASE("eager and session results agree on a small MLP") {
  const Tensor w1 = random_normal({8, 16}, 1), b1 = random_normal({16}, 2);
  const Tensor w2 = random_normal({16, 4}, 3), b2 = random_normal({4}, 4);
  auto model = [&](const Tensor& in) {
    return softmax(bias_add(matmul(relu(bias_add(matmul(in, w1), b1)), w2), b2));
  };
  const Tensor batch = random_normal({5, 8}, 5);
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {-1, 8});
    y = model(x);
  }
  CHECK(y.shape() == Shape({-1, 4}));
  Session sess(g);
  testing::ExpectTensorNear(sess.run({{x, batch}}, {y})[0], model(batch), 1e-6);
}

TEST_CASE("only what the fetches need runs; feeding an output cuts its producer") {
  Graph g;
  Tensor x, bad, good;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {2}, "x");
    bad = gather(x, constant({int64_t{7}}));  // index 7 is out of range: fails if run
    good = x * 3.f;
  }
  Session sess(g);
  testing::ExpectTensor(sess.run({{x, constant({1.f, 2.f})}}, {good})[0], kFloat32, {2}, {3, 6});
  // Feeding an intermediate: its producer (and the placeholder behind it) need not run.
  const Tensor doubled = SymbolicOutput(good)->node->inputs()[0].node->output(0);
  CHECK(doubled.shape() == Shape({2}));
  testing::ExpectTensor(sess.run({{x, constant({5.f, 5.f})}}, {x})[0], kFloat32, {2}, {5, 5});
}

TEST_CASE("an unfed placeholder and bad feeds are clear errors") {
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {-1, 2}, "x");
    y = negative(x, "y");
  }
  Session sess(g);
  testing::ExpectError([&] { sess.run({}, {y}); },
                       {"Placeholder node 'x'", "must be fed", "session_test.cc"});
  testing::ExpectError(
      [&] {
        sess.run({{x, constant({1.0, 2.0})}}, {y});
      },
      {"'x'", "float32 (None, 2)", "float64 (2,)"});
  testing::ExpectError(
      [&] {
        sess.run({{x, constant({1.f, 2.f})}}, {y});
      },
      {"'x'", "(None, 2)", "(2,)"});
  testing::ExpectError(
      [&] {
        sess.run({{"x", constant({{1.f, 2.f}})}}, {"nope:0"});
      },
      {"no node named 'nope'"});
  testing::ExpectError([&] { sess.run({}, {"y:3"}); }, {"'y'", "no output 3"});
}

TEST_CASE("a kernel error in a run names the node, op, input shapes and source line") {
  Graph g;
  Tensor i, y;
  {
    GraphScope scope(g);
    i = placeholder(kInt64, {1}, "i");
    y = gather(constant({1.f, 2.f}), i, 0, "pick");
  }
  Session sess(g);
  testing::ExpectTensor(sess.run({{i, constant({int64_t{1}})}}, {y})[0], kFloat32, {1}, {2});
  testing::ExpectError(
      [&] {
        sess.run({{i, constant({int64_t{9}})}}, {y});
      },
      {"GatherV2", "node 'pick'", "session_test.cc", "(2,)"});
}

TEST_CASE("targets run nodes for their effects; control dependencies order them") {
  Variable v(constant(1.f), "v");
  Graph g;
  Tensor read;
  {
    GraphScope scope(g);
    assign_add_variable_op(v.handle(), constant(10.f), "bump");
    read = v.value();
  }
  Session sess(g);
  sess.run({}, {}, {"bump"});
  CHECK(v.value().item<float>() == 11.f);  // the graph updated the eager variable's state
  // Note [Automatic control dependencies]: the read comes after the bump in the program, so
  // fetching it runs the bump first.
  testing::ExpectTensor(sess.run({}, {read})[0], kFloat32, {}, {21});
  CHECK(SymbolicOutput(read)->node->control_inputs().size() == 1);
}

TEST_CASE("a session keeps the graph's nodes alive") {
  std::unique_ptr<Session> sess;
  Tensor y;
  {
    Graph g;
    GraphScope scope(g);
    y = constant(2.f) * 4.f;
    sess = std::make_unique<Session>(g);
  }
  testing::ExpectTensor(sess->run({}, {y})[0], kFloat32, {}, {8});
}

TEST_CASE("run is safe from several threads at once") {
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {-1});
    y = reduce_sum(x * x + 1.f);
  }
  Session sess(g);
  std::vector<float> results(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 50; ++rep) {
        const Tensor in = fill(Shape({t + 1}), t);
        results[t] = sess.run({{x, in}}, {y})[0].item<float>();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) CHECK(results[t] == static_cast<float>((t + 1) * (t * t + 1)));
}

}  // namespace
}  // namespace duet

namespace duet {
namespace {

TEST_CASE("runs with known feed shapes use a static layout whose arena reuses memory") {
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {-1}, "x");
    y = x;
    for (int i = 0; i < 10; ++i) y = y * 1.5f + 1.f;  // 20 steps, 64-element values
  }
  Session sess(g);
  auto expected = [](float v) {
    for (int i = 0; i < 10; ++i) v = v * 1.5f + 1.f;
    return v;
  };
  for (int64_t n : {64, 64, 32, 64}) {  // a new feed shape builds a new layout
    INFO("n = " << n);
    const Tensor in = fill(Shape({n}), 2.0);
    const Tensor out = sess.run({{x, in}}, {y})[0];
    REQUIRE(out.shape() == Shape({n}));
    CHECK(out.to_vector<float>()[n - 1] == expected(2.f));
    const Session::PlanInfo info = sess.plan_info({x}, {y});
    CHECK(info.static_layout);
    // 19 intermediates of n floats, but at most two are alive at once.
    CHECK(info.arena_bytes <= 2 * ((n * 4 + 63) / 64 * 64));
  }
}

TEST_CASE("independent chains run one after another, in program order, keeping few values") {
  constexpr int64_t kChains = 8, n = 4096;
  Graph g;
  Tensor x, total;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {n}, "x");
    for (int i = 0; i < kChains; ++i) {  // each chain: a large product, squared and summed
      const Tensor big = x * static_cast<float>(i + 1);
      const Tensor sum = reduce_sum(big * big);
      total = i == 0 ? sum : total + sum;
    }
  }
  Session sess(g);
  const Tensor out = sess.run({{x, fill(Shape({n}), 1.0f)}}, {total})[0];
  CHECK(out.item<float>() == Approx(n * 204.0));  // sum of (i + 1)^2 for i < 8
  const Session::PlanInfo info = sess.plan_info({x}, {total});
  REQUIRE(info.static_layout);
  // First in, first out would make all eight products before squaring any.
  CHECK(info.arena_bytes <= 3 * n * static_cast<int64_t>(sizeof(float)));
}

TEST_CASE("a static run allocates tensor memory only for what it returns") {
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {16}, "x");
    y = x;
    for (int i = 0; i < 20; ++i) y = relu(y * 2.f - 1.f);
  }
  Session sess(g);
  const Tensor in = fill(Shape({16}), 1.0);
  sess.run({{x, in}}, {y});  // compiles the plan and makes the frame
  const int64_t before = CpuAllocator::Get().stats().allocations;
  sess.run({{x, in}}, {y});
  CHECK(CpuAllocator::Get().stats().allocations - before == 1);  // the fetched y
}

TEST_CASE("shapes that depend on values run without a static layout") {
  Graph g;
  Tensor x, shape, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {6}, "x");
    shape = placeholder(kInt32, {2}, "shape");
    y = reshape(x + 1.f, shape) * 2.f;
  }
  Session sess(g);
  const Tensor in = constant({0.f, 1.f, 2.f, 3.f, 4.f, 5.f});
  for (const auto& dims : {std::vector<int32_t>{2, 3}, std::vector<int32_t>{3, 2}}) {
    const Tensor out = sess.run({{x, in}, {shape, from_vector(dims)}}, {y})[0];
    CHECK(out.shape() == Shape({dims[0], dims[1]}));
    CHECK(out.to_vector<float>() == std::vector<float>{2, 4, 6, 8, 10, 12});
  }
  CHECK_FALSE(sess.plan_info({x, shape}, {y}).static_layout);
}

TEST_CASE("values the feed shapes determine are folded into the layout, not computed in runs") {
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {-1, 3}, "x");
    // BroadcastTo's shape is a value; Shape, Size and Cast depend only on the feed's shape.
    y = broadcast_to(reduce_sum(x), shape_of(x)) / cast(size(x), kFloat32);
  }
  Session sess(g);
  for (int64_t n : {2, 5, 2}) {
    INFO("n = " << n);
    const Tensor in = fill(Shape({n, 3}), 2.0);
    sess.run({{x, in}}, {y});  // builds the layout for this feed shape
    const int64_t before = CpuAllocator::Get().stats().allocations;
    const Tensor out = sess.run({{x, in}}, {y})[0];
    CHECK(CpuAllocator::Get().stats().allocations - before == 1);  // only the fetched y
    CHECK(out.shape() == Shape({n, 3}));
    CHECK(out.to_vector<float>() == std::vector<float>(n * 3, 2.f));  // the mean, everywhere
    CHECK(sess.plan_info({x}, {y}).static_layout);
  }
}

TEST_CASE("a failing step over constants still fails in the run, naming its node") {
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {1}, "x");
    // All inputs are constants, so layout building tries to fold the gather; index 7 fails.
    y = x + gather(constant({1.f, 2.f}), constant({int64_t{7}}), 0, "bad_gather");
  }
  Session sess(g);
  for (int rep = 0; rep < 2; ++rep) {
    testing::ExpectError(
        [&] {
          sess.run({{x, constant({1.f})}}, {y});
        },
        {"GatherV2", "node 'bad_gather'", "session_test.cc"});
  }
}

TEST_CASE("a training step from gradients() runs statically, its gradients in the arena") {
  const Tensor w0 = random_normal({8, 4}, 1), b0 = random_normal({4}, 2);
  Variable w(w0, "w"), b(b0, "b");                // trained by the session
  Variable w_eager(w0, "we"), b_eager(b0, "be");  // the same, eagerly
  const Tensor batch = random_normal({16, 8}, 3);
  const Tensor labels = cast(floor(random_uniform({16}, 4, kFloat32, 0, 4)), kInt64);
  const Tensor rate = constant(0.5f);
  auto loss_of = [](const Tensor& x, const Tensor& y, const Variable& wv, const Variable& bv) {
    return reduce_mean(sparse_softmax_cross_entropy_with_logits(y, bias_add(matmul(x, wv), bv)));
  };
  Graph g;
  Tensor x, y, loss;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {-1, 8}, "x");  // the batch size is unknown until a run
    y = placeholder(kInt64, {-1}, "y");
    loss = loss_of(x, y, w, b);
    const std::vector<Tensor> grads = gradients({loss}, {w, b});
    ControlDependencies after_loss({loss});
    resource_apply_gradient_descent(w.handle(), rate, grads[0], "update_w");
    resource_apply_gradient_descent(b.handle(), rate, grads[1], "update_b");
  }
  Session sess(g);
  const FeedList feeds = {{x, batch}, {y, labels}};
  for (int step = 0; step < 3; ++step) {
    INFO("step " << step);
    const int64_t before = CpuAllocator::Get().stats().allocations;
    const Tensor l = sess.run(feeds, {loss}, {"update_w", "update_b"})[0];
    // After the first run (plan, layout, frame), only the fetched loss is allocated: the
    // gradients that the updates consume live in the arena.
    if (step > 0) CHECK(CpuAllocator::Get().stats().allocations - before == 1);
    GradientTape tape;
    const Tensor l_eager = loss_of(batch, labels, w_eager, b_eager);
    const std::vector<Tensor> grads = tape.gradient(l_eager, {w_eager, b_eager});
    resource_apply_gradient_descent(w_eager.handle(), rate, grads[0]);
    resource_apply_gradient_descent(b_eager.handle(), rate, grads[1]);
    testing::ExpectTensorNear(l, l_eager, 1e-6);
  }
  testing::ExpectTensorNear(w.value(), w_eager.value(), 1e-6);
  testing::ExpectTensorNear(b.value(), b_eager.value(), 1e-6);
  const Session::PlanInfo info = sess.plan_info({x, y}, {loss}, {"update_w", "update_b"});
  CHECK(info.static_layout);
  CHECK(info.arena_bytes >= 8 * 4 * 4);  // at least the gradient of w
}

TEST_CASE("views of intermediates and fetched intermediates keep their values across runs") {
  Graph g;
  Tensor x, a, b, c;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {4}, "x");
    a = relu(x) + 1.f;
    b = reshape(a, {2, 2});  // a view of a
    c = b * 10.f;
    c = c + 1.f;
  }
  Session sess(g);
  for (float v : {1.f, 2.f, 3.f}) {
    const std::vector<Tensor> out = sess.run({{x, fill(Shape({4}), v)}}, {b, c, a});
    CHECK(out[0].to_vector<float>() == std::vector<float>(4, v + 1));
    CHECK(out[1].to_vector<float>() == std::vector<float>(4, (v + 1) * 10 + 1));
    CHECK(out[2].to_vector<float>() == std::vector<float>(4, v + 1));
  }
  CHECK(sess.plan_info({x}, {b, c, a}).static_layout);
}

// Note [Specializing to fed shapes].
TEST_CASE("a plan is specialized to the shapes fed, so that shape-dependent passes fire") {
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {-1, 8}, "x");
    y = tanh(x * 2.f + 1.f) * x;  // fuses into one _FusedElementwise only with static shapes
  }
  const Tensor in = random_normal({3, 8}, 1);
  const Tensor expected = tanh(in * 2.f + 1.f) * in;
  Session specialized(g);
  Session general(g, SessionOptions{.specialize_shapes = false});
  testing::ExpectTensorNear(specialized.run({{x, in}}, {y})[0], expected, 1e-6);
  testing::ExpectTensorNear(general.run({{x, in}}, {y})[0], expected, 1e-6);
  CHECK(specialized.plan_info({x}, {y}).passes.counter("fusion.elementwise") == 1);
  CHECK(specialized.plan_info({x}, {y}).static_layout);
  CHECK(general.plan_info({x}, {y}).passes.counter("fusion.elementwise") == 0);
}

TEST_CASE("a specialized plan fuses a residual block's sum into its convolution") {
  const Tensor filter = random_normal({3, 3, 4, 4}, 1), bias = random_normal({4}, 2);
  auto block = [&](const Tensor& x) {
    return relu(bias_add(conv2d(x, filter, {1, 1, 1, 1}, "SAME"), bias) + x);
  };
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {-1, 6, 6, 4}, "x");  // an unknown batch might broadcast
    y = block(x);
  }
  const Tensor in = random_normal({2, 6, 6, 4}, 3);
  Session specialized(g);
  Session general(g, SessionOptions{.specialize_shapes = false});
  testing::ExpectTensorNear(specialized.run({{x, in}}, {y})[0], block(in), 1e-5);
  testing::ExpectTensorNear(general.run({{x, in}}, {y})[0], block(in), 1e-5);
  CHECK(specialized.plan_info({x}, {y}).passes.counter("fusion.conv2d_bias_add_relu") == 1);
  CHECK(general.plan_info({x}, {y}).passes.counter("fusion.conv2d_bias") == 1);
  CHECK(general.plan_info({x}, {y}).passes.counter("fusion.conv2d_bias_add_relu") == 0);
}

// Note [In-place outputs].
TEST_CASE("a static plan writes a fused op's residual sum over the residual, in every dtype") {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    INFO(DTypeName(dt));
    const Tensor f = cast(random_normal({3, 3, 4, 4}, 1), dt), b = cast(random_normal({4}, 2), dt);
    auto net = [&](const Tensor& x) {
      const Tensor r = relu(x);
      const Tensor a = fused_conv2d(r, f, {b}, {"BiasAdd", "Relu"}, {1}, "SAME");
      const Tensor y = fused_conv2d(a, f, {b, r}, {"BiasAdd", "Add", "Relu"}, {1}, "SAME");
      return fused_conv2d(y, f, {b}, {"BiasAdd"}, {1}, "SAME");
    };
    Graph g;
    Tensor x, out;
    {
      GraphScope scope(g);
      x = placeholder(dt, {2, 6, 6, 4}, "x");
      out = net(x);
    }
    const Tensor in = cast(random_normal({2, 6, 6, 4}, 3), dt);
    Session sess(g);
    for (int run = 0; run < 2; ++run) {  // the second run reuses the arena
      testing::ExpectTensorNear(sess.run({{x, in}}, {out})[0], net(in),
                                dt == kBFloat16 ? 5e-2 : 1e-5);
    }
    const Session::PlanInfo info = sess.plan_info({x}, {out});
    REQUIRE(info.static_layout);
    // r, a and y are alive together at y's step: three buffers, but y takes r's.
    CHECK(info.arena_bytes == 2 * in.nbytes());
  }
}

TEST_CASE("after a few specialized shapes, other shapes share one general plan") {
  Graph g;
  Tensor x, y, fixed, z;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {-1, 2}, "x");
    y = reshape(x, shape_of(x)) * 2.f;  // Shape folds in a specialized plan
    fixed = placeholder(kFloat32, {2, 2}, "fixed");
    z = fixed * 3.f;
  }
  Session sess(g);
  for (int64_t n : {1, 2, 3, 4, 5, 6, 1, 6}) {
    INFO("n = " << n);
    const Tensor in = fill(Shape({n, 2}), 1.5);
    testing::ExpectTensor(sess.run({{x, in}}, {y})[0], kFloat32, {n, 2},
                          std::vector<double>(n * 2, 3.0));
    const PassReport passes = sess.plan_info({x}, {y}).passes;
    INFO(passes.str());
    CHECK((passes.counter("constant_folding.shapes") > 0) == (n <= 4));  // a specialized plan
  }
  CHECK(sess.num_plans() == 5);  // 4 specialized, 1 general
  // A placeholder with a fully defined shape has nothing to learn from the values fed.
  sess.run({{fixed, fill(Shape({2, 2}), 1.0)}}, {z});
  sess.run({{fixed, fill(Shape({2, 2}), 2.0)}}, {z});
  CHECK(sess.num_plans() == 6);
}

}  // namespace
}  // namespace duet
