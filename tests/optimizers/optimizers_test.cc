// Optimizers against Keras 3's (tf_keras' legacy Adagrad, the one on ResourceApplyAdagradV2):
// 10-step trajectories of every optimizer and option (tests/optimizers/testdata/
// gen_trajectories.py), eagerly, in a traced step and in a Session, to 1e-6 relative in float32
// and 1e-12 in float64; slots, the step counter, schedules without retracing, clipping, errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <memory>

#include "core/npy.h"
#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using optimizers::Optimizer;
using testing::ExpectError;
using testing::ExpectTensor;

const std::string kDir = "tests/optimizers/testdata/";

// The fixture's problem: loss = sum(ca * (a - ta)^2) + sum(cb * (b - tb)^2).
struct Problem {
  explicit Problem(DType dtype)
      : a(cast(constant({{0.5, -1.0, 2.0}, {1.5, 0.0, -0.5}}), dtype), "a"),
        b(cast(constant({1.0, -2.0, 0.25, 3.0}), dtype), "b"),
        ta(cast(constant({{1.0, 2.0, 3.0}, {-1.0, -2.0, -3.0}}), dtype)),
        ca(cast(constant({{1.0, 0.5, 2.0}, {0.25, 1.0, 3.0}}), dtype)),
        tb(cast(constant({0.5, 0.5, -1.0, 2.0}), dtype)),
        cb(cast(constant({2.0, 1.0, 0.5, 4.0}), dtype)) {}

  Tensor loss() const { return reduce_sum(ca * square(a - ta)) + reduce_sum(cb * square(b - tb)); }
  // One training step: the gradients of the loss, applied.
  void step(Optimizer& opt) const {
    GradientTape tape;
    const Tensor l = loss();
    opt.apply_gradients(tape.gradient(l, std::vector<Variable>{a, b}), {a, b});
  }
  std::vector<double> values() const {
    std::vector<double> v = testing::ToDoubles(a.value());
    const std::vector<double> vb = testing::ToDoubles(b.value());
    v.insert(v.end(), vb.begin(), vb.end());
    return v;
  }

  Variable a, b;
  Tensor ta, ca, tb, cb;
};

using Factory = std::function<std::unique_ptr<Optimizer>()>;

std::vector<std::pair<std::string, Factory>> Cases() {
  using namespace optimizers;  // NOLINT(google-build-using-namespace): the names of the cases
  return {
      {"sgd", [] { return std::make_unique<SGD>(0.1); }},
      {"sgd_momentum", [] { return std::make_unique<SGD>(0.1, 0.9); }},
      {"sgd_nesterov", [] { return std::make_unique<SGD>(0.1, 0.9, true); }},
      {"adam", [] { return std::make_unique<Adam>(0.01); }},
      {"adam_amsgrad", [] { return std::make_unique<Adam>(0.01, AdamOptions{.amsgrad = true}); }},
      {"adamw", [] { return std::make_unique<AdamW>(0.01, 0.1); }},
      {"rmsprop", [] { return std::make_unique<RMSProp>(0.01); }},
      {"rmsprop_centered_momentum",
       [] {
         return std::make_unique<RMSProp>(0.01, RMSPropOptions{.momentum = 0.5, .centered = true});
       }},
      {"adagrad", [] { return std::make_unique<Adagrad>(0.1); }},
      {"adam_exponential_decay",
       [] { return std::make_unique<Adam>(ExponentialDecay(0.01, 3, 0.5)); }},
      {"sgd_piecewise",
       [] {
         return std::make_unique<SGD>(PiecewiseConstantDecay({3, 6}, {0.1, 0.05, 0.01}));
       }},
      {"adam_cosine_warmup",
       [] { return std::make_unique<Adam>(CosineDecay(0.0, 10, 0, 0.02, 3)); }},
      {"sgd_clipnorm",
       [] { return std::make_unique<SGD>(0.1, 0, false, ClipOptions{.clipnorm = 0.5}); }},
      {"adam_global_clipnorm",
       [] { return std::make_unique<Adam>(0.01, AdamOptions{.clip = {.global_clipnorm = 0.5}}); }},
  };
}

// Compares the problem's values with a fixture row.
using CheckRow = std::function<void(int row)>;

// Runs `steps` (which makes 10 steps, calling check_row(k) after step k where it can) and checks
// the values against the fixture's rows: relative to max(1, |value|), 1e-6 in float32 and 1e-12
// in float64.
void ExpectTrajectory(const std::string& file, DType dtype,
                      const std::function<void(Problem&, Optimizer&, const CheckRow&)>& steps,
                      const Factory& make) {
  absl::StatusOr<Tensor> expected = ReadNpy(kDir + file);
  REQUIRE(expected.ok());
  const std::vector<double> rows = testing::ToDoubles(*expected);
  REQUIRE(rows.size() == 11 * 10);
  Problem problem(dtype);
  const std::unique_ptr<Optimizer> opt = make();
  const double tolerance = dtype == kFloat32 ? 1e-6 : 1e-12;
  const CheckRow check_row = [&](int row) {
    const std::vector<double> got = problem.values();
    for (int j = 0; j < 10; ++j) {
      const double want = rows[row * 10 + j];
      INFO("step " << row << ", value " << j << ": got " << got[j] << ", Keras " << want);
      CHECK(std::abs(got[j] - want) <= tolerance * std::max(1.0, std::abs(want)));
    }
  };
  check_row(0);
  steps(problem, *opt, check_row);
  check_row(10);
}

