// The fused optimizer updates' device code (training_launchers.h). Each thread updates its
// elements of every variable with the CPU kernels' formulas; the scalars are loaded from device
// memory once per thread, and Adam's step size alpha is computed there rather than on the host.
#include <algorithm>

#include "kernels/cuda/state/training_launchers.h"

namespace duet::cuda {
namespace {

constexpr int kThreads = 256;
// Enough blocks to fill every SM of an H100 several times over; beyond that the grid-stride loop
// does the rest with fewer, longer-lived threads.
constexpr int64_t kMaxBlocks = 4096;

// The typed view of UpdateArgs one formula reads.
template <typename T>
struct Arrays {
  const T* in[UpdateArgs::kMaxVariables];
  T* out[UpdateArgs::kMaxVariables];
  const T* g;
  T s[UpdateArgs::kMaxScalars];  // the scalars' values, loaded by each thread
};

struct KerasMomentum {
  bool nesterov;
  template <typename T>
  __device__ void operator()(const Arrays<T>& a, int64_t i) const {
    const T lr = a.s[0], momentum = a.s[1], g = a.g[i];
    const T accum = a.in[1][i] * momentum - g * lr;
    a.out[1][i] = accum;
    a.out[0][i] = a.in[0][i] + (nesterov ? accum * momentum - g * lr : accum);
  }
};

// Adam's step size, TensorFlow's alpha = lr * sqrt(1 - beta2_power) / (1 - beta1_power).
template <typename T>
__device__ T AdamAlpha(const Arrays<T>& a) {
  return a.s[2] * sqrt(T(1) - a.s[1]) / (T(1) - a.s[0]);
}

struct Adam {
  bool nesterov;
  template <typename T>
  __device__ void operator()(const Arrays<T>& a, int64_t i) const {
    const T alpha = AdamAlpha(a), beta1 = a.s[3], beta2 = a.s[4], epsilon = a.s[5], g = a.g[i];
    const T m = a.in[1][i] + (g - a.in[1][i]) * (T(1) - beta1);
    const T v = a.in[2][i] + (g * g - a.in[2][i]) * (T(1) - beta2);
    const T step = nesterov ? (g * (T(1) - beta1) + beta1 * m) * alpha : m * alpha;
    a.out[1][i] = m;
    a.out[2][i] = v;
    a.out[0][i] = a.in[0][i] - step / (sqrt(v) + epsilon);
  }
};

struct AdamWithAmsgrad {
  template <typename T>
  __device__ void operator()(const Arrays<T>& a, int64_t i) const {
    const T alpha = AdamAlpha(a), beta1 = a.s[3], beta2 = a.s[4], epsilon = a.s[5], g = a.g[i];
    const T m = a.in[1][i] + (g - a.in[1][i]) * (T(1) - beta1);
    const T v = a.in[2][i] + (g * g - a.in[2][i]) * (T(1) - beta2);
    // std::max's order, as the CPU loop: CUDA's max is fmax, which drops a NaN vhat.
    const T old_vhat = a.in[3][i];
    const T vhat = old_vhat < v ? v : old_vhat;
    a.out[1][i] = m;
    a.out[2][i] = v;
    a.out[3][i] = vhat;
    a.out[0][i] = a.in[0][i] - (m * alpha) / (sqrt(vhat) + epsilon);
  }
};

struct RMSProp {
  template <typename T>
  __device__ void operator()(const Arrays<T>& a, int64_t i) const {
    const T lr = a.s[0], rho = a.s[1], momentum = a.s[2], epsilon = a.s[3], g = a.g[i];
    const T ms = a.in[1][i] + (g * g - a.in[1][i]) * (T(1) - rho);
    const T mom = a.in[2][i] * momentum + (g * lr) / sqrt(ms + epsilon);
    a.out[1][i] = ms;
    a.out[2][i] = mom;
    a.out[0][i] = a.in[0][i] - mom;
  }
};

struct CenteredRMSProp {
  template <typename T>
  __device__ void operator()(const Arrays<T>& a, int64_t i) const {
    const T lr = a.s[0], rho = a.s[1], momentum = a.s[2], epsilon = a.s[3], g = a.g[i];
    const T mg = a.in[1][i] + (g - a.in[1][i]) * (T(1) - rho);
    const T ms = a.in[2][i] + (g * g - a.in[2][i]) * (T(1) - rho);
    const T mom = a.in[3][i] * momentum + (g * lr) / sqrt((ms - mg * mg) + epsilon);
    a.out[1][i] = mg;
    a.out[2][i] = ms;
    a.out[3][i] = mom;
    a.out[0][i] = a.in[0][i] - mom;
  }
};

struct AdagradV2 {
  bool update_slots;
  template <typename T>
  __device__ void operator()(const Arrays<T>& a, int64_t i) const {
    const T lr = a.s[0], epsilon = a.s[1], g = a.g[i];
    const T accum = update_slots ? a.in[1][i] + g * g : a.in[1][i];
    a.out[1][i] = accum;
    a.out[0][i] = a.in[0][i] - g * lr / (sqrt(accum) + epsilon);
  }
};

template <typename T, typename Formula>
__global__ void UpdateKernel(UpdateArgs args, int num_scalars, Formula formula) {
  Arrays<T> a;
  for (int k = 0; k < UpdateArgs::kMaxVariables; ++k) {
    a.in[k] = static_cast<const T*>(args.in[k]);
    a.out[k] = static_cast<T*>(args.out[k]);
  }
  a.g = static_cast<const T*>(args.grad);
  for (int k = 0; k < num_scalars; ++k) a.s[k] = *static_cast<const T*>(args.scalar[k]);
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < args.n;
       i += stride) {
    formula(a, i);
  }
}

template <typename T, typename Formula>
cudaError_t LaunchTyped(const UpdateArgs& args, int num_scalars, Formula formula,
                        cudaStream_t stream) {
  if (args.n == 0) return cudaSuccess;
  const int64_t blocks = std::min<int64_t>((args.n + kThreads - 1) / kThreads, kMaxBlocks);
  UpdateKernel<T>
      <<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(args, num_scalars, formula);
  return cudaGetLastError();
}

template <typename Formula>
cudaError_t Launch(UpdateType type, const UpdateArgs& args, int num_scalars, Formula formula,
                   cudaStream_t stream) {
  return type == UpdateType::kFloat64 ? LaunchTyped<double>(args, num_scalars, formula, stream)
                                      : LaunchTyped<float>(args, num_scalars, formula, stream);
}

}  // namespace

