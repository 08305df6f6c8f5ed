// The fused optimizer updates (ops/state/training_ops.h): three steps of each op and option in
// float32 and float64 against TensorFlow's own kernels (testdata/gen_training_ops_expected.py,
// whose inputs Initial and Grad rebuild), copy on write, the parallel path against a host loop,
// variables shared by concurrent updates, and the errors.
//
// Tolerances: float32 1e-6 and float64 1e-12 (absolute + relative): TensorFlow's kernels and these
// round differently only where a compiler fuses a multiply-add.
#include "ops/state/training_ops.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <map>
#include <thread>

#include "absl/strings/str_cat.h"
#include "eager/variable.h"
#include "ops/state/variable_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

constexpr int kSteps = 3;
const Shape kShape({2, 3});

// The generator's inputs: element i of a variable or of step k's gradient.
std::vector<double> Initial(const std::string& name) {
  std::vector<double> v;
  for (int i = 0; i < 6; ++i) {
    if (name == "var") {
      v.push_back(0.25 * (i - 2) + 0.125);
    } else if (name == "accum" || name == "v" || name == "vhat" || name == "ms") {
      v.push_back(0.1 * (i + 1));
    } else {
      v.push_back(0.05 * (i - 2));
    }
  }
  return v;
}

std::vector<double> Grad(int k) {
  std::vector<double> g;
  for (int i = 0; i < 6; ++i) g.push_back(((7 * i + 3 * k) % 11 - 5) / 4.0);
  return g;
}

Tensor Scalar(DType dtype, double value) { return testing::MakeTensor(dtype, {}, {value}); }

using Variables = std::map<std::string, Variable>;
// One step of an update: the variables by name, the step's gradient, the step (0-based).
using Step = std::function<void(const Variables&, const Tensor& grad, int k)>;

// Runs `step` kSteps times from the generator's initial values and compares every variable with
// TensorFlow's line "<key> <f32|f64> <name>".
void ExpectTensorFlowValues(const std::string& key, const std::vector<std::string>& names,
                            DType dtype, const Step& step) {
  INFO(key << " " << DTypeName(dtype));
  Variables vars;
  for (const std::string& name : names) {
    vars.emplace(name, Variable(testing::MakeTensor(dtype, kShape, Initial(name)), name));
  }
  for (int k = 0; k < kSteps; ++k) step(vars, testing::MakeTensor(dtype, kShape, Grad(k)), k);
  const std::string fixture = testing::Testdata("ops/state", "training_ops_expected.txt");
  const std::string suffix = dtype == kFloat32 ? " f32 " : " f64 ";
  for (const std::string& name : names) {
    INFO("variable " << name);
    testing::ExpectTensor(vars.at(name).value(), dtype, kShape,
                          testing::FixtureValues(fixture, key + suffix + name),
                          dtype == kFloat32 ? 1e-6 : 1e-12);
  }
}

const DType kDTypes[] = {kFloat32, kFloat64};

TEST_CASE("ResourceApplyKerasMomentum matches TensorFlow") {
  for (DType dtype : kDTypes) {
    for (bool nesterov : {false, true}) {
      ExpectTensorFlowValues(absl::StrCat("KerasMomentum nesterov=", nesterov), {"var", "accum"},
                             dtype, [&](const Variables& v, const Tensor& grad, int) {
                               resource_apply_keras_momentum(
                                   v.at("var").handle(), v.at("accum").handle(), Scalar(dtype, 0.1),
                                   grad, Scalar(dtype, 0.9), nesterov);
                             });
    }
  }
}

// Adam's hyper-parameters at step k, as the generator sets them.
struct AdamInputs {
  Tensor beta1_power, beta2_power, lr, beta1, beta2, epsilon;
  AdamInputs(DType dtype, int k)
      : beta1_power(Scalar(dtype, std::pow(0.9, k + 1))),
        beta2_power(Scalar(dtype, std::pow(0.999, k + 1))),
        lr(Scalar(dtype, 0.01)),
        beta1(Scalar(dtype, 0.9)),
        beta2(Scalar(dtype, 0.999)),
        epsilon(Scalar(dtype, 1e-7)) {}
};

TEST_CASE("ResourceApplyAdam matches TensorFlow") {
  for (DType dtype : kDTypes) {
    for (bool nesterov : {false, true}) {
      ExpectTensorFlowValues(absl::StrCat("Adam nesterov=", nesterov), {"var", "m", "v"}, dtype,
                             [&](const Variables& v, const Tensor& grad, int k) {
                               const AdamInputs a(dtype, k);
                               resource_apply_adam(v.at("var").handle(), v.at("m").handle(),
                                                   v.at("v").handle(), a.beta1_power, a.beta2_power,
                                                   a.lr, a.beta1, a.beta2, a.epsilon, grad,
                                                   nesterov);
                             });
    }
  }
}

