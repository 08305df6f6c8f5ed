// _FusedElementwise on CUDA: the program becomes CUDA C++ (fused_elementwise_codegen.h), NVRTC
// compiles it for the device (nvrtc_compiler.h), and the driver API loads and launches it on the
// device's stream (Note [One stream per device]).
//
// Note [Fused kernel cache]
// Compiling costs tens to hundreds of milliseconds, so each (source, dtype, device) is compiled
// and loaded once per process and its CUfunction kept in a map under a mutex; a node run again
// only regenerates its source (microseconds) to find it. Modules are never unloaded: a process
// runs a bounded set of fused programs. Compilation happens outside the lock; when two threads
// race on one program, one module is loaded twice and the first inserted wins.
//
// The driver API is reached through cudaGetDriverEntryPointByVersion instead of linking
// libcuda: a binary that links libcuda.so.1 does not even start on a machine without the driver,
// and this project's binaries must run (and skip GPU work) there.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/error.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/math/fused_elementwise_codegen.h"
#include "kernels/cuda/math/nvrtc_compiler.h"
#include "kernels/kernel_registry.h"
#include "ops/math/elementwise_program.h"
#include "ops/math/math_attrs.h"

namespace duet::cuda {
namespace {

// The few driver API functions used here, looked up from the runtime (see the file comment).
struct DriverApi {
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  decltype(&::cuGetErrorString) get_error_string = nullptr;

  absl::Status Check(CUresult result, absl::string_view what) const {
    if (result == CUDA_SUCCESS) return absl::OkStatus();
    const char* message = nullptr;
    if (get_error_string == nullptr || get_error_string(result, &message) != CUDA_SUCCESS) {
      message = "unknown error";
    }
    return absl::InternalError(absl::StrCat(what, " failed: ", message, " (", result, ")"));
  }
};

template <typename Fn>
absl::Status LoadEntryPoint(const char* symbol, Fn* fn) {
  void* pointer = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  DUET_RETURN_IF_ERROR(CudaStatus(
      cudaGetDriverEntryPointByVersion(symbol, &pointer, 12000, cudaEnableDefault, &found),
      absl::StrCat("cudaGetDriverEntryPointByVersion(", symbol, ")")));
  if (found != cudaDriverEntryPointSuccess || pointer == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("the CUDA driver has no entry point ", symbol));
  }
  *fn = reinterpret_cast<Fn>(pointer);
  return absl::OkStatus();
}

absl::StatusOr<const DriverApi*> GetDriverApi() {
  static const absl::StatusOr<DriverApi>* api = [] {
    DriverApi driver;
    absl::Status status = LoadEntryPoint("cuModuleLoadData", &driver.module_load_data);
    if (status.ok()) status = LoadEntryPoint("cuModuleGetFunction", &driver.module_get_function);
    if (status.ok()) status = LoadEntryPoint("cuLaunchKernel", &driver.launch_kernel);
    if (status.ok()) status = LoadEntryPoint("cuGetErrorString", &driver.get_error_string);
    return status.ok() ? new absl::StatusOr<DriverApi>(driver)
                       : new absl::StatusOr<DriverApi>(status);
  }();
  if (!api->ok()) return api->status();
  return &**api;
}

// Note [Fused kernel cache].
class FusedKernelCache {
 public:
  static FusedKernelCache& Global() {
    static FusedKernelCache* cache = new FusedKernelCache;
    return *cache;
  }

