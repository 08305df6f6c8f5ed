// Plan used directly, as the kernels of cond and while_loop will use it: a kernel runs a plan of
// its own from inside another plan's run, on several threads at once, and a plan may even run
// itself (Note [No lock while running] in graph/plan.cc).
#include "graph/plan.h"

#include <catch2/catch.hpp>
#include <thread>

#include "core/tensor_list.h"
#include "duet.h"
#include "kernels/kernel_registry.h"
#include "ops/common_shape_fns.h"
#include "tests/test_util.h"

namespace duet {
namespace {

// The plan TestOnlyRunPlan's kernel runs on its input, as If runs a branch. Set before the runs.
Plan* inner_plan = nullptr;
// Recursion depth of TestOnlyRunPlan on this thread; at kMaxDepth it returns its input instead.
thread_local int depth = 0;
constexpr int kMaxDepth = 3;

const OpDef* const kRunPlan = OpDefBuilder("TestOnlyRunPlan")
                                  .Input("x", kFloat32)
                                  .Output("y", kFloat32)
                                  .Doc("Test op: runs inner_plan on x.")
                                  .SetShapeFn(UnchangedShape)
                                  .Register();

absl::Status RunPlanKernel(KernelContext& ctx) {
  if (depth == kMaxDepth) {
    ctx.output(0) = ctx.input(0);
    return absl::OkStatus();
  }
  ++depth;
  absl::StatusOr<std::vector<Tensor>> out = inner_plan->Run({ctx.input(0)});
  --depth;
  if (!out.ok()) return out.status();
  ctx.output(0) = (*out)[0];
  return absl::OkStatus();
}

const KernelRegistrar kRunPlanKernel("TestOnlyRunPlan", DeviceType::kCpu, {kFloat32},
                                     {RunPlanKernel, /*allocates_outputs=*/true});

Tensor run_plan(const Tensor& x, OpSite site = {}) {
  OpCall call(kRunPlan, {x}, site);
  return RunSingleOutputOp(call);
}

// Compiles the plan that feeds `x` and fetches `y`.
std::unique_ptr<Plan> Compile(const Graph& g, const Tensor& x, const Tensor& y) {
  absl::StatusOr<std::unique_ptr<Plan>> plan = Plan::Compile(
      g, {*SymbolicOutput(x)}, {*SymbolicOutput(y)}, {}, [](const Node&) { return Tensor(); });
  REQUIRE(plan.ok());
  return *std::move(plan);
}

// Runs `plan` on vectors of 1..8 elements from 4 threads at once; `expected` maps an input
// element to the output's.
void RunFromThreads(Plan& plan, float (*expected)(float)) {
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 40; ++rep) {
        const float v = static_cast<float>(t + rep);
        const Tensor in = fill(Shape({1 + (t + rep) % 8}), v);
        absl::StatusOr<std::vector<Tensor>> out = plan.Run({in});
        const bool ok =
            out.ok() && (*out)[0].shape() == in.shape() &&
            (*out)[0].to_vector<float>() == std::vector<float>(in.num_elements(), expected(v));
        failures[t] += ok ? 0 : 1;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures == std::vector<int>(4, 0));
}

TEST_CASE("a kernel runs another plan from inside a run, on several threads at once") {
  Graph inner_graph, outer_graph;
  Tensor x, y, a, b;
  {
    GraphScope scope(inner_graph);
    x = placeholder(kFloat32, {-1}, "x");
    y = x * 2.f + 1.f;
  }
  {
    GraphScope scope(outer_graph);
    a = placeholder(kFloat32, {-1}, "a");
    b = run_plan(a + 1.f) * 3.f;
  }
  std::unique_ptr<Plan> inner = Compile(inner_graph, x, y);
  std::unique_ptr<Plan> outer = Compile(outer_graph, a, b);
  inner_plan = inner.get();
  RunFromThreads(*outer, [](float v) { return ((v + 1) * 2 + 1) * 3; });
  inner_plan = nullptr;
}

TEST_CASE("a plan runs itself from inside its own run, on several threads at once") {
  Graph g;
  Tensor a, b;
  {
    GraphScope scope(g);
    a = placeholder(kFloat32, {-1}, "a");
    b = run_plan(a * 2.f) + 1.f;  // depth 0 -> 1 -> 2 -> 3: returns its input
  }
  std::unique_ptr<Plan> plan = Compile(g, a, b);
  inner_plan = plan.get();
  // ((((v * 2) * 2) * 2) * 2) + 1 + 1 + 1 + 1: each level doubles, then adds one on the way out.
  RunFromThreads(*plan, [](float v) { return v * 16 + 4; });
  inner_plan = nullptr;
}

TEST_CASE("a step whose input lives on another device fails the device check, naming the node") {
  if (num_cpu_devices() < 2) {
    WARN("skipped: no virtual device cpu:1 (DUET_VIRTUAL_DEVICES=2)");
    return;
  }
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {2}, "x");  // on the host
    DeviceScope on(Device::cpu(1));
    y = multiply(x, x, "twice");  // on cpu:1, reading the host placeholder
  }
  // Compiled without the copies a session inserts (Note [Device boundaries]): the check stops the
  // kernel rather than let it read the host's tensor as cpu:1's.
  std::unique_ptr<Plan> plan = Compile(g, x, y);
  absl::StatusOr<std::vector<Tensor>> out = plan->Run({constant({1.f, 2.f})});
  REQUIRE_FALSE(out.ok());
  CHECK_THAT(std::string(out.status().message()),
             Catch::Contains("Mul") && Catch::Contains("twice") &&
                 Catch::Contains("input 0 ('x') is on cpu:0, but the kernel runs on cpu:1") &&
                 Catch::Contains("plan_test.cc"));
  // The session copies the value across, so the same graph runs.
  const std::vector<Tensor> ran = Session(g).run({{x, constant({1.f, 2.f})}}, {y});
  CHECK(ran[0].device() == Device::cpu(1));
  testing::ExpectTensorNear(ran[0].cpu(), constant({1.f, 4.f}), 0);
}

// Note [Inputs handed over]: a static plan moves a value into the step that reads it last, so a
// list kernel appends in place (Note [Lists updated in place]); a list fetched, or read by a later
// step, is still the value it was when made.
TEST_CASE("a value handed to its last reader: lists updated in place stay values to others") {
  Graph g;
  Tensor x, l1, n1, l3;
  {
    GraphScope scope(g);
    x = placeholder(kInt32, {}, "x");
    l1 = tensor_list_push_back(empty_tensor_list(constant(-1), constant(-1), kInt32), x);
    const Tensor l2 = tensor_list_push_back(l1, x + 1);  // read last by the push below
    n1 = tensor_list_length(l1);                         // read after l1 was pushed onto
    l3 = tensor_list_push_back(l2, x + 2);
  }
  absl::StatusOr<std::unique_ptr<Plan>> plan = Plan::Compile(
      g, {*SymbolicOutput(x)}, {*SymbolicOutput(l1), *SymbolicOutput(n1), *SymbolicOutput(l3)}, {},
      [](const Node&) { return Tensor(); });
  REQUIRE(plan.ok());
  for (int run = 0; run < 2; ++run) {
    absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({constant(5)});
    REQUIRE(out.ok());
    CHECK((*plan)->last_run_static());
    CHECK(TensorListOf((*out)[0])->elements.size() == 1);
    CHECK((*out)[1].item<int32_t>() == 1);
    testing::ExpectTensor(tensor_list_stack((*out)[2], constant(-1), kInt32), kInt32, {3},
                          {5, 6, 7});
  }
}

}  // namespace
}  // namespace duet