TEST_CASE("ResourceApplyAdamWithAmsgrad matches TensorFlow") {
  for (DType dtype : kDTypes) {
    ExpectTensorFlowValues("AdamWithAmsgrad", {"var", "m", "v", "vhat"}, dtype,
                           [&](const Variables& v, const Tensor& grad, int k) {
                             const AdamInputs a(dtype, k);
                             resource_apply_adam_with_amsgrad(
                                 v.at("var").handle(), v.at("m").handle(), v.at("v").handle(),
                                 v.at("vhat").handle(), a.beta1_power, a.beta2_power, a.lr, a.beta1,
                                 a.beta2, a.epsilon, grad);
                           });
  }
}

TEST_CASE("ResourceApplyRMSProp and ResourceApplyCenteredRMSProp match TensorFlow") {
  for (DType dtype : kDTypes) {
    const Tensor lr = Scalar(dtype, 0.01), rho = Scalar(dtype, 0.9), momentum = Scalar(dtype, 0.5),
                 epsilon = Scalar(dtype, 1e-7);
    ExpectTensorFlowValues(
        "RMSProp", {"var", "ms", "mom"}, dtype, [&](const Variables& v, const Tensor& grad, int) {
          resource_apply_rms_prop(v.at("var").handle(), v.at("ms").handle(), v.at("mom").handle(),
                                  lr, rho, momentum, epsilon, grad);
        });
    ExpectTensorFlowValues("CenteredRMSProp", {"var", "mg", "ms", "mom"}, dtype,
                           [&](const Variables& v, const Tensor& grad, int) {
                             resource_apply_centered_rms_prop(
                                 v.at("var").handle(), v.at("mg").handle(), v.at("ms").handle(),
                                 v.at("mom").handle(), lr, rho, momentum, epsilon, grad);
                           });
  }
}

TEST_CASE("ResourceApplyAdagradV2 matches TensorFlow, with and without updating accum") {
  for (DType dtype : kDTypes) {
    for (bool update_slots : {true, false}) {
      ExpectTensorFlowValues(
          absl::StrCat("AdagradV2 update_slots=", update_slots), {"var", "accum"}, dtype,
          [&](const Variables& v, const Tensor& grad, int) {
            resource_apply_adagrad_v2(v.at("var").handle(), v.at("accum").handle(),
                                      Scalar(dtype, 0.1), Scalar(dtype, 1e-3), grad, update_slots);
          });
    }
  }
}

// n elements of a smooth pattern, offset so that variables differ (v and ms stay positive).
std::vector<float> Pattern(int64_t n, double offset, double scale) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(offset + scale * std::sin(0.37 * i));
  return v;
}

// Adam (use_nesterov) on the host, one element at a time, in double.
void HostAdamNesterov(std::vector<double>& var, std::vector<double>& m, std::vector<double>& v,
                      const std::vector<float>& g, const AdamInputs& a) {
  const double lr = 0.01, b1 = 0.9, b2 = 0.999, eps = 1e-7;
  const double b1p = *a.beta1_power.data<float>(), b2p = *a.beta2_power.data<float>();
  const double alpha = lr * std::sqrt(1 - b2p) / (1 - b1p);
  for (size_t i = 0; i < var.size(); ++i) {
    m[i] += (g[i] - m[i]) * (1 - b1);
    v[i] += (double(g[i]) * g[i] - v[i]) * (1 - b2);
    var[i] -= (g[i] * (1 - b1) + b1 * m[i]) * alpha / (std::sqrt(v[i]) + eps);
  }
}

std::vector<double> ToDouble(const std::vector<float>& v) { return {v.begin(), v.end()}; }

TEST_CASE("ResourceApplyAdam over many elements matches a host loop, in place or copied") {
  // Several thread-pool pieces and copy blocks, with a ragged end.
  const int64_t n = 100'003;
  const std::vector<float> var0 = Pattern(n, 0.5, 1), m0 = Pattern(n, 0, 0.1),
                           v0 = Pattern(n, 0.3, 0.2), g = Pattern(n, -0.1, 2);
  for (bool hold_reads : {false, true}) {
    INFO("hold_reads " << hold_reads);
    const Variable var(from_vector(var0, {n}), "var"), m(from_vector(m0, {n}), "m"),
        v(from_vector(v0, {n}), "v");
    // Held reads force copy on write for var and v only: m is updated in place.
    Tensor var_before, v_before;
    if (hold_reads) var_before = var.value(), v_before = v.value();
    std::vector<double> host_var = ToDouble(var0), host_m = ToDouble(m0), host_v = ToDouble(v0);
    for (int k = 0; k < 2; ++k) {
      const AdamInputs a(kFloat32, k);
      resource_apply_adam(var.handle(), m.handle(), v.handle(), a.beta1_power, a.beta2_power, a.lr,
                          a.beta1, a.beta2, a.epsilon, from_vector(g, {n}), true);
      HostAdamNesterov(host_var, host_m, host_v, g, a);
    }
    testing::ExpectTensor(var.value(), kFloat32, {n}, host_var, 2e-5);
    testing::ExpectTensor(m.value(), kFloat32, {n}, host_m, 2e-5);
    testing::ExpectTensor(v.value(), kFloat32, {n}, host_v, 2e-5);
    if (hold_reads) {
      testing::ExpectTensor(var_before, kFloat32, {n}, ToDouble(var0), 0);
      testing::ExpectTensor(v_before, kFloat32, {n}, ToDouble(v0), 0);
    }
  }
}

