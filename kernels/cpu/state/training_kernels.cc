// The fused optimizer updates on the CPU (ops/state/training_ops.h): ResourceApplyKerasMomentum,
// ResourceApplyAdam, ResourceApplyAdamWithAmsgrad, ResourceApplyRMSProp,
// ResourceApplyCenteredRMSProp and ResourceApplyAdagradV2, with TensorFlow's CPU formulas term
// for term (kernels/training_ops.cc), so results agree with TensorFlow to rounding.
//
// Each update is one pass over the variable and its slots, split over the intra-op pool. The
// loops only ever run in place (every pointer __restrict, so they vectorize): where Note
// [Variables copy on write] gives a variable a fresh tensor, each block of its old value is
// copied into the fresh one just before the block is updated, while it is still in cache.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "kernels/common/variable_update.h"
#include "kernels/kernel_registry.h"
#include "ops/state/state_attrs.h"

namespace duet {
namespace {

// Elements per thread-pool task: each element moves 16-28 bytes and takes a square root and a
// division, so smaller pieces than the plain SGD update's are still worth a hand-off.
constexpr int64_t kGrain = 1 << 14;
// Elements copied and then updated at a time on the copy-on-write path: a few KiB per variable,
// so the copied block is still in L1 when the update reads it.
constexpr int64_t kCopyBlock = 1024;

// The update loops, one per formula, in place over arrays of n elements. GCC 12 at -O2
// vectorizes loops of unknown trip count only under its dynamic cost model, and std::sqrt only
// without errno, which //kernels:cpu_state's -fno-math-errno switches off (no input here is a
// domain error that anything could observe).
#pragma GCC push_options
#pragma GCC optimize("vect-cost-model=dynamic")

template <typename T>
void KerasMomentumLoop(T* __restrict var, T* __restrict accum, const T* __restrict g, int64_t n,
                       T lr, T momentum) {
  for (int64_t i = 0; i < n; ++i) {
    accum[i] = accum[i] * momentum - g[i] * lr;
    var[i] += accum[i];
  }
}

template <typename T>
void KerasNesterovLoop(T* __restrict var, T* __restrict accum, const T* __restrict g, int64_t n,
                       T lr, T momentum) {
  for (int64_t i = 0; i < n; ++i) {
    accum[i] = accum[i] * momentum - g[i] * lr;
    var[i] += accum[i] * momentum - g[i] * lr;
  }
}

// Adam's hyper-parameters, with TensorFlow's step size alpha = lr * sqrt(1 - beta2^t) /
// (1 - beta1^t) folded in once per call.
template <typename T>
struct AdamParams {
  T alpha, beta1, beta2, epsilon;
};

template <typename T>
void AdamLoop(T* __restrict var, T* __restrict m, T* __restrict v, const T* __restrict g, int64_t n,
              AdamParams<T> p) {
  for (int64_t i = 0; i < n; ++i) {
    m[i] += (g[i] - m[i]) * (T(1) - p.beta1);
    v[i] += (g[i] * g[i] - v[i]) * (T(1) - p.beta2);
    var[i] -= (m[i] * p.alpha) / (std::sqrt(v[i]) + p.epsilon);
  }
}

template <typename T>
void AdamNesterovLoop(T* __restrict var, T* __restrict m, T* __restrict v, const T* __restrict g,
                      int64_t n, AdamParams<T> p) {
  for (int64_t i = 0; i < n; ++i) {
    m[i] += (g[i] - m[i]) * (T(1) - p.beta1);
    v[i] += (g[i] * g[i] - v[i]) * (T(1) - p.beta2);
    var[i] -=
        ((g[i] * (T(1) - p.beta1) + p.beta1 * m[i]) * p.alpha) / (std::sqrt(v[i]) + p.epsilon);
  }
}

template <typename T>
void AmsgradLoop(T* __restrict var, T* __restrict m, T* __restrict v, T* __restrict vhat,
                 const T* __restrict g, int64_t n, AdamParams<T> p) {
  for (int64_t i = 0; i < n; ++i) {
    m[i] += (g[i] - m[i]) * (T(1) - p.beta1);
    v[i] += (g[i] * g[i] - v[i]) * (T(1) - p.beta2);
    vhat[i] = std::max(vhat[i], v[i]);
    var[i] -= (m[i] * p.alpha) / (std::sqrt(vhat[i]) + p.epsilon);
  }
}

template <typename T>
struct RMSPropParams {
  T lr, rho, momentum, epsilon;
};

template <typename T>
void RMSPropLoop(T* __restrict var, T* __restrict ms, T* __restrict mom, const T* __restrict g,
                 int64_t n, RMSPropParams<T> p) {
  for (int64_t i = 0; i < n; ++i) {
    ms[i] += (g[i] * g[i] - ms[i]) * (T(1) - p.rho);
    mom[i] = mom[i] * p.momentum + (g[i] * p.lr) / std::sqrt(ms[i] + p.epsilon);
    var[i] -= mom[i];
  }
}

template <typename T>
void CenteredRMSPropLoop(T* __restrict var, T* __restrict mg, T* __restrict ms, T* __restrict mom,
                         const T* __restrict g, int64_t n, RMSPropParams<T> p) {
  for (int64_t i = 0; i < n; ++i) {
    ms[i] += (g[i] * g[i] - ms[i]) * (T(1) - p.rho);
    mg[i] += (g[i] - mg[i]) * (T(1) - p.rho);
    const T denom = (ms[i] - mg[i] * mg[i]) + p.epsilon;
    mom[i] = mom[i] * p.momentum + (g[i] * p.lr) / std::sqrt(denom);
    var[i] -= mom[i];
  }
}

template <typename T>
void AdagradV2Loop(T* __restrict var, T* __restrict accum, const T* __restrict g, int64_t n, T lr,
                   T epsilon) {
  for (int64_t i = 0; i < n; ++i) {
    accum[i] += g[i] * g[i];
    var[i] -= g[i] * lr / (std::sqrt(accum[i]) + epsilon);
  }
}

// update_slots = false: accum is read, not written.
template <typename T>
void AdagradV2FixedLoop(T* __restrict var, const T* __restrict accum, const T* __restrict g,
                        int64_t n, T lr, T epsilon) {
  for (int64_t i = 0; i < n; ++i) var[i] -= g[i] * lr / (std::sqrt(accum[i]) + epsilon);
}

#pragma GCC pop_options

// The value of hyper-parameter input i, which must be a scalar.
template <typename T>
absl::StatusOr<T> ScalarInput(const KernelContext& ctx, int i) {
  DUET_RETURN_IF_ERROR(CheckScalarInput(ctx, i));
  return *ctx.input(i).data<T>();
}

// Pointers to the variables' new values, offset by `begin`.
template <typename T>
using Targets = std::array<T*, LockedUpdate::kMaxVariables>;

// Runs loop(Targets x, const T* g, int64_t n) over the locked variables and `grad` in pieces
// of the thread pool, in place over each variable's new value (see the file comment).
template <typename T, typename Loop>
void RunUpdate(const KernelContext& ctx, const LockedUpdate& update, const Tensor& grad,
               Loop loop) {
  const int count = update.size();
  Targets<T> out{};
  std::array<const T*, LockedUpdate::kMaxVariables> in{};
  bool copies = false;
  for (int k = 0; k < count; ++k) {
    out[k] = update.new_value(k).template mutable_data<T>();
    in[k] = update.old_value(k).template data<T>();
    copies = copies || in[k] != out[k];
  }
  const T* g = grad.data<T>();
  ctx.pool().ParallelFor(grad.num_elements(), kGrain, [&](int64_t begin, int64_t end) {
    const int64_t block = copies ? kCopyBlock : end - begin;
    for (int64_t b = begin; b < end; b += block) {
      const int64_t n = std::min(block, end - b);
      Targets<T> x{};
      for (int k = 0; k < count; ++k) {
        if (in[k] != out[k]) std::memcpy(out[k] + b, in[k] + b, n * sizeof(T));
        x[k] = out[k] + b;
      }
      loop(x, g + b, n);
    }
  });
}

// Inputs: var, accum, lr, grad, momentum.
template <typename T>
absl::Status KerasMomentumKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const T lr, ScalarInput<T>(ctx, 2));
  DUET_ASSIGN_OR_RETURN(const T momentum, ScalarInput<T>(ctx, 4));
  const bool nesterov = ctx.attr(ApplyNesterovAttrs::kUseNesterov);
  LockedUpdate update;
  DUET_RETURN_IF_ERROR(update.Begin(ctx, /*num_variables=*/2, /*grad_index=*/3));
  RunUpdate<T>(ctx, update, ctx.input(3), [&](Targets<T> x, const T* g, int64_t n) {
    if (nesterov) {
      KerasNesterovLoop(x[0], x[1], g, n, lr, momentum);
    } else {
      KerasMomentumLoop(x[0], x[1], g, n, lr, momentum);
    }
  });
  update.Commit();
  return absl::OkStatus();
}

