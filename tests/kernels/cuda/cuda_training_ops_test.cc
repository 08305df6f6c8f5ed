// The fused optimizer updates (ops/state/training_ops.h) on CUDA against the CPU kernels: two
// steps of each op and option on variables made from the inputs' devices, in place and with a
// read held (copy on write), sized for many blocks and a ragged grid-stride tail.
//
// Tolerances: float32 1e-5 (the two devices fuse multiply-adds differently and the CUDA kernels
// compute Adam's step size per thread); float64 1e-12.
#include <catch2/catch.hpp>
#include <functional>

#include "duet.h"
#include "tests/cuda_test_util.h"

namespace duet {
namespace {

using Update = std::function<void(const std::vector<Tensor>& handles, const Tensor& grad)>;

// inputs: the variable's and each slot's initial value, then the gradient. Runs `update` twice
// and returns every variable's final value; with `hold_reads`, keeps reads of the initial values
// so that every update copies on write, and returns those too (unchanged).
testing::TensorFn Steps(int num_variables, Update update, bool hold_reads) {
  return [=](const std::vector<Tensor>& in) {
    std::vector<Variable> variables;
    std::vector<Tensor> handles, held;
    for (int k = 0; k < num_variables; ++k) {
      variables.emplace_back(in[k], "v" + std::to_string(k));
      handles.push_back(variables.back().handle());
      if (hold_reads) held.push_back(variables.back().value());
    }
    for (int step = 0; step < 2; ++step) update(handles, in[num_variables]);
    std::vector<Tensor> out = held;
    for (const Variable& v : variables) out.push_back(v.value());
    return out;
  };
}

struct UpdateCase {
  std::string name;
  int num_variables;
  Update update;
};

std::vector<UpdateCase> Cases(DType dtype) {
  const auto s = [dtype](double x) { return cast(constant(x), dtype); };
  const Tensor lr = s(0.01), momentum = s(0.9), b1 = s(0.9), b2 = s(0.999), b1p = s(0.81),
               b2p = s(0.998), eps = s(1e-7), rho = s(0.9), half = s(0.5);
  std::vector<UpdateCase> cases;
  for (bool flag : {false, true}) {
    cases.push_back({"KerasMomentum", 2, [=](const std::vector<Tensor>& h, const Tensor& g) {
                       resource_apply_keras_momentum(h[0], h[1], lr, g, momentum, flag);
                     }});
    cases.push_back({"Adam", 3, [=](const std::vector<Tensor>& h, const Tensor& g) {
                       resource_apply_adam(h[0], h[1], h[2], b1p, b2p, lr, b1, b2, eps, g, flag);
                     }});
    cases.push_back({"AdagradV2", 2, [=](const std::vector<Tensor>& h, const Tensor& g) {
                       resource_apply_adagrad_v2(h[0], h[1], lr, eps, g, flag);
                     }});
  }
  cases.push_back({"AdamWithAmsgrad", 4, [=](const std::vector<Tensor>& h, const Tensor& g) {
                     resource_apply_adam_with_amsgrad(h[0], h[1], h[2], h[3], b1p, b2p, lr, b1, b2,
                                                      eps, g);
                   }});
  cases.push_back({"RMSProp", 3, [=](const std::vector<Tensor>& h, const Tensor& g) {
                     resource_apply_rms_prop(h[0], h[1], h[2], lr, rho, half, eps, g);
                   }});
  cases.push_back({"CenteredRMSProp", 4, [=](const std::vector<Tensor>& h, const Tensor& g) {
                     resource_apply_centered_rms_prop(h[0], h[1], h[2], h[3], lr, rho, half, eps,
                                                      g);
                   }});
  return cases;
}

TEST_CASE("CUDA fused optimizer updates match the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  const Shape shape({3, 100'003});  // many blocks, a ragged tail
  for (DType dtype : {kFloat32, kFloat64}) {
    for (const UpdateCase& c : Cases(dtype)) {
      for (bool hold_reads : {false, true}) {
        INFO(c.name << " " << DTypeName(dtype) << " hold_reads " << hold_reads);
        // Slots stay positive (v, ms and accum are averages of squares; centered RMSProp needs
        // ms > mg^2), the variable and gradient take both signs.
        std::vector<Tensor> inputs = {random_uniform(shape, 1, dtype, -1, 1)};
        for (int k = 1; k < c.num_variables; ++k) {
          const bool mean_grad = c.name == "CenteredRMSProp" && k == 1;  // mg
          inputs.push_back(random_uniform(shape, 1 + k, dtype, mean_grad ? -0.5 : 0.5, 1));
        }
        inputs.push_back(random_uniform(shape, 9, dtype, -0.5, 0.5));
        testing::ExpectDeviceMatchesCpu(Steps(c.num_variables, c.update, hold_reads), inputs,
                                        dtype == kFloat64 ? 1e-12 : 1e-5);
      }
    }
  }
}

}  // namespace
}  // namespace duet