TEST_CASE("values read before an update keep their values (copy on write)") {
  const Variable var(constant({1.f, 2.f, 3.f}), "var"), accum(constant({.5f, .5f, .5f}), "accum");
  const Tensor var_before = var.value(), accum_before = accum.value();
  resource_apply_adagrad_v2(var.handle(), accum.handle(), constant(0.5f), constant(0.f),
                            constant({1.f, 2.f, 0.f}));
  testing::ExpectTensor(var_before, kFloat32, {3}, {1, 2, 3}, 0);
  testing::ExpectTensor(accum_before, kFloat32, {3}, {.5, .5, .5}, 0);
  // accum = [1.5, 4.5, 0.5]; var -= 0.5 * g / sqrt(accum).
  testing::ExpectTensor(accum.value(), kFloat32, {3}, {1.5, 4.5, 0.5});
  testing::ExpectTensor(var.value(), kFloat32, {3},
                        {1 - 0.5 / std::sqrt(1.5), 2 - 1 / std::sqrt(4.5), 3});
}

TEST_CASE("updates that share variables in opposite roles run concurrently without deadlock") {
  const Variable a(ones({64}), "a"), b(ones({64}), "b");
  const Tensor lr = constant(1e-3f), epsilon = constant(1.f), grad = ones({64});
  auto run = [&](const Variable& var, const Variable& accum) {
    for (int i = 0; i < 300; ++i) {
      resource_apply_adagrad_v2(var.handle(), accum.handle(), lr, epsilon, grad);
    }
  };
  std::thread first(run, a, b), second(run, b, a);
  first.join();
  second.join();
  // Each variable was an accum 300 times (+1 each) and a var 300 times (-1e-3 / (sqrt(accum) +
  // 1) each, less than 0.3 in all); no update was lost to a race.
  for (const Variable& v : {a, b}) {
    for (double x : testing::ToDoubles(v.value())) {
      CHECK(x > 300.7);
      CHECK(x < 301);
    }
  }
}

TEST_CASE("update errors name the op, the variables and both shapes") {
  const Variable w(zeros({2, 3}), "w"), m(zeros({2, 3}), "w/m"), v(zeros({2, 3}), "w/v");
  const Tensor s = constant(0.5f), grad = ones({2, 3});
  testing::ExpectError(
      [&] { resource_apply_adam(w.handle(), m.handle(), v.handle(), s, s, s, s, s, s, ones({3})); },
      {"ResourceApplyAdam", "grad is float32 (3,) but variable 'w' is float32 (2, 3)",
       "training_ops_test.cc"});
  const Tensor d = constant(0.5);
  testing::ExpectError(
      [&] {
        resource_apply_adam(w.handle(), m.handle(), v.handle(), d, d, d, d, d, d,
                            ones({2, 3}, kFloat64));
      },
      {"ResourceApplyAdam", "grad is float64 (2, 3) but variable 'w' is float32 (2, 3)"});
  testing::ExpectError(
      [&] { resource_apply_keras_momentum(w.handle(), m.handle(), constant({0.1f}), grad, s); },
      {"ResourceApplyKerasMomentum", "lr must be a scalar, got shape (1,)"});
  const Variable short_slot(zeros({3}), "w/ms");
  testing::ExpectError(
      [&] {
        resource_apply_rms_prop(w.handle(), short_slot.handle(), m.handle(), s, s, s, s, grad);
      },
      {"ResourceApplyRMSProp", "slot ms (variable 'w/ms') is float32 (3,)",
       "but variable 'w' is float32 (2, 3)"});
  testing::ExpectError([&] { resource_apply_adagrad_v2(w.handle(), w.handle(), s, s, grad); },
                       {"ResourceApplyAdagradV2", "var and accum are the same variable 'w'"});
  const Tensor unassigned = var_handle_op(kFloat32, {2, 3}, "w/accum");
  testing::ExpectError(
      [&] { resource_apply_adagrad_v2(w.handle(), unassigned, s, s, grad); },
      {"ResourceApplyAdagradV2", "slot accum (variable 'w/accum') has no value yet"});
  testing::ExpectError([&] { resource_apply_adagrad_v2(grad, m.handle(), s, s, grad); },
                       {"ResourceApplyAdagradV2"});
}

}  // namespace
}  // namespace duet