// Inputs from `first`: beta1_power, beta2_power, lr, beta1, beta2, epsilon.
template <typename T>
absl::StatusOr<AdamParams<T>> ReadAdamParams(const KernelContext& ctx, int first) {
  T value[6];
  for (int k = 0; k < 6; ++k) {
    DUET_ASSIGN_OR_RETURN(value[k], ScalarInput<T>(ctx, first + k));
  }
  const T alpha = value[2] * std::sqrt(T(1) - value[1]) / (T(1) - value[0]);
  return AdamParams<T>{alpha, value[3], value[4], value[5]};
}

// Inputs: var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad.
template <typename T>
absl::Status AdamKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const AdamParams<T> p, ReadAdamParams<T>(ctx, 3));
  const bool nesterov = ctx.attr(ApplyNesterovAttrs::kUseNesterov);
  LockedUpdate update;
  DUET_RETURN_IF_ERROR(update.Begin(ctx, /*num_variables=*/3, /*grad_index=*/9));
  RunUpdate<T>(ctx, update, ctx.input(9), [&](Targets<T> x, const T* g, int64_t n) {
    if (nesterov) {
      AdamNesterovLoop(x[0], x[1], x[2], g, n, p);
    } else {
      AdamLoop(x[0], x[1], x[2], g, n, p);
    }
  });
  update.Commit();
  return absl::OkStatus();
}

