#include "kernels/cuda/nn/conv_cache.h"

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
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

// The first k.rank entries of `values` joined by `sep`.
std::string Spatial(const ConvKey& k, const int64_t* values, absl::string_view sep) {
  return absl::StrJoin(absl::MakeConstSpan(values, k.rank), sep);
}

std::string Describe(const ConvKey& k) {
  return absl::StrCat(DTypeName(k.dtype), " convolution of [", k.batch, ", ",
                      Spatial(k, k.in, ", "), ", ", k.in_c, "] with a ", Spatial(k, k.window, "x"),
                      " filter to ", k.out_c, " channels in ", k.groups, " groups (pad ",
                      Spatial(k, k.pad, "/"), ", stride ", Spatial(k, k.stride, "/"), ", dilation ",
                      Spatial(k, k.dilation, "/"), ")");
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

// cuDNN's ranked candidates that ran its checks successfully, in its order: for `exact` dtypes
// those computing plainly in the requested precision first, then (float32 only) the others.
template <typename Perf>
absl::StatusOr<std::vector<Perf>> Usable(const Perf* perf, int count, bool exact,
                                         const ConvKey& key) {
  std::vector<Perf> plain, others;
  for (int i = 0; i < count; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    const bool is_plain = ExactAlgorithm(perf[i].algo) &&
                          perf[i].mathType != CUDNN_TENSOR_OP_MATH &&
                          perf[i].mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    (!exact || is_plain ? plain : others).push_back(perf[i]);
  }
  if (key.dtype != kFloat64) plain.insert(plain.end(), others.begin(), others.end());
  if (plain.empty()) {
    return absl::UnimplementedError(absl::StrCat("cuDNN has no algorithm for the ", Describe(key)));
  }
  return plain;
}

// The usable candidates of `perf` with the workspace each needs, asked of `workspace_size` (one
// cuDNN cannot size is left out).
template <typename Perf, typename WorkspaceSize>
absl::Status SetAlgorithms(ConvPlan& plan, const Perf* perf, int count, bool exact,
                           const ConvKey& key, WorkspaceSize workspace_size) {
  DUET_ASSIGN_OR_RETURN(const std::vector<Perf> usable, Usable(perf, count, exact, key));
  cudnnStatus_t sizing = CUDNN_STATUS_SUCCESS;
  for (const Perf& p : usable) {
    ConvAlgorithm a;
    a.algorithm = p.algo;
    const cudnnStatus_t status = workspace_size(p.algo, &a.workspace_bytes);
    if (status == CUDNN_STATUS_SUCCESS) {
      plan.algorithms.push_back(a);
    } else if (sizing == CUDNN_STATUS_SUCCESS) {
      sizing = status;
    }
  }
  if (!plan.algorithms.empty()) return absl::OkStatus();
  return CudnnStatus(sizing, absl::StrCat("sizing the workspace of the ", Describe(key)));
}

bool FitsInt(int64_t v) { return v >= 0 && v <= std::numeric_limits<int>::max(); }

absl::StatusOr<std::unique_ptr<ConvPlan>> BuildPlan(cudnnHandle_t handle, const ConvKey& k) {
  int64_t in_elements = k.batch * k.in_c, out_elements = k.batch * k.out_c;
  std::vector<int64_t> sizes = {k.batch, k.in_c, k.out_c, k.groups};
  for (int d = 0; d < k.rank; ++d) {
    sizes.insert(sizes.end(),
                 {k.in[d], k.window[d], k.out[d], k.pad[d], k.stride[d], k.dilation[d]});
    in_elements *= k.in[d];
    out_elements *= k.out[d];
  }
  sizes.insert(sizes.end(), {in_elements, out_elements});
  for (int64_t v : sizes) {
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
  // cuDNN's Nd descriptors take dims in NCHW order ({N, C, [D,] H, W}) whatever the layout.
  auto dims = [&k](int64_t first, int64_t second, const int64_t* spatial) {
    std::vector<int> result = {static_cast<int>(first), static_cast<int>(second)};
    for (int d = 0; d < k.rank; ++d) result.push_back(static_cast<int>(spatial[d]));
    return result;
  };
  auto spatial = [&k](const int64_t* values) { return std::vector<int>(values, values + k.rank); };
  const std::vector<int> x_dims = dims(k.batch, k.in_c, k.in);
  const std::vector<int> y_dims = dims(k.batch, k.out_c, k.out);
  const std::vector<int> w_dims = dims(k.out_c, k.in_c / k.groups, k.window);
  const int nb = static_cast<int>(x_dims.size());
  DUET_CUDNN_RETURN_IF_ERROR(
      cudnnSetTensorNdDescriptorEx(plan->x, CUDNN_TENSOR_NHWC, type, nb, x_dims.data()));
  DUET_CUDNN_RETURN_IF_ERROR(
      cudnnSetTensorNdDescriptorEx(plan->y, CUDNN_TENSOR_NHWC, type, nb, y_dims.data()));
  DUET_CUDNN_RETURN_IF_ERROR(
      cudnnSetFilterNdDescriptor(plan->w, type, CUDNN_TENSOR_NHWC, nb, w_dims.data()));
  const std::vector<int> pads = spatial(k.pad), strides = spatial(k.stride),
                         dilations = spatial(k.dilation);
  DUET_CUDNN_RETURN_IF_ERROR(cudnnSetConvolutionNdDescriptor(
      plan->conv, k.rank, pads.data(), strides.data(), dilations.data(), CUDNN_CROSS_CORRELATION,
      k.dtype == kFloat64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT));
  if (k.groups != 1) {
    DUET_CUDNN_RETURN_IF_ERROR(
        cudnnSetConvolutionGroupCount(plan->conv, static_cast<int>(k.groups)));
  }
  // FMA_MATH forbids tensor-core math (TF32 for float32), which cuDNN would otherwise pick.
  DUET_CUDNN_RETURN_IF_ERROR(
      cudnnSetConvolutionMathType(plan->conv, exact ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH));
  cudnnConvolutionDescriptor_t conv = plan->conv;
  cudnnTensorDescriptor_t x = plan->x, y = plan->y;
  cudnnFilterDescriptor_t w = plan->w;
  switch (k.direction) {
    case ConvDirection::kForward: {
      cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
      int count = 0;
      DUET_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionForwardAlgorithm_v7(
          handle, x, w, conv, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf));
      DUET_RETURN_IF_ERROR(SetAlgorithms(
          *plan, perf, count, exact, k, [&](cudnnConvolutionFwdAlgo_t a, size_t* bytes) {
            return cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, a, bytes);
          }));
      break;
    }
    case ConvDirection::kBackwardData: {
      cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
      int count = 0;
      DUET_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionBackwardDataAlgorithm_v7(
          handle, w, y, conv, x, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count, perf));
      DUET_RETURN_IF_ERROR(SetAlgorithms(
          *plan, perf, count, exact, k, [&](cudnnConvolutionBwdDataAlgo_t a, size_t* bytes) {
            return cudnnGetConvolutionBackwardDataWorkspaceSize(handle, w, y, conv, x, a, bytes);
          }));
      break;
    }
    case ConvDirection::kBackwardFilter: {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
      int count = 0;
      DUET_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
          handle, x, y, conv, w, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &count, perf));
      DUET_RETURN_IF_ERROR(SetAlgorithms(
          *plan, perf, count, exact, k, [&](cudnnConvolutionBwdFilterAlgo_t a, size_t* bytes) {
            return cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, x, y, conv, w, a, bytes);
          }));
      break;
    }
  }
  return plan;
}

struct ConvCache {
  absl::Mutex mu;
  absl::flat_hash_map<ConvKey, std::unique_ptr<ConvPlan>> plans ABSL_GUARDED_BY(mu);
  // The keys cuDNN has no algorithm for (Choose's Unimplemented error), with that error. It is a
  // property of the key, unlike a failed allocation, so it is remembered: each float64 call the
  // kernels answer with a direct convolution would otherwise rebuild the descriptors and rerun the
  // heuristics first.
  absl::flat_hash_map<ConvKey, absl::Status> unsupported ABSL_GUARDED_BY(mu);
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
    auto failed = cache.unsupported.find(key);
    if (failed != cache.unsupported.end()) return failed->second;
  }
  // Built outside the lock (cuDNN's heuristics take a while); a racing builder's plan is dropped.
  absl::StatusOr<std::unique_ptr<ConvPlan>> plan = BuildPlan(handle, key);
  absl::MutexLock lock(&cache.mu);
  if (!plan.ok()) {
    if (absl::IsUnimplemented(plan.status())) cache.unsupported.try_emplace(key, plan.status());
    return plan.status();
  }
  auto [it, inserted] = cache.plans.try_emplace(key, *std::move(plan));
  return it->second.get();
}

}  // namespace duet::cuda
