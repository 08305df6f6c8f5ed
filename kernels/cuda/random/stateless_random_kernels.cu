#include <algorithm>

#include "kernels/common/philox.h"
#include "kernels/common/random_distributions.h"
#include "kernels/cuda/random/stateless_random_kernels.h"

namespace duet::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 4096;

int Blocks(int64_t work) {
  return static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>((work + kThreads - 1) / kThreads, kMaxBlocks)));
}

// One Philox block per loop iteration: block g from counter + g, like the CPU's FillBlocks.
template <typename Dist, typename T>
__global__ void StatelessKernel(philox::Key key, philox::Counter start, T* out, int64_t n) {
  constexpr int k = Dist::kPerBlock;
  const int64_t blocks = (n + k - 1) / k;
  for (int64_t g = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; g < blocks;
       g += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    T values[k];
    Dist::Fill(philox::Philox4x32(philox::Advance(start, static_cast<uint64_t>(g)), key), values);
    const int64_t offset = g * k;
    const int count = static_cast<int>(n - offset < k ? n - offset : k);
    for (int i = 0; i < count; ++i) out[offset + i] = values[i];
  }
}

__device__ float Mul(float a, float b) { return __fmul_rn(a, b); }
__device__ double Mul(double a, double b) { return __dmul_rn(a, b); }
__device__ float Add(float a, float b) { return __fadd_rn(a, b); }
__device__ double Add(double a, double b) { return __dadd_rn(a, b); }
__device__ float Sub(float a, float b) { return __fsub_rn(a, b); }
__device__ double Sub(double a, double b) { return __dsub_rn(a, b); }

template <typename T>
__device__ T Read(ScalarArg<T> v) {
  return v.device != nullptr ? *v.device : v.host;
}

// The _rn intrinsics are never contracted into an FMA, so each step rounds like the CPU's.
// kUniform: p0 = minval, p1 = maxval; else p0 = mean, p1 = stddev.
template <typename T, bool kUniform>
__global__ void ScaleKernel(T* out, int64_t n, ScalarArg<T> p0, ScalarArg<T> p1) {
  const T a = Read(p0), b = Read(p1);
  const T scale = kUniform ? Sub(b, a) : b;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    out[i] = Add(Mul(out[i], scale), a);
  }
}

template <typename Dist, typename T>
cudaError_t Launch(const PhiloxStream& s, T* out, int64_t n, cudaStream_t cuda_stream) {
  if (n <= 0) return cudaSuccess;
  const philox::Key key = {s.key[0], s.key[1]};
  const philox::Counter counter = {s.counter[0], s.counter[1], s.counter[2], s.counter[3]};
  const int64_t blocks = (n + Dist::kPerBlock - 1) / Dist::kPerBlock;
  StatelessKernel<Dist, T><<<Blocks(blocks), kThreads, 0, cuda_stream>>>(key, counter, out, n);
  return cudaGetLastError();
}

template <typename T, bool kUniform>
cudaError_t LaunchScale(T* out, int64_t n, ScalarArg<T> p0, ScalarArg<T> p1,
                        cudaStream_t cuda_stream) {
  if (n <= 0) return cudaSuccess;
  ScaleKernel<T, kUniform><<<Blocks(n), kThreads, 0, cuda_stream>>>(out, n, p0, p1);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchStatelessUniform(const PhiloxStream& s, float* out, int64_t n,
                                   cudaStream_t cuda_stream) {
  return Launch<philox::Uniform<float>>(s, out, n, cuda_stream);
}
cudaError_t LaunchStatelessUniform(const PhiloxStream& s, double* out, int64_t n,
                                   cudaStream_t cuda_stream) {
  return Launch<philox::Uniform<double>>(s, out, n, cuda_stream);
}
cudaError_t LaunchStatelessNormal(const PhiloxStream& s, float* out, int64_t n,
                                  cudaStream_t cuda_stream) {
  return Launch<philox::Normal<float>>(s, out, n, cuda_stream);
}
cudaError_t LaunchStatelessNormal(const PhiloxStream& s, double* out, int64_t n,
                                  cudaStream_t cuda_stream) {
  return Launch<philox::Normal<double>>(s, out, n, cuda_stream);
}

cudaError_t LaunchNormalScale(float* out, int64_t n, ScalarArg<float> mean, ScalarArg<float> stddev,
                              cudaStream_t cuda_stream) {
  return LaunchScale<float, false>(out, n, mean, stddev, cuda_stream);
}
cudaError_t LaunchNormalScale(double* out, int64_t n, ScalarArg<double> mean,
                              ScalarArg<double> stddev, cudaStream_t cuda_stream) {
  return LaunchScale<double, false>(out, n, mean, stddev, cuda_stream);
}
cudaError_t LaunchUniformScale(float* out, int64_t n, ScalarArg<float> minval,
                               ScalarArg<float> maxval, cudaStream_t cuda_stream) {
  return LaunchScale<float, true>(out, n, minval, maxval, cuda_stream);
}
cudaError_t LaunchUniformScale(double* out, int64_t n, ScalarArg<double> minval,
                               ScalarArg<double> maxval, cudaStream_t cuda_stream) {
  return LaunchScale<double, true>(out, n, minval, maxval, cuda_stream);
}

}  // namespace duet::cuda