  // The loaded kernel of `source` on cuda:`device` (current for the calling thread).
  absl::StatusOr<CUfunction> Get(const std::string& source, DType dtype, int device) {
    Key key(source, dtype, device);
    {
      absl::MutexLock lock(&mutex_);
      auto it = functions_.find(key);
      if (it != functions_.end()) return it->second;
    }
    DUET_ASSIGN_OR_RETURN(const DriverApi* driver, GetDriverApi());
    int major = 0, minor = 0;
    DUET_CUDA_RETURN_IF_ERROR(
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    DUET_CUDA_RETURN_IF_ERROR(
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    const NvrtcHeader headers[] = {
        {kElementwiseFunctorsHeaderName, std::string(ElementwiseFunctorsSource())}};
    DUET_ASSIGN_OR_RETURN(const CompiledCuda compiled,
                          CompileCuda(source, "duet_fused_elementwise.cu", headers, major, minor));
    CUmodule module = nullptr;
    DUET_RETURN_IF_ERROR(driver->Check(driver->module_load_data(&module, compiled.image.data()),
                                       "cuModuleLoadData"));
    CUfunction function = nullptr;
    DUET_RETURN_IF_ERROR(
        driver->Check(driver->module_get_function(&function, module, kFusedElementwiseKernelName),
                      "cuModuleGetFunction"));
    absl::MutexLock lock(&mutex_);
    return functions_.try_emplace(std::move(key), function).first->second;
  }

 private:
  using Key = std::tuple<std::string, DType, int>;
  absl::Mutex mutex_;
  absl::flat_hash_map<Key, CUfunction> functions_ ABSL_GUARDED_BY(mutex_);
};

// The shape function checked the inputs as far as graph shapes were known; a graph with unknown
// dims may still bring a mismatch here (as in the CPU kernel).
absl::Status CheckInputShapes(const KernelContext& ctx, const Shape& out) {
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Shape& in = ctx.input(i).shape();
    if (in.num_elements() != 1 && in != out) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", i, " has shape ", in.str(), ", but every input must hold a single element or ",
          "have the output's shape ", out.str()));
    }
  }
  return absl::OkStatus();
}

absl::Status FusedElementwiseKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  // Notes [Extra outputs], [Concatenated output], [Input parts]: fuse_elementwise makes them only
  // for CPU regions until this kernel's generated code handles them.
  if (ctx.num_outputs() > 1) {
    return absl::UnimplementedError(
        "the CUDA kernel writes output 0 only; extra outputs (attr results) are CPU-only for now");
  }
  if (!ctx.attr(FusedElementwiseAttrs::kConcat).empty() ||
      !ctx.attr(FusedElementwiseAttrs::kInputParts).empty()) {
    return absl::UnimplementedError(
        "the CUDA kernel writes one value as output 0 and reads whole inputs; a concatenated "
        "output (attr concat) and inputs read in parts (attr input_parts) are CPU-only for now");
  }
  DUET_RETURN_IF_ERROR(CheckInputShapes(ctx, out.shape()));
  DUET_ASSIGN_OR_RETURN(
      const ElementwiseProgram program,
      DecodeElementwiseProgram(ctx.attr(FusedElementwiseAttrs::kOps),
                               ctx.attr(FusedElementwiseAttrs::kOperands), ctx.num_inputs()));
  long long n = out.num_elements();
  if (n == 0) return absl::OkStatus();
  absl::InlinedVector<bool, 8> single;
  for (int i = 0; i < ctx.num_inputs(); ++i) single.push_back(ctx.input(i).num_elements() == 1);
  DUET_ASSIGN_OR_RETURN(const std::string source,
                        GenerateFusedElementwiseSource(program, out.dtype(), single));
  DUET_ASSIGN_OR_RETURN(DeviceContext * device, CurrentContext(ctx.device()));
  DUET_ASSIGN_OR_RETURN(CUfunction function,
                        FusedKernelCache::Global().Get(source, out.dtype(), device->index()));
  DUET_ASSIGN_OR_RETURN(const DriverApi* driver, GetDriverApi());

  // The kernel's parameters: each input pointer, the output pointer, n.
  absl::InlinedVector<const void*, 8> pointers;
  for (int i = 0; i < ctx.num_inputs(); ++i) pointers.push_back(ctx.input(i).raw_data());
  void* out_ptr = out.raw_data();
  absl::InlinedVector<void*, 10> params;
  for (const void*& p : pointers) params.push_back(&p);
  params.push_back(&out_ptr);
  params.push_back(&n);
  constexpr unsigned kThreads = 256;
  const unsigned blocks =
      static_cast<unsigned>(std::min<long long>((n + kThreads - 1) / kThreads, 65535));
  return driver->Check(
      driver->launch_kernel(function, blocks, 1, 1, kThreads, 1, 1, 0,
                            reinterpret_cast<CUstream>(device->stream()), params.data(), nullptr),
      "cuLaunchKernel(_FusedElementwise)");
}

const KernelRegistrar registrar("_FusedElementwise", DeviceType::kCuda, {kFloat32, kFloat64},
                                KernelDef{&FusedElementwiseKernel});

}  // namespace
}  // namespace duet::cuda
