#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/cuda/nn/activation_launchers.h"
#include "kernels/cuda/nn/nn_device_math.cuh"

namespace duet::cuda {
namespace {

using nn_detail::BlocksFor;
using nn_detail::Compute;
using nn_detail::kThreads;
using nn_detail::Load;
using nn_detail::Store;

template <NnActivation kAct, typename C>
__device__ __forceinline__ C Activate(C x, float alpha) {
  if constexpr (kAct == NnActivation::kRelu) {
    return x < C(0) ? C(0) : x;
  } else if constexpr (kAct == NnActivation::kRelu6) {
    return x < C(0) ? C(0) : (x > C(6) ? C(6) : x);
  } else if constexpr (kAct == NnActivation::kElu) {
    return x > C(0) ? x : expm1(x);
  } else if constexpr (kAct == NnActivation::kTanh) {
    return tanh(x);
  } else if constexpr (kAct == NnActivation::kSigmoid) {
    // From e = exp(-|x|) so that neither side overflows (kernels/cpu/math/functors.h).
    const C e = exp(-fabs(x));
    const C r = C(1) / (C(1) + e);
    return x >= C(0) ? r : e * r;
  } else if constexpr (kAct == NnActivation::kLeakyRelu) {
    return x > C(0) ? x : x * static_cast<C>(alpha);
  } else if constexpr (kAct == NnActivation::kSoftplus) {
    return (x > C(0) ? x : C(0)) + log1p(exp(-fabs(x)));
  } else {
    return x;
  }
}

template <NnActivation kAct, typename T>
__global__ void ActivationKernel(const T* x, T* y, int64_t n, float alpha) {
  DUET_GRID_STRIDE_LOOP(i, n) { y[i] = Store<T>(Activate<kAct>(Load(x[i]), alpha)); }
}

template <NnActivation kAct, typename T>
__global__ void BiasActivationKernel(const T* x, const T* bias, const T* residual, T* y, int64_t n,
                                     int64_t channels, float alpha) {
  DUET_GRID_STRIDE_LOOP(i, n) {
    // Rounded to T once, at the end, like the CPU's fused epilogue.
    auto sum = Load(x[i]) + Load(bias[i % channels]);
    if (residual != nullptr) sum += Load(residual[i]);
    y[i] = Store<T>(Activate<kAct>(sum, alpha));
  }
}

template <typename T>
__global__ void ReluGradKernel(const T* g, const T* f, T* out, int64_t n) {
  DUET_GRID_STRIDE_LOOP(i, n) {
    out[i] = Load(f[i]) > Compute<T>(0) ? g[i] : Store<T>(Compute<T>(0));
  }
}

template <typename T>
__global__ void NegatedScalarAndOneKernel(const T* alpha, T* out) {
  out[0] = -alpha[0];
  out[1] = T(1);
}

// Calls fn(T{}) with T the CUDA type of `type`.
template <typename Fn>
cudaError_t WithType(NnType type, Fn&& fn) {
  switch (type) {
    case NnType::kFloat32:
      return fn(float{});
    case NnType::kFloat64:
      return fn(double{});
    case NnType::kFloat16:
      return fn(__half{});
    case NnType::kBFloat16:
      return fn(__nv_bfloat16{});
    case NnType::kInt32:
      return fn(int32_t{});
    case NnType::kInt64:
      return fn(int64_t{});
  }
  return cudaErrorInvalidValue;
}

template <typename T>
constexpr bool kIsInteger = std::is_integral_v<T>;

// Calls fn(std::integral_constant<NnActivation, act>{}) for the activations T supports.
template <typename T, typename Fn>
cudaError_t WithActivation(NnActivation act, Fn&& fn) {
  using A = NnActivation;
  switch (act) {
    case A::kNone:
      return fn(std::integral_constant<A, A::kNone>{});
    case A::kRelu:
      return fn(std::integral_constant<A, A::kRelu>{});
    case A::kRelu6:
      return fn(std::integral_constant<A, A::kRelu6>{});
    default:
      break;
  }
  if constexpr (!kIsInteger<T>) {
    switch (act) {
      case A::kElu:
        return fn(std::integral_constant<A, A::kElu>{});
      case A::kTanh:
        return fn(std::integral_constant<A, A::kTanh>{});
      case A::kSigmoid:
        return fn(std::integral_constant<A, A::kSigmoid>{});
      case A::kLeakyRelu:
        return fn(std::integral_constant<A, A::kLeakyRelu>{});
      case A::kSoftplus:
        return fn(std::integral_constant<A, A::kSoftplus>{});
      default:
        break;
    }
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t LaunchActivation(NnActivation act, NnType type, const void* x, void* y, int64_t n,
                             float leakyrelu_alpha, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  return WithType(type, [&](auto zero) {
    using T = decltype(zero);
    return WithActivation<T>(act, [&](auto a) {
      ActivationKernel<decltype(a)::value, T><<<BlocksFor(n), kThreads, 0, stream>>>(
          static_cast<const T*>(x), static_cast<T*>(y), n, leakyrelu_alpha);
      return cudaGetLastError();
    });
  });
}

cudaError_t LaunchReluGrad(NnType type, const void* gradients, const void* features, void* out,
                           int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  return WithType(type, [&](auto zero) {
    using T = decltype(zero);
    ReluGradKernel<T><<<BlocksFor(n), kThreads, 0, stream>>>(
        static_cast<const T*>(gradients), static_cast<const T*>(features), static_cast<T*>(out), n);
    return cudaGetLastError();
  });
}

cudaError_t LaunchBiasActivation(NnActivation act, NnType type, const void* x, const void* bias,
                                 const void* residual, void* y, int64_t n, int64_t channels,
                                 float leakyrelu_alpha, cudaStream_t stream) {
  if (n <= 0 || channels <= 0) return cudaSuccess;
  return WithType(type, [&](auto zero) {
    using T = decltype(zero);
    return WithActivation<T>(act, [&](auto a) {
      BiasActivationKernel<decltype(a)::value, T><<<BlocksFor(n), kThreads, 0, stream>>>(
          static_cast<const T*>(x), static_cast<const T*>(bias), static_cast<const T*>(residual),
          static_cast<T*>(y), n, channels, leakyrelu_alpha);
      return cudaGetLastError();
    });
  });
}

cudaError_t LaunchNegatedScalarAndOne(NnType type, const void* alpha, void* out,
                                      cudaStream_t stream) {
  if (type == NnType::kFloat32) {
    NegatedScalarAndOneKernel<float>
        <<<1, 1, 0, stream>>>(static_cast<const float*>(alpha), static_cast<float*>(out));
  } else if (type == NnType::kFloat64) {
    NegatedScalarAndOneKernel<double>
        <<<1, 1, 0, stream>>>(static_cast<const double*>(alpha), static_cast<double*>(out));
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace duet::cuda
