#include "kernels/cuda/nn/conv_cache.h"

#include <limits>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/error.h"
#include "kernels/cuda/cuda_context.h"

namespace duet::cuda {
namespace {

absl::StatusOr<cudnnDataType_t> CudnnType(DType dtype) {
  switch (dtype) {
    case kFloat32:
      return CUDNN_DATA_FLOAT;
    case kFloat64:
      return CUDNN_DATA_DOUBLE;
    case kFloat16:
      return CUDNN_DATA_HALF;
    case kBFloat16:
      return CUDNN_DATA_BFLOAT16;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("no cuDNN convolution for dtype ", DTypeName(dtype)));
  }
}

std::string Describe(const ConvKey& k) {
  return absl::StrCat(DTypeName(k.dtype), " convolution of [", k.batch, ", ", k.in_h, ", ", k.in_w,
                      ", ", k.in_c, "] with a ", k.window_h, "x", k.window_w, " filter to ",
                      k.out_c, " channels in ", k.groups, " groups (pad ", k.pad_h, "/", k.pad_w,
                      ", stride ", k.stride_h, "/", k.stride_w, ", dilation ", k.dilation_h, "/",
                      k.dilation_w, ")");
}

// Whether the algorithm may run for `exact` (float32, float64) convolutions: no FFT or Winograd.
bool ExactAlgorithm(cudnnConvolutionFwdAlgo_t a) {
  return a != CUDNN_CONVOLUTION_FWD_ALGO_FFT && a != CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING &&
         a != CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD &&
         a != CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
}
bool ExactAlgorithm(cudnnConvolutionBwdDataAlgo_t a) {
  return a != CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT &&
         a != CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING &&
         a != CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD &&
         a != CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
}
bool ExactAlgorithm(cudnnConvolutionBwdFilterAlgo_t a) {
  return a != CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT &&
         a != CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING &&
         a != CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
}

// The first of cuDNN's ranked candidates that ran its checks successfully and, when `exact`,
// computes plainly in the requested precision; the fastest usable one otherwise.
template <typename Perf>
absl::StatusOr<Perf> Choose(const Perf* perf, int count, bool exact, const ConvKey& key) {
  const Perf* fallback = nullptr;
  for (int i = 0; i < count; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    if (fallback == nullptr) fallback = &perf[i];
    if (!exact) return perf[i];
    if (ExactAlgorithm(perf[i].algo) && perf[i].mathType != CUDNN_TENSOR_OP_MATH &&
        perf[i].mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) {
      return perf[i];
    }
  }
  if (fallback != nullptr) return *fallback;
  return absl::UnimplementedError(absl::StrCat("cuDNN has no algorithm for the ", Describe(key)));
}

bool FitsInt(int64_t v) { return v >= 0 && v <= std::numeric_limits<int>::max(); }

absl::StatusOr<std::unique_ptr<ConvPlan>> BuildPlan(cudnnHandle_t handle, const ConvKey& k) {
  for (int64_t v :
       {k.batch, k.in_c, k.out_c, k.groups, k.in_h, k.in_w, k.window_h, k.window_w, k.out_h,
        k.out_w, k.pad_h, k.pad_w, k.stride_h, k.stride_w, k.dilation_h, k.dilation_w,
        k.batch * k.in_h * k.in_w * k.in_c, k.batch * k.out_h * k.out_w * k.out_c}) {
    if (!FitsInt(v)) {
      return absl::InvalidArgumentError(
          absl::StrCat("the ", Describe(k), " exceeds cuDNN's 32-bit sizes"));
    }
  }
  DUET_ASSIGN_OR_RETURN(const cudnnDataType_t type, CudnnType(k.dtype));
  const bool exact = k.dtype == kFloat32 || k.dtype == kFloat64;
  auto plan = std::make_unique<ConvPlan>();
  DUET_CUDNN_RETURN_IF_ERROR(cudnnCreateTensorDescriptor(&plan->x));
  DUET_CUDNN_RETURN_IF_ERROR(cudnnCreateTensorDescriptor(&plan->y));
  DUET_CUDNN_RETURN_IF_ERROR(cudnnCreateFilterDescriptor(&plan->w));
  DUET_CUDNN_RETURN_IF_ERROR(cudnnCreateConvolutionDescriptor(&plan->conv));
  auto i = [](int64_t v) { return static_cast<int>(v); };
  DUET_CUDNN_RETURN_IF_ERROR(cudnnSetTensor4dDescriptor(
      plan->x, CUDNN_TENSOR_NHWC, type, i(k.batch), i(k.in_c), i(k.in_h), i(k.in_w)));
  DUET_CUDNN_RETURN_IF_ERROR(cudnnSetTensor4dDescriptor(
      plan->y, CUDNN_TENSOR_NHWC, type, i(k.batch), i(k.out_c), i(k.out_h), i(k.out_w)));
  DUET_CUDNN_RETURN_IF_ERROR(cudnnSetFilter4dDescriptor(plan->w, type, CUDNN_TENSOR_NHWC,
                                                        i(k.out_c), i(k.in_c / k.groups),
                                                        i(k.window_h), i(k.window_w)));
  DUET_CUDNN_RETURN_IF_ERROR(cudnnSetConvolution2dDescriptor(
      plan->conv, i(k.pad_h), i(k.pad_w), i(k.stride_h), i(k.stride_w), i(k.dilation_h),
      i(k.dilation_w), CUDNN_CROSS_CORRELATION,
      k.dtype == kFloat64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT));
  if (k.groups != 1) {
    DUET_CUDNN_RETURN_IF_ERROR(cudnnSetConvolutionGroupCount(plan->conv, i(k.groups)));
  }
  // FMA_MATH forbids tensor-core math (TF32 for float32), which cuDNN would otherwise pick.
  DUET_CUDNN_RETURN_IF_ERROR(
      cudnnSetConvolutionMathType(plan->conv, exact ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH));
  switch (k.direction) {
    case ConvDirection::kForward: {
      cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
      int count = 0;
      DUET_CUDNN_RETURN_IF_ERROR(
          cudnnGetConvolutionForwardAlgorithm_v7(handle, plan->x, plan->w, plan->conv, plan->y,
                                                 CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf));
      DUET_ASSIGN_OR_RETURN(const auto chosen, Choose(perf, count, exact, k));
      plan->algorithm = chosen.algo;
      DUET_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionForwardWorkspaceSize(
          handle, plan->x, plan->w, plan->conv, plan->y, chosen.algo, &plan->workspace_bytes));
      break;
    }
    case ConvDirection::kBackwardData: {
      cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
      int count = 0;
      DUET_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionBackwardDataAlgorithm_v7(
          handle, plan->w, plan->y, plan->conv, plan->x, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
          &count, perf));
      DUET_ASSIGN_OR_RETURN(const auto chosen, Choose(perf, count, exact, k));
      plan->algorithm = chosen.algo;
      DUET_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionBackwardDataWorkspaceSize(
          handle, plan->w, plan->y, plan->conv, plan->x, chosen.algo, &plan->workspace_bytes));
      break;
    }
    case ConvDirection::kBackwardFilter: {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
      int count = 0;
      DUET_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
          handle, plan->x, plan->y, plan->conv, plan->w, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
          &count, perf));
      DUET_ASSIGN_OR_RETURN(const auto chosen, Choose(perf, count, exact, k));
      plan->algorithm = chosen.algo;
      DUET_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionBackwardFilterWorkspaceSize(
          handle, plan->x, plan->y, plan->conv, plan->w, chosen.algo, &plan->workspace_bytes));
      break;
    }
  }
  return plan;
}

