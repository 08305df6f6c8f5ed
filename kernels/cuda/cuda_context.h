// Per-device CUDA state shared by every CUDA kernel: one stream, and the cuBLAS and cuDNN handles
// bound to it. Also the conversions from CUDA, cuBLAS and cuDNN return codes to absl::Status.
//
// Note [One stream per device]
// Every kernel, library call and copy for cuda:N is issued on DeviceContext(N)'s stream, so work
// on one device runs in issue order. That is what makes the caching allocator safe: a buffer
// freed on the host while a kernel that reads it is still queued is only handed to later work on
// the same stream, which runs after that kernel. Host-visible results (copies to the CPU) and
// copies that cross devices synchronize the stream they read from.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdint>
#include <mutex>

#include "absl/base/call_once.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/device.h"

namespace duet::cuda {

// OK for cudaSuccess, else Internal naming `what` and CUDA's error string. Clears CUDA's last
// error so later calls start clean.
absl::Status CudaStatus(cudaError_t error, absl::string_view what);
absl::Status CublasStatus(cublasStatus_t status, absl::string_view what);
absl::Status CudnnStatus(cudnnStatus_t status, absl::string_view what);

// The state of one CUDA device, created on first use and kept for the process.
class DeviceContext {
 public:
  // cuda:`index`'s context; FailedPrecondition when there is no such device.
  static absl::StatusOr<DeviceContext*> Get(int index);

  int index() const { return index_; }
  cudaStream_t stream() const { return stream_; }
  // The cuBLAS handles, bound to stream() and created on first use. Threads may share a cuBLAS
  // handle but not change its settings while others use it, so each setting has its own handle,
  // set once: cublas() reads alpha and beta from host memory, cublas_device_scalars() from device
  // memory (CUBLAS_POINTER_MODE_DEVICE).
  absl::StatusOr<cublasHandle_t> cublas();
  absl::StatusOr<cublasHandle_t> cublas_device_scalars();
  // cuDNN's handle, bound to stream() and created on first use (the first loads cuDNN's
  // libraries, which takes a while), with a lock held as long as the lease lives: cuDNN forbids
  // two threads to use one handle at once. Its calls only queue work, so the lock is held briefly.
  struct CudnnLease {
    cudnnHandle_t handle = nullptr;
    std::unique_lock<std::mutex> lock;
  };
  absl::StatusOr<CudnnLease> cudnn();
  // Makes this device current for the calling thread (cudaSetDevice, at least once per thread).
  absl::Status MakeCurrent() const;
  // Waits for everything queued on the stream.
  absl::Status Synchronize() const;

 private:
  DeviceContext(int index, cudaStream_t stream) : index_(index), stream_(stream) {}

  const int index_;
  const cudaStream_t stream_;
  // A handle of cuBLAS in `mode`, bound to stream().
  absl::StatusOr<cublasHandle_t> MakeCublas(cublasPointerMode_t mode) const;

  absl::once_flag cublas_once_, cublas_device_scalars_once_, cudnn_once_;
  absl::StatusOr<cublasHandle_t> cublas_ = nullptr, cublas_device_scalars_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
  absl::Status cudnn_status_;
  std::mutex cudnn_mutex_;
};

// The context of a CUDA device, made current for the calling thread: what a kernel calls first.
absl::StatusOr<DeviceContext*> CurrentContext(Device device);

// Copies `bytes` bytes between any two of CPU and CUDA memory, in stream order (Note [One
// stream per device]). Returns once the destination may be read: copies to the CPU wait for the
// device; copies from the CPU wait too, because the caller may free the source at once.
absl::Status CopyBytes(void* dst, Device dst_device, const void* src, Device src_device,
                       size_t bytes);

}  // namespace duet::cuda

// Returns the status of a CUDA runtime call when it failed: DUET_CUDA_RETURN_IF_ERROR(cudaFoo()).
#define DUET_CUDA_RETURN_IF_ERROR(expr) \
  DUET_RETURN_IF_ERROR(::duet::cuda::CudaStatus((expr), #expr))
#define DUET_CUBLAS_RETURN_IF_ERROR(expr) \
  DUET_RETURN_IF_ERROR(::duet::cuda::CublasStatus((expr), #expr))
#define DUET_CUDNN_RETURN_IF_ERROR(expr) \
  DUET_RETURN_IF_ERROR(::duet::cuda::CudnnStatus((expr), #expr))
