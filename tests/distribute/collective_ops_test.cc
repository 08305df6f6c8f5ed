// The collective ops (distribute/collective_ops.h) among ranks (threads of this process, each with
// a Communicator over Gloo): every collective and dtype eagerly against the reduction of the
// ranks' inputs computed here, the same values traced (duet::function) and in a Session, the
// ordering edges of a traced graph, the gradient of an all-reduce against float64 finite
// differences taken across the ranks, and the errors.
#include "distribute/collective_ops.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "duet.h"
#include "tests/distribute/communicator_ranks.h"
#include "tests/test_util.h"

namespace duet::distribute {
namespace {

using testing::OnRanks;

void ExpectNoErrors(const std::vector<std::string>& errors) {
  for (size_t r = 0; r < errors.size(); ++r) {
    INFO("rank " << r << ": " << errors[r]);
    CHECK(errors[r].empty());
  }
}

// Rank r's input: 4 elements, r-dependent, exactly representable in every dtype.
template <typename T>
std::vector<T> Input(int rank) {
  return {static_cast<T>(rank + 1), static_cast<T>(2 * rank - 3), static_cast<T>(5 - rank),
          static_cast<T>(rank * rank)};
}

// The elementwise reduction of Input<T>(0 .. size - 1), as a NumPy reduction over axis 0 would.
template <typename T>
std::vector<T> Reduced(int size, ReduceOp op) {
  std::vector<T> out = Input<T>(0);
  for (int r = 1; r < size; ++r) {
    const std::vector<T> x = Input<T>(r);
    for (size_t i = 0; i < out.size(); ++i) {
      switch (op) {
        case ReduceOp::kSum:
        case ReduceOp::kMean:
          out[i] += x[i];
          break;
        case ReduceOp::kProduct:
          out[i] *= x[i];
          break;
        case ReduceOp::kMin:
          out[i] = std::min(out[i], x[i]);
          break;
        case ReduceOp::kMax:
          out[i] = std::max(out[i], x[i]);
          break;
      }
    }
  }
  if (op == ReduceOp::kMean) {
    for (T& v : out) v /= static_cast<T>(size);
  }
  return out;
}

template <typename T>
void CheckAllReduce(int size) {
  std::mutex mu;
  std::vector<std::string> failures;
  ExpectNoErrors(OnRanks(size, [&](const Communicator& comm) {
    const Tensor mine = constant(Input<T>(comm.rank()), Shape({2, 2}));
    auto traced = duet::function(
        [&](const Tensor& x, int64_t op) { return comm.all_reduce(x, static_cast<ReduceOp>(op)); });
    for (ReduceOp op :
         {ReduceOp::kSum, ReduceOp::kMean, ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kProduct}) {
      const std::vector<T> want = Reduced<T>(size, op);
      const Tensor eager = comm.all_reduce(mine, op);
      const Tensor graph = traced(mine, static_cast<int64_t>(op));
      std::lock_guard<std::mutex> lock(mu);
      if (eager.shape() != Shape({2, 2}) || eager.to_vector<T>() != want ||
          graph.to_vector<T>() != want) {
        failures.push_back(ReduceOpName(op));
      }
    }
  }));
  CHECK(failures.empty());
}

TEST_CASE("all_reduce of each dtype and op, eager and traced, equals the ranks' reduction") {
  for (int size : {1, 2, 3}) {
    INFO(size << " ranks");
    CheckAllReduce<float>(size);
    CheckAllReduce<double>(size);
    CheckAllReduce<int32_t>(size);
    CheckAllReduce<int64_t>(size);
  }
}

TEST_CASE("Reductions of float16 and bfloat16 (through float32 on Gloo), and Div after any op") {
  // Two ranks: {1, -3, 5, 0} and {2, -1, 4, 1}: every result is exact in the half types.
  struct Case {
    std::string merge_op, final_op;
    std::vector<double> want;
  };
  const std::vector<Case> cases = {{"Add", "Id", {3, -4, 9, 1}},
                                   {"Add", "Div", {1.5, -2, 4.5, 0.5}},
                                   {"Max", "Div", {1, -0.5, 2.5, 0.5}},  // TensorFlow allows it
                                   {"Min", "Div", {0.5, -1.5, 2, 0}},
                                   {"Mul", "Div", {1, 1.5, 10, 0}}};
  for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    INFO(DTypeName(dtype));
    std::mutex mu;
    std::vector<std::string> failures;
    ExpectNoErrors(OnRanks(2, [&](const Communicator& comm) {
      const Tensor mine = cast(constant(Input<float>(comm.rank()), Shape({4})), dtype);
      int instance = 1;
      for (const Case& c : cases) {
        const Tensor out = collective_reduce_v2(mine, {2, comm.group_key(), instance++}, {},
                                                c.merge_op, c.final_op);
        std::lock_guard<std::mutex> lock(mu);
        if (out.dtype() != dtype || cast(out, kFloat64).to_vector<double>() != c.want) {
          failures.push_back(c.merge_op + " " + c.final_op);
        }
      }
    }));
    CHECK(failures.empty());
  }
}

TEST_CASE("broadcast and all_gather, eager and traced") {
  constexpr int kSize = 3;
  std::vector<std::vector<float>> broadcasts(kSize), traced_broadcasts(kSize), gathers(kSize);
  std::vector<Shape> gather_shapes(kSize);
  ExpectNoErrors(OnRanks(kSize, [&](const Communicator& comm) {
    const float r = static_cast<float>(comm.rank());
    const Tensor mine = constant({r, 10 * r});
    broadcasts[comm.rank()] = comm.broadcast(mine, /*root=*/1).to_vector<float>();
    auto bcast = duet::function([&](const Tensor& x) { return comm.broadcast(x, 2); });
    traced_broadcasts[comm.rank()] = bcast(mine).to_vector<float>();
    auto gather = duet::function([&](const Tensor& x) { return comm.all_gather(x); });
    const Tensor gathered = gather(mine);
    gather_shapes[comm.rank()] = gathered.shape();
    gathers[comm.rank()] = gathered.to_vector<float>();
    CHECK(comm.all_gather(constant(r)).to_vector<float>() == std::vector<float>{0, 1, 2});
  }));
  for (int r = 0; r < kSize; ++r) {
    CHECK(broadcasts[r] == std::vector<float>{1, 10});
    CHECK(traced_broadcasts[r] == std::vector<float>{2, 20});
    CHECK(gather_shapes[r] == Shape({3, 2}));
    CHECK(gathers[r] == std::vector<float>{0, 0, 1, 10, 2, 20});
  }
}

TEST_CASE("A Session runs the collective nodes of a graph") {
  std::vector<std::vector<double>> sums(2);
  ExpectNoErrors(OnRanks(2, [&](const Communicator& comm) {
    Graph g;
    Tensor x, y;
    {
      GraphScope scope(g);
      x = placeholder(kFloat64, {2}, "x");
      y = comm.all_reduce(x * 2.0, ReduceOp::kSum);
    }
    CHECK(SymbolicOutput(y)->node->op().name == "CollectiveReduceV2");
    Session sess(g);
    const double r = comm.rank();
    sums[comm.rank()] = sess.run({{x, constant({r, r + 1})}}, {y})[0].to_vector<double>();
  }));
  for (const auto& s : sums) CHECK(s == std::vector<double>{2, 6});
}

TEST_CASE("A traced step keeps TensorFlow's op and chains its collectives in program order") {
  ExpectNoErrors(OnRanks(1, [&](const Communicator& comm) {
    auto step = duet::function([&](const Tensor& a, const Tensor& b) {
      const Tensor s = comm.all_reduce(a, ReduceOp::kMean);
      const Tensor t = comm.all_reduce(b, ReduceOp::kMax);  // independent of s
      return std::vector<Tensor>{s, t, comm.all_gather(a)};
    });
    const tensorflow::GraphDef def = step.graph_def(constant({1.f}), constant({2.f}));
    std::vector<const tensorflow::NodeDef*> collectives;
    for (const tensorflow::NodeDef& node : def.node()) {
      if (node.op() == "CollectiveReduceV2" || node.op() == "CollectiveGatherV2") {
        collectives.push_back(&node);
      }
    }
    REQUIRE(collectives.size() == 3);
    // Every collective after the first runs after another (a control input, or the ordering
    // token's chain), so that the ranks run them in one order.
    std::set<std::string> controls;
    for (const tensorflow::NodeDef* node : collectives) {
      CHECK(node->attr().at("Nordering_token").i() == 1);
      for (const std::string& input : node->input()) {
        if (!input.empty() && input[0] == '^') controls.insert(input.substr(1));
      }
    }
    CHECK(controls.count(collectives[0]->name()) == 1);
    CHECK(controls.count(collectives[1]->name()) == 1);
  }));
}

// loss_r = sum(all_reduce(x_r * x_r, op) * c_r), summed over the ranks r, differentiated with
// respect to rank 0's x: each rank's tape against central differences of the summed loss (every
// rank evaluates it in step, as collectives need).
void CheckAllReduceGradient(ReduceOp op) {
  constexpr int kSize = 2;
  constexpr double kEps = 1e-6;
  std::vector<std::vector<double>> analytic(kSize), numeric(kSize);
  ExpectNoErrors(OnRanks(kSize, [&](const Communicator& comm) {
    const int r = comm.rank();
    const std::vector<double> x0 = {0.3 + r, -1.2 * (r + 1), 0.7};
    const Tensor c = constant({1.5 - r, 0.25, -2.0 + r});
    auto loss = [&](const Tensor& x) { return reduce_sum(comm.all_reduce(x * x, op) * c); };
    Tensor x = from_vector(x0);
    GradientTape tape;
    tape.watch(x);
    const Tensor l = loss(x);
    analytic[r] = tape.gradient(l, {x})[0].to_vector<double>();
    for (size_t k = 0; k < x0.size(); ++k) {  // rank 0's element k moves; the loss is global
      double sides[2];
      for (int side = 0; side < 2; ++side) {
        std::vector<double> moved = x0;
        if (r == 0) moved[k] += side == 0 ? kEps : -kEps;
        sides[side] = comm.all_reduce(loss(from_vector(moved)), ReduceOp::kSum).item<double>();
      }
      numeric[r].push_back((sides[0] - sides[1]) / (2 * kEps));
    }
  }));
  for (size_t k = 0; k < 3; ++k) {
    CHECK(analytic[0][k] == Approx(numeric[0][k]).epsilon(1e-7));
  }
}

TEST_CASE("The gradient of a sum or mean all-reduce matches float64 finite differences") {
  SECTION("sum") { CheckAllReduceGradient(ReduceOp::kSum); }
  SECTION("mean") { CheckAllReduceGradient(ReduceOp::kMean); }
}

TEST_CASE("Asynchronous collectives run in the order they were started, before later ones") {
  std::vector<std::vector<float>> results(2);
  ExpectNoErrors(OnRanks(2, [&](const Communicator& comm) {
    const float r = static_cast<float>(comm.rank());
    std::vector<Work> works;
    for (int i = 0; i < 4; ++i) works.push_back(comm.all_reduce_async(constant({r + i})));
    const Work gathered = comm.all_gather_async(constant({10 * r}));
    const Work failing = comm.all_reduce_async(constant(std::vector<uint8_t>{1}, Shape({1})));
    // A synchronous collective waits for those started before it.
    const Tensor sum = comm.all_reduce(constant({1.f}), ReduceOp::kSum);
    for (const Work& w : works) CHECK(w.done());
    std::vector<float> out;
    for (const Work& w : works) out.push_back(w.wait().to_vector<float>()[0]);
    out.push_back(sum.to_vector<float>()[0]);
    CHECK(gathered.wait().to_vector<float>() == std::vector<float>{0, 10});
    duet::testing::ExpectError([&] { failing.wait(); }, {"CollectiveReduceV2", "uint8"});
    results[comm.rank()] = out;
    auto traced = duet::function([&](const Tensor& x) { return comm.all_reduce_async(x).wait(); });
    duet::testing::ExpectError([&] { traced(constant({1.f})); },
                               {"asynchronous collectives run eagerly"});
  }));
  for (const auto& r : results) CHECK(r == std::vector<float>{1, 3, 5, 7, 2});
}

TEST_CASE("Collective errors name the op, the group and the dtype") {
  ExpectNoErrors(OnRanks(2, [&](const Communicator& comm) {
    const Tensor x = constant({1.f, 2.f});
    duet::testing::ExpectError(
        [&] {
          collective_reduce_v2(x, {2, 9999, 1}, {}, "Add", "Id");
        },
        {"CollectiveReduceV2", "no communicator of this process has group_key 9999"});
    duet::testing::ExpectError(
        [&] {
          collective_reduce_v2(x, {3, comm.group_key(), 1}, {}, "Add", "Id");
        },
        {"group_size is 3 but group", "has 2 ranks"});
    duet::testing::ExpectError(
        [&] { comm.all_reduce(constant(std::vector<uint8_t>{1}, Shape({1}))); },
        {"CollectiveReduceV2", "uint8"});
    Tensor y = x;
    GradientTape tape;
    tape.watch(y);
    const Tensor m = reduce_sum(comm.all_reduce(y, ReduceOp::kMax));
    duet::testing::ExpectError([&] { tape.gradient(m, {y}); }, {"merge_op Max has no gradient"});
  }));
  duet::testing::ExpectError([] { Communicator().rank(); }, {"this Communicator is empty"});
  duet::testing::ExpectError([] { init({.backend = "pigeons"}); },
                             {"the backend is 'pigeons'", "gloo, mpi or nccl"});
#if !DUET_NCCL
  duet::testing::ExpectError([] { init({.backend = "nccl"}); }, {"this build has no NCCL"});
#endif
}

}  // namespace
}  // namespace duet::distribute
