// ResourceApplyGradientDescent of a MatMul gradient -> _ResourceApplyMatMulGradientDescent: which
// updates of a training graph fuse (the weights', not the biases'), the values of a few training
// steps against the unoptimized graph, the cases that must not fuse, and the smaller arena.
#include <catch2/catch.hpp>
#include <functional>

#include "tests/graph/passes/pass_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

constexpr int64_t kIn = 784, kHidden = 32, kClasses = 10, kBatch = 8;
const std::vector<GraphTensor> kUpdates = {"update_0", "update_1", "update_2", "update_3"};

// The variables of a kIn-kHidden-kClasses MLP, the same values for the same dtype.
std::vector<Variable> MlpVariables(DType dtype) {
  return {Variable(random_normal({kIn, kHidden}, 1, dtype, 0, 0.05), "w1"),
          Variable(random_normal({kHidden}, 2, dtype, 0, 0.05), "b1"),
          Variable(random_normal({kHidden, kClasses}, 3, dtype, 0, 0.05), "w2"),
          Variable(random_normal({kClasses}, 4, dtype, 0, 0.05), "b2")};
}

// One SGD step of the MLP as graph_bench's TrainSteps builds it: loss "loss" of placeholders "x"
// and "labels", gradients(), then updates "update_<i>" after the loss.
Graph TrainingGraph(const std::vector<Variable>& v, DType dtype) {
  Graph g;
  GraphScope scope(g);
  const Tensor x = placeholder(dtype, {-1, kIn}, "x");
  const Tensor labels = placeholder(kInt64, {-1}, "labels");
  const Tensor h = relu(bias_add(matmul(x, v[0]), v[1]));
  const Tensor logits = bias_add(matmul(h, v[2]), v[3]);
  const Tensor loss =
      identity(reduce_mean(sparse_softmax_cross_entropy_with_logits(labels, logits)), "loss");
  const std::vector<Tensor> grads =
      gradients({loss}, std::vector<GradientSource>(v.begin(), v.end()));
  ControlDependencies after_loss({loss});
  const Tensor rate = cast(constant(0.5f), dtype);
  for (size_t i = 0; i < v.size(); ++i) {
    resource_apply_gradient_descent(v[i].handle(), rate, grads[i], "update_" + std::to_string(i));
  }
  return g;
}

FeedList Batch(DType dtype, int step) {
  return {
      {"x", random_normal({kBatch, kIn}, 10 + step, dtype)},
      {"labels", cast(floor(random_uniform({kBatch}, 20 + step, kFloat32, 0, kClasses)), kInt64)}};
}

const Node* NodeNamed(const Graph& g, const std::string& name) {
  for (const Node* node : g.nodes()) {
    if (node->name() == name) return node;
  }
  return nullptr;
}

TEST_CASE("both weight updates of an MLP training step fuse; the bias updates do not") {
  const std::vector<Variable> v = MlpVariables(kFloat32);
  Graph g = TrainingGraph(v, kFloat32);
  const PassReport report = optimize(g, PassOptions{.keep = {"loss"}});
  INFO(report.str());
  CHECK(report.counter("fusion.matmul_apply_gradient_descent") == 2);
  const std::map<std::string, int> ops = testing::OpCounts(g);
  CHECK(ops.at("_ResourceApplyMatMulGradientDescent") == 2);
  CHECK(ops.at("ResourceApplyGradientDescent") == 2);
  for (const std::string name : {"update_0", "update_1", "update_2", "update_3"}) {
    const Node* update = NodeNamed(g, name);
    REQUIRE(update != nullptr);
    const bool weight = name == "update_0" || name == "update_2";
    CHECK(update->op().name ==
          (weight ? "_ResourceApplyMatMulGradientDescent" : "ResourceApplyGradientDescent"));
    // Still after the loss, as the user asked.
    CHECK(std::any_of(update->control_inputs().begin(), update->control_inputs().end(),
                      [](const Node* in) { return in->name() == "loss"; }));
  }
  for (const MissedFusion& missed : report.missed) {
    CHECK(missed.fusion != "fusion.matmul_apply_gradient_descent");
  }
}