TEST_CASE("Every optimizer follows Keras' 10-step trajectory eagerly") {
  for (const auto& [name, make] : Cases()) {
    for (DType dtype : {kFloat32, kFloat64}) {
      INFO(name << " " << DTypeName(dtype));
      const std::string file = name + (dtype == kFloat32 ? "_f32.npy" : "_f64.npy");
      ExpectTrajectory(
          file, dtype,
          [](Problem& p, Optimizer& opt, const CheckRow& check_row) {
            for (int i = 1; i <= 10; ++i) {
              p.step(opt);
              check_row(i);
            }
          },
          make);
    }
  }
}

TEST_CASE("Every optimizer follows the same trajectory in a traced step, traced once") {
  for (const auto& [name, make] : Cases()) {
    INFO(name);
    ExpectTrajectory(
        name + "_f32.npy", kFloat32,
        [](Problem& p, Optimizer& opt, const CheckRow& check_row) {
          auto step = duet::function([&] {
            p.step(opt);
            return opt.iterations().value();
          });
          for (int i = 1; i <= 10; ++i) {
            step();
            check_row(i);
          }
          CHECK(step.trace_count() == 1);
          CHECK(opt.iterations().value().item<int64_t>() == 10);
        },
        make);
  }
}

TEST_CASE("Every optimizer follows the same trajectory in a Session") {
  for (const auto& [name, make] : Cases()) {
    INFO(name);
    ExpectTrajectory(
        name + "_f64.npy", kFloat64,
        [](Problem& p, Optimizer& opt, const CheckRow& check_row) {
          Graph g;
          Tensor train;
          {
            GraphScope scope(g);
            GradientTape tape;
            const Tensor l = p.loss();
            train =
                opt.apply_gradients(tape.gradient(l, std::vector<Variable>{p.a, p.b}), {p.a, p.b});
          }
          Session session(g);
          for (int i = 1; i <= 10; ++i) {
            session.run({}, {train});
            check_row(i);
          }
        },
        make);
  }
}

TEST_CASE("Slots are made on the first update, named after the variable, and listed") {
  optimizers::Adam adam(0.1, {.amsgrad = true});
  Variable w(constant({1.f, 2.f}), "dense/kernel");
  CHECK(!adam.slot(w, "m").defined());
  adam.apply_gradients({constant({0.5f, -0.5f})}, {w});
  CHECK(adam.slot(w, "m").name() == "dense/kernel/m");
  CHECK(adam.slot(w, "vhat").name() == "dense/kernel/vhat");
  CHECK(!adam.slot(w, "momentum").defined());
  std::vector<std::string> names;
  for (const Variable& v : adam.variables()) names.push_back(v.name());
  CHECK(names == std::vector<std::string>{"Adam/iterations", "dense/kernel/m", "dense/kernel/v",
                                          "dense/kernel/vhat"});
  ExpectTensor(adam.slot(w, "m").value(), kFloat32, {2}, {0.05, -0.05});
  CHECK(adam.iterations().value().item<int64_t>() == 1);
}

TEST_CASE("minimize trains a model; the learning rate follows the schedule") {
  nn::Dense dense(1);
  const Tensor x = constant({{1.f, 2.f}, {3.f, 4.f}}), y = constant({{1.f}, {2.f}});
  optimizers::SGD sgd(optimizers::ExponentialDecay(0.05, 1, 0.5));
  const auto loss = [&] { return reduce_mean(square(dense(x) - y)); };
  const float first = loss().item<float>();
  for (int i = 0; i < 20; ++i) sgd.minimize(loss, dense.trainable_variables());
  CHECK(loss().item<float>() < first);
  ExpectTensor(sgd.learning_rate(), kFloat32, {}, {0.05 * std::pow(0.5, 20)});
}

TEST_CASE("clip_by_global_norm scales every tensor by one factor") {
  const std::vector<Tensor> clipped =
      optimizers::clip_by_global_norm({constant({3.f, 0.f}), constant({4.f}), Tensor()}, 2.5);
  ExpectTensor(clipped[0], kFloat32, {2}, {1.5, 0});
  ExpectTensor(clipped[1], kFloat32, {1}, {2});
  CHECK(!clipped[2].defined());
  ExpectTensor(optimizers::global_norm({constant({3.f}), constant({4.f})}), kFloat32, {}, {5});
  const std::vector<Tensor> kept = optimizers::clip_by_global_norm({constant({0.3f})}, 2.5);
  ExpectTensor(kept[0], kFloat32, {1}, {0.3});
}

TEST_CASE("Optimizer errors name the variable; an unused variable is skipped") {
  optimizers::SGD sgd(0.1);
  Variable w(constant({1.f, 2.f}), "w"), unused(constant({1.f}), "unused");
  ExpectError(
      [&] {
        sgd.apply_gradients({constant({1.f, 2.f, 3.f})}, {w});
      },
      {"optimizer 'SGD'", "gradient of variable 'w'", "(3,)", "(2,)", "optimizers_test.cc"});
  ExpectError(
      [&] {
        sgd.apply_gradients({constant({1.0, 2.0})}, {w});
      },
      {"variable 'w'", "float64", "float32"});
  ExpectError(
      [&] {
        sgd.apply_gradients({constant({1.f, 2.f})}, {w, unused});
      },
      {"1 gradients for 2 variables"});
  ExpectError([&] { sgd.apply_gradients({Tensor()}, {unused}); }, {"no variable has a gradient"});
  sgd.apply_gradients({constant({1.f, 1.f}), Tensor()}, {w, unused});
  ExpectTensor(w.value(), kFloat32, {2}, {0.9, 1.9});
  ExpectTensor(unused.value(), kFloat32, {1}, {1});
  ExpectError([] { optimizers::SGD(0.1, 0, false, {.clipnorm = 1, .global_clipnorm = 1}); },
              {"clipnorm or global_clipnorm, not both"});
}

}  // namespace
}  // namespace duet