cudaError_t LaunchKerasMomentum(UpdateType type, const UpdateArgs& args, bool use_nesterov,
                                cudaStream_t stream) {
  return Launch(type, args, 2, KerasMomentum{use_nesterov}, stream);
}

cudaError_t LaunchAdam(UpdateType type, const UpdateArgs& args, bool use_nesterov,
                       cudaStream_t stream) {
  return Launch(type, args, 6, Adam{use_nesterov}, stream);
}

cudaError_t LaunchAdamWithAmsgrad(UpdateType type, const UpdateArgs& args, cudaStream_t stream) {
  return Launch(type, args, 6, AdamWithAmsgrad{}, stream);
}

cudaError_t LaunchRMSProp(UpdateType type, const UpdateArgs& args, cudaStream_t stream) {
  return Launch(type, args, 4, RMSProp{}, stream);
}

cudaError_t LaunchCenteredRMSProp(UpdateType type, const UpdateArgs& args, cudaStream_t stream) {
  return Launch(type, args, 4, CenteredRMSProp{}, stream);
}

cudaError_t LaunchAdagradV2(UpdateType type, const UpdateArgs& args, bool update_slots,
                            cudaStream_t stream) {
  return Launch(type, args, 2, AdagradV2{update_slots}, stream);
}

}  // namespace duet::cuda