// Runs `steps` training steps on fresh variables, optimized or not, and returns their values.
std::vector<Tensor> Train(DType dtype, bool optimized, int steps) {
  const std::vector<Variable> v = MlpVariables(dtype);
  const Graph g = TrainingGraph(v, dtype);
  Session session(g, SessionOptions{.optimize = optimized});
  for (int step = 0; step < steps; ++step) session.run(Batch(dtype, step), {"loss"}, kUpdates);
  if (optimized) {
    const auto info = session.plan_info({"x", "labels"}, {"loss"}, kUpdates);
    CHECK(info.passes.counter("fusion.matmul_apply_gradient_descent") == 2);
  }
  std::vector<Tensor> values;
  for (const Variable& variable : v) values.push_back(variable.value());
  return values;
}

TEST_CASE("fused training steps give the unfused graph's variables") {
  for (const auto& [dtype, tol] : {std::pair{kFloat32, 1e-5}, std::pair{kFloat64, 1e-12}}) {
    INFO(DTypeName(dtype));
    const std::vector<Tensor> fused = Train(dtype, true, 3);
    const std::vector<Tensor> unfused = Train(dtype, false, 3);
    for (size_t i = 0; i < fused.size(); ++i) {
      INFO("variable " << i);
      testing::ExpectTensorNear(fused[i], unfused[i], tol);
    }
  }
}

// An update of w by alpha * MatMul(a, b), with `extra` free to add readers or keep the gradient.
struct SmallUpdate {
  Graph graph;
  Variable w{zeros({3, 2}), "w"};
  Tensor a, b, grad;
};

std::unique_ptr<SmallUpdate> BuildSmallUpdate(const std::function<void(SmallUpdate&)>& extra =
                                                  [](SmallUpdate&) {}) {
  auto s = std::make_unique<SmallUpdate>();
  GraphScope scope(s->graph);
  s->a = placeholder(kFloat32, {4, 3}, "a");
  s->b = placeholder(kFloat32, {4, 2}, "b");
  s->grad = matmul(s->a, s->b, /*transpose_a=*/true, false, "grad");
  extra(*s);
  resource_apply_gradient_descent(s->w.handle(), constant(0.25f), s->grad, "update");
  return s;
}

std::string MissedWhy(const PassReport& report) {
  for (const MissedFusion& missed : report.missed) {
    if (missed.fusion == "fusion.matmul_apply_gradient_descent") return missed.why;
  }
  return "";
}

TEST_CASE("a gradient only the update reads fuses, and the update keeps its name") {
  auto s = BuildSmallUpdate();
  const PassReport report = optimize(s->graph);
  CHECK(report.counter("fusion.matmul_apply_gradient_descent") == 1);
  CHECK(testing::OpCounts(s->graph).count("MatMul") == 0);
  const Node* update = NodeNamed(s->graph, "update");
  REQUIRE(update != nullptr);
  CHECK(update->op().name == "_ResourceApplyMatMulGradientDescent");
  // The session runs it as a target by its old name: w -= 0.25 * a^T b.
  const Tensor a = random_normal({4, 3}, 1), b = random_normal({4, 2}, 2);
  Session(s->graph).run({{"a", a}, {"b", b}}, {}, {"update"});
  testing::ExpectTensorNear(s->w.value(), zeros({3, 2}) - 0.25f * matmul(a, b, true), 1e-6);
}

