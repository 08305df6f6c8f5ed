#include "kernels/cuda/cuda_context.h"

#include <atomic>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "kernels/cuda/cuda_device.h"

namespace duet::cuda {

absl::Status CudaStatus(cudaError_t error, absl::string_view what) {
  if (error == cudaSuccess) return absl::OkStatus();
  cudaGetLastError();
  return absl::InternalError(absl::StrCat(what, " failed: ", cudaGetErrorName(error), " (",
                                          cudaGetErrorString(error), ")"));
}

absl::Status CublasStatus(cublasStatus_t status, absl::string_view what) {
  if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, " failed: ", cublasGetStatusName(status), " (",
                                          cublasGetStatusString(status), ")"));
}

absl::Status CudnnStatus(cudnnStatus_t status, absl::string_view what) {
  if (status == CUDNN_STATUS_SUCCESS) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, " failed: ", cudnnGetErrorString(status)));
}

absl::StatusOr<DeviceContext*> DeviceContext::Get(int index) {
  // Never destroyed: tensors in static storage may still queue work after main returns.
  static const auto* contexts = [] {
    auto* all = new std::vector<DeviceContext*>;
    for (int i = 0; i < DeviceCount(); ++i) {
      cudaStream_t stream = nullptr;
      if (cudaSetDevice(i) != cudaSuccess ||
          cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        cudaGetLastError();
        all->push_back(nullptr);
        continue;
      }
      all->push_back(new DeviceContext(i, stream));
    }
    if (!all->empty()) cudaSetDevice(0);
    return all;
  }();
  if (index < 0 || index >= static_cast<int>(contexts->size())) {
    return absl::FailedPreconditionError(
        absl::StrCat("device cuda:", index, " is not present (num_gpus() is ", DeviceCount(), ")"));
  }
  if ((*contexts)[index] == nullptr) {
    return absl::InternalError(absl::StrCat("could not create a stream on cuda:", index));
  }
  return (*contexts)[index];
}

absl::StatusOr<cublasHandle_t> DeviceContext::MakeCublas(cublasPointerMode_t mode) const {
  DUET_RETURN_IF_ERROR(MakeCurrent());
  cublasHandle_t handle = nullptr;
  DUET_RETURN_IF_ERROR(CublasStatus(cublasCreate(&handle), "cublasCreate"));
  DUET_RETURN_IF_ERROR(CublasStatus(cublasSetStream(handle, stream_), "cublasSetStream"));
  DUET_RETURN_IF_ERROR(CublasStatus(cublasSetPointerMode(handle, mode), "cublasSetPointerMode"));
  return handle;
}

absl::StatusOr<cublasHandle_t> DeviceContext::cublas() {
  absl::call_once(cublas_once_, [this] { cublas_ = MakeCublas(CUBLAS_POINTER_MODE_HOST); });
  return cublas_;
}

absl::StatusOr<cublasHandle_t> DeviceContext::cublas_device_scalars() {
  absl::call_once(cublas_device_scalars_once_,
                  [this] { cublas_device_scalars_ = MakeCublas(CUBLAS_POINTER_MODE_DEVICE); });
  return cublas_device_scalars_;
}

absl::StatusOr<DeviceContext::CudnnLease> DeviceContext::cudnn() {
  absl::call_once(cudnn_once_, [this] {
    cudnn_status_ = MakeCurrent();
    if (!cudnn_status_.ok()) return;
    cudnn_status_ = CudnnStatus(cudnnCreate(&cudnn_), "cudnnCreate");
    if (cudnn_status_.ok()) {
      cudnn_status_ = CudnnStatus(cudnnSetStream(cudnn_, stream_), "cudnnSetStream");
    }
  });
  if (!cudnn_status_.ok()) return cudnn_status_;
  return CudnnLease{cudnn_, std::unique_lock<std::mutex>(cudnn_mutex_)};
}

absl::Status DeviceContext::MakeCurrent() const {
  // cudaGetDevice answers 0 on a thread that has bound no context yet, and the driver API calls
  // of the fused kernels (cuModuleLoadData, cuLaunchKernel) need one bound: each thread calls
  // cudaSetDevice (which binds the device's primary context) at least once.
  thread_local bool set_once = false;
  int current = -1;
  if (set_once && cudaGetDevice(&current) == cudaSuccess && current == index_) {
    return absl::OkStatus();
  }
  DUET_RETURN_IF_ERROR(CudaStatus(cudaSetDevice(index_), "cudaSetDevice"));
  set_once = true;
  return absl::OkStatus();
}

absl::Status DeviceContext::Synchronize() const {
  return CudaStatus(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

absl::StatusOr<DeviceContext*> CurrentContext(Device device) {
  if (!device.is_cuda()) {
    return absl::InternalError(absl::StrCat("a CUDA kernel ran on ", device.str()));
  }
  DUET_ASSIGN_OR_RETURN(DeviceContext * context, DeviceContext::Get(device.index()));
  DUET_RETURN_IF_ERROR(context->MakeCurrent());
  return context;
}

absl::Status CopyBytes(void* dst, Device dst_device, const void* src, Device src_device,
                       size_t bytes) {
  if (bytes == 0) return absl::OkStatus();
  if (dst_device.is_cpu() && src_device.is_cpu()) {
    return absl::InternalError("CopyBytes is for copies that involve a CUDA device");
  }
  if (dst_device.is_cuda() && src_device.is_cuda() && dst_device != src_device) {
    // Across devices: the source's queued work must finish first (its stream), then the copy runs
    // on the destination's stream, and ends before this returns: the caller may drop the source
    // at once, and its block would go back to the source device's pool, whose stream knows
    // nothing of the copy.
    DUET_ASSIGN_OR_RETURN(DeviceContext * from, DeviceContext::Get(src_device.index()));
    DUET_RETURN_IF_ERROR(from->Synchronize());
    DUET_ASSIGN_OR_RETURN(DeviceContext * to, CurrentContext(dst_device));
    DUET_RETURN_IF_ERROR(CudaStatus(
        cudaMemcpyPeerAsync(dst, dst_device.index(), src, src_device.index(), bytes, to->stream()),
        "cudaMemcpyPeerAsync"));
    return to->Synchronize();
  }
  CountHostTransfer(dst_device, src_device);
  const Device gpu = dst_device.is_cuda() ? dst_device : src_device;
  DUET_ASSIGN_OR_RETURN(DeviceContext * context, CurrentContext(gpu));
  DUET_RETURN_IF_ERROR(CudaStatus(
      cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, context->stream()), "cudaMemcpyAsync"));
  if (dst_device.is_cuda() && src_device.is_cuda()) return absl::OkStatus();
  return context->Synchronize();
}

}  // namespace duet::cuda