// Inputs: var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad.
template <typename T>
absl::Status AdamWithAmsgradKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const AdamParams<T> p, ReadAdamParams<T>(ctx, 4));
  LockedUpdate update;
  DUET_RETURN_IF_ERROR(update.Begin(ctx, /*num_variables=*/4, /*grad_index=*/10));
  RunUpdate<T>(ctx, update, ctx.input(10), [&](Targets<T> x, const T* g, int64_t n) {
    AmsgradLoop(x[0], x[1], x[2], x[3], g, n, p);
  });
  update.Commit();
  return absl::OkStatus();
}

// Inputs from `first`: lr, rho, momentum, epsilon.
template <typename T>
absl::StatusOr<RMSPropParams<T>> ReadRMSPropParams(const KernelContext& ctx, int first) {
  T value[4];
  for (int k = 0; k < 4; ++k) {
    DUET_ASSIGN_OR_RETURN(value[k], ScalarInput<T>(ctx, first + k));
  }
  return RMSPropParams<T>{value[0], value[1], value[2], value[3]};
}

// Inputs: var, ms, mom, lr, rho, momentum, epsilon, grad.
template <typename T>
absl::Status RMSPropKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const RMSPropParams<T> p, ReadRMSPropParams<T>(ctx, 3));
  LockedUpdate update;
  DUET_RETURN_IF_ERROR(update.Begin(ctx, /*num_variables=*/3, /*grad_index=*/7));
  RunUpdate<T>(ctx, update, ctx.input(7), [&](Targets<T> x, const T* g, int64_t n) {
    RMSPropLoop(x[0], x[1], x[2], g, n, p);
  });
  update.Commit();
  return absl::OkStatus();
}

// Inputs: var, mg, ms, mom, lr, rho, momentum, epsilon, grad.
template <typename T>
absl::Status CenteredRMSPropKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const RMSPropParams<T> p, ReadRMSPropParams<T>(ctx, 4));
  LockedUpdate update;
  DUET_RETURN_IF_ERROR(update.Begin(ctx, /*num_variables=*/4, /*grad_index=*/8));
  RunUpdate<T>(ctx, update, ctx.input(8), [&](Targets<T> x, const T* g, int64_t n) {
    CenteredRMSPropLoop(x[0], x[1], x[2], x[3], g, n, p);
  });
  update.Commit();
  return absl::OkStatus();
}

// Inputs: var, accum, lr, epsilon, grad.
template <typename T>
absl::Status AdagradV2Kernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const T lr, ScalarInput<T>(ctx, 2));
  DUET_ASSIGN_OR_RETURN(const T epsilon, ScalarInput<T>(ctx, 3));
  const bool update_slots = ctx.attr(ApplyAdagradV2Attrs::kUpdateSlots);
  LockedUpdate update;
  DUET_RETURN_IF_ERROR(update.Begin(ctx, /*num_variables=*/2, /*grad_index=*/4));
  RunUpdate<T>(ctx, update, ctx.input(4), [&](Targets<T> x, const T* g, int64_t n) {
    if (update_slots) {
      AdagradV2Loop(x[0], x[1], g, n, lr, epsilon);
    } else {
      AdagradV2FixedLoop(x[0], static_cast<const T*>(x[1]), g, n, lr, epsilon);
    }
  });
  update.Commit();
  return absl::OkStatus();
}

template <typename T>
void RegisterFor(DType dtype) {
  const auto reg = [dtype](const char* op, KernelFn fn) {
    RegisterKernel(op, DeviceType::kCpu, {dtype}, KernelDef{fn});
  };
  reg("ResourceApplyKerasMomentum", KerasMomentumKernel<T>);
  reg("ResourceApplyAdam", AdamKernel<T>);
  reg("ResourceApplyAdamWithAmsgrad", AdamWithAmsgradKernel<T>);
  reg("ResourceApplyRMSProp", RMSPropKernel<T>);
  reg("ResourceApplyCenteredRMSProp", CenteredRMSPropKernel<T>);
  reg("ResourceApplyAdagradV2", AdagradV2Kernel<T>);
}

const bool kRegistered = [] {
  RegisterFor<float>(kFloat32);
  RegisterFor<double>(kFloat64);
  return true;
}();

}  // namespace
}  // namespace duet