TEST_CASE("a gradient read elsewhere, fetched, or followed by a control edge does not fuse") {
  SECTION("read by another node") {
    auto s = BuildSmallUpdate([](SmallUpdate& s) { identity(reduce_sum(s.grad), "norm"); });
    const PassReport report = optimize(s->graph);
    CHECK(report.counter("fusion.matmul_apply_gradient_descent") == 0);
    CHECK(MissedWhy(report) == "its gradient is read by 2 nodes, not only the update");
  }
  SECTION("fetched") {
    auto s = BuildSmallUpdate();
    const PassReport report = optimize(s->graph, PassOptions{.keep = {"grad"}});
    CHECK(report.counter("fusion.matmul_apply_gradient_descent") == 0);
    CHECK(MissedWhy(report) == "its gradient is fetched or kept");
    // A session fetching the gradient sees it, and the update still runs.
    Session session(s->graph);
    const Tensor a = random_normal({4, 3}, 1), b = random_normal({4, 2}, 2);
    const Tensor grad = session.run({{"a", a}, {"b", b}}, {"grad"}, {"update"})[0];
    testing::ExpectTensorNear(grad, matmul(a, b, true), 1e-6);
    CHECK(session.plan_info({"a", "b"}, {"grad"}, {"update"})
              .passes.counter("fusion.matmul_apply_gradient_descent") == 0);
  }
  SECTION("a control edge leaves it") {
    auto s = BuildSmallUpdate([](SmallUpdate& s) {
      ControlDependencies after({s.grad});
      no_op("after_grad");
    });
    const PassReport report = optimize(s->graph);
    CHECK(report.counter("fusion.matmul_apply_gradient_descent") == 0);
    CHECK(MissedWhy(report) == "a control edge leaves the gradient");
  }
  SECTION("a delta that is no MatMul is not a candidate") {
    Graph g;
    Variable w(zeros({3}), "w");
    {
      GraphScope scope(g);
      resource_apply_gradient_descent(w.handle(), constant(0.25f),
                                      reduce_sum(placeholder(kFloat32, {4, 3}, "a"), {0}));
    }
    const PassReport report = optimize(g);
    CHECK(report.counter("fusion.matmul_apply_gradient_descent") == 0);
    CHECK(MissedWhy(report).empty());
  }
}

// Note [Scratch inputs] (graph/plan.cc): the fused update scales its smaller operand in place when
// it reads that arena value last; a reader made after the update (the plan keeps that order) must
// still see the value unscaled.
TEST_CASE("a fused update's operand read after the update keeps its value") {
  const Tensor a_value = random_normal({4, 3}, 1), b_value = random_normal({4, 2}, 2);
  for (const bool read_after : {false, true}) {
    INFO("read after the update: " << read_after);
    Variable w(zeros({3, 2}), "w");
    Graph g;
    Tensor a, b, total;
    {
      GraphScope scope(g);
      a = placeholder(kFloat32, {4, 3}, "a");
      b = placeholder(kFloat32, {4, 2}, "b");
      const Tensor doubled = b * 2.f;  // an arena value, smaller than a
      resource_apply_gradient_descent(w.handle(), constant(0.25f),
                                      matmul(a, doubled, /*transpose_a=*/true, false), "update");
      total = reduce_sum(doubled * 1.f);
    }
    Session session(g);
    const std::vector<GraphTensor> fetches =
        read_after ? std::vector<GraphTensor>{total} : std::vector<GraphTensor>{};
    for (int step = 1; step <= 2; ++step) {  // the second run is the static plan's
      const std::vector<Tensor> out =
          session.run({{a, a_value}, {b, b_value}}, fetches, {"update"});
      if (read_after) testing::ExpectTensorNear(out[0], reduce_sum(b_value * 2.f), 1e-5);
      testing::ExpectTensorNear(
          w.value(),
          -0.25f * static_cast<float>(step) * matmul(a_value, b_value * 2.f, true, false), 1e-5);
    }
    CHECK(session.plan_info({a, b}, fetches, {"update"})
              .passes.counter("fusion.matmul_apply_gradient_descent") == 1);
  }
}

TEST_CASE("the fusion shrinks a training step's arena by the weight gradients") {
  const std::vector<Variable> v = MlpVariables(kFloat32);
  const Graph g = TrainingGraph(v, kFloat32);
  Session fused(g);
  Session unfused(g, SessionOptions{.passes = {.disable = {"fuse_gradient_update"}}});
  // The arena is laid out for the shapes of the last run.
  fused.run(Batch(kFloat32, 0), {"loss"}, kUpdates);
  unfused.run(Batch(kFloat32, 0), {"loss"}, kUpdates);
  const auto fused_info = fused.plan_info({"x", "labels"}, {"loss"}, kUpdates);
  const auto unfused_info = unfused.plan_info({"x", "labels"}, {"loss"}, kUpdates);
  INFO("arena bytes: fused " << fused_info.arena_bytes << ", unfused " << unfused_info.arena_bytes);
  REQUIRE(fused_info.static_layout);
  // Unfused, the arena holds W1's gradient (kIn x kHidden floats); fused, no gradient is stored.
  CHECK(unfused_info.arena_bytes >= static_cast<int64_t>(kIn * kHidden * sizeof(float)));
  CHECK(fused_info.arena_bytes * 10 < unfused_info.arena_bytes);
}

}  // namespace
}  // namespace duet