struct ConvCache {
  absl::Mutex mu;
  absl::flat_hash_map<ConvKey, std::unique_ptr<ConvPlan>> plans ABSL_GUARDED_BY(mu);
};

ConvCache& Cache() {
  static ConvCache* cache = new ConvCache;  // never destroyed: kernels may run during exit
  return *cache;
}

}  // namespace

ConvPlan::~ConvPlan() {
  if (x != nullptr) cudnnDestroyTensorDescriptor(x);
  if (y != nullptr) cudnnDestroyTensorDescriptor(y);
  if (w != nullptr) cudnnDestroyFilterDescriptor(w);
  if (conv != nullptr) cudnnDestroyConvolutionDescriptor(conv);
}

absl::StatusOr<const ConvPlan*> GetConvPlan(cudnnHandle_t handle, const ConvKey& key) {
  ConvCache& cache = Cache();
  {
    absl::MutexLock lock(&cache.mu);
    auto it = cache.plans.find(key);
    if (it != cache.plans.end()) return it->second.get();
  }
  // Built outside the lock (cuDNN's heuristics take a while); a racing builder's plan is dropped.
  DUET_ASSIGN_OR_RETURN(std::unique_ptr<ConvPlan> plan, BuildPlan(handle, key));
  absl::MutexLock lock(&cache.mu);
  auto [it, inserted] = cache.plans.try_emplace(key, std::move(plan));
  return it->second.get();
}

}  // namespace duet::cuda
