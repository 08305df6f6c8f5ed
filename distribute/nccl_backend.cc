#include "distribute/nccl_backend.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "kernels/cuda/cuda_context.h"

namespace duet::distribute {
namespace {

using Clock = std::chrono::steady_clock;

ncclDataType_t NcclType(DType dtype, const std::string& what) {
  switch (dtype) {
    case kFloat32:
      return ncclFloat32;
    case kFloat64:
      return ncclFloat64;
    case kInt32:
      return ncclInt32;
    case kInt64:
      return ncclInt64;
    case kFloat16:
      return ncclFloat16;
    case kBFloat16:
      return ncclBfloat16;
    default:
      throw backend_internal::UnsupportedDType(what, dtype);
  }
}

ncclRedOp_t NcclOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return ncclSum;
    case ReduceOp::kMean:
      return ncclAvg;
    case ReduceOp::kProduct:
      return ncclProd;
    case ReduceOp::kMin:
      return ncclMin;
    case ReduceOp::kMax:
      return ncclMax;
  }
  return ncclSum;
}

void ThrowIfFailed(const absl::Status& status) {
  if (!status.ok()) throw Error(status);
}

class NcclBackend : public Backend {
 public:
  NcclBackend(ncclComm_t comm, cuda::DeviceContext* context, int rank, int size,
              std::chrono::milliseconds timeout)
      : comm_(comm), context_(context), rank_(rank), size_(size), timeout_(timeout) {}
  ~NcclBackend() override {
    if (broken_) return;  // aborted already
    ncclCommDestroy(comm_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override { return "nccl"; }
  std::chrono::milliseconds timeout() const override { return timeout_; }
  bool works_on(Device device) const override { return device == Device::cuda(context_->index()); }

  Tensor all_reduce(const Tensor& tensor, ReduceOp op) override {
    const std::string what = absl::StrCat("all_reduce (", ReduceOpName(op), ")");
    const Tensor in = OnDevice(tensor);
    Tensor out = Tensor::Empty(in.dtype(), in.shape(), in.device());
    const ncclDataType_t type = NcclType(in.dtype(), what);
    // Integers divide as C++ does (every backend alike), which ncclAvg does not promise.
    const bool divide_here =
        op == ReduceOp::kMean && (in.dtype() == kInt32 || in.dtype() == kInt64);
    Run(what, in, [&] {
      return ncclAllReduce(in.raw_data(), out.raw_data(), in.num_elements(), type,
                           NcclOp(divide_here ? ReduceOp::kSum : op), comm_, context_->stream());
    });
    if (divide_here) {
      Tensor host = Tensor::Empty(out.dtype(), out.shape());
      ThrowIfFailed(cuda::CopyBytes(host.raw_data(), Device::cpu(), out.raw_data(), out.device(),
                                    out.nbytes()));
      backend_internal::DivideBySize(host, size_);
      ThrowIfFailed(cuda::CopyBytes(out.raw_data(), out.device(), host.raw_data(), Device::cpu(),
                                    out.nbytes()));
    }
    return out;
  }

  Tensor broadcast(const Tensor& tensor, int root) override {
    const std::string what = absl::StrCat("broadcast (root ", root, ")");
    if (root < 0 || root >= size_) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat(what, ": the root is not a rank of this job of ", size_)));
    }
    backend_internal::CheckMovableBytes(what, tensor.dtype());
    const Tensor in = OnDevice(tensor);
    Tensor out = Tensor::Empty(in.dtype(), in.shape(), in.device());
    Run(what, in, [&] {
      return ncclBroadcast(in.raw_data(), out.raw_data(), in.nbytes(), ncclUint8, root, comm_,
                           context_->stream());
    });
    return out;
  }

  Tensor all_gather(const Tensor& tensor) override {
    backend_internal::CheckMovableBytes("all_gather", tensor.dtype());
    const Tensor in = OnDevice(tensor);
    std::vector<int64_t> dims = {size_};
    for (int64_t d : in.shape().dims()) dims.push_back(d);
    Tensor out = Tensor::Empty(in.dtype(), Shape(dims), in.device());
    Run("all_gather", in, [&] {
      return ncclAllGather(in.raw_data(), out.raw_data(), in.nbytes(), ncclUint8, comm_,
                           context_->stream());
    });
    return out;
  }

  void barrier() override {
    all_reduce(Tensor::Empty(kInt32, Shape({1}), Device::cuda(context_->index())), ReduceOp::kSum);
  }

 private:
  // `tensor` on this rank's GPU, copied by the runtime: this runs inside the collective ops'
  // kernels, where an op call (Tensor::to) would be recorded on a tape or in a graph being built.
  Tensor OnDevice(const Tensor& tensor) const {
    const Device device = Device::cuda(context_->index());
    if (tensor.device() == device) return tensor;
    Tensor copy = Tensor::Empty(tensor.dtype(), tensor.shape(), device);
    ThrowIfFailed(cuda::CopyBytes(copy.raw_data(), device, tensor.raw_data(), tensor.device(),
                                  tensor.nbytes()));
    return copy;
  }

  // Enqueues a collective on the device's stream (after the kernels that made its input, Note
  // [One stream per device]) and waits for it. The watchdog: a collective not done within the
  // timeout, or one NCCL reports failed, aborts the communicator and throws.
  template <typename Enqueue>
  void Run(const std::string& what, const Tensor& tensor, Enqueue enqueue) {
    if (broken_)
      Fail(what, tensor, Clock::now(), "the communicator was aborted earlier",
           absl::FailedPreconditionError);
    if (tensor.num_elements() == 0) return;  // every rank skips alike
    ThrowIfFailed(context_->MakeCurrent());
    const Clock::time_point begin = Clock::now();
    ncclResult_t result = enqueue();
    if (result != ncclSuccess && result != ncclInProgress) {
      Fail(what, tensor, begin, ncclGetErrorString(result), absl::UnavailableError);
    }
    // The wait is for this collective, not for whatever else the stream gets meanwhile (the
    // kernels another thread launches while an async all-reduce runs): an event after it.
    cudaEvent_t event;
    ThrowIfFailed(cuda::CudaStatus(cudaEventCreateWithFlags(&event, cudaEventDisableTiming),
                                   "cudaEventCreateWithFlags"));
    const absl::Cleanup destroy = [event] { cudaEventDestroy(event); };
    ThrowIfFailed(cuda::CudaStatus(cudaEventRecord(event, context_->stream()), "cudaEventRecord"));
    while (true) {
      const cudaError_t done = cudaEventQuery(event);
      if (done == cudaSuccess) return;
      if (done != cudaErrorNotReady) {
        ThrowIfFailed(cuda::CudaStatus(done, what));
      }
      ncclResult_t async = ncclSuccess;
      ncclCommGetAsyncError(comm_, &async);
      if (async != ncclSuccess && async != ncclInProgress) {
        Abort();
        Fail(what, tensor, begin, ncclGetErrorString(async), absl::UnavailableError);
      }
      if (Clock::now() - begin > timeout_) {
        Abort();
        Fail(what, tensor, begin, "timed out (the communicator was aborted)",
             absl::DeadlineExceededError);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

  void Abort() {
    broken_ = true;
    ncclCommAbort(comm_);
  }

  template <typename MakeStatus>
  [[noreturn]] void Fail(const std::string& what, const Tensor& tensor, Clock::time_point begin,
                         const std::string& cause, MakeStatus make_status) const {
    throw Error(make_status(backend_internal::FailureMessage(*this, what, tensor, begin, cause)));
  }

  ncclComm_t comm_;
  cuda::DeviceContext* context_;
  int rank_, size_;
  std::chrono::milliseconds timeout_;
  bool broken_ = false;
};

}  // namespace

std::shared_ptr<Backend> ConnectNccl(Backend& bootstrap, const NcclOptions& options) {
  cuda::DeviceContext* context = ValueOrThrow(cuda::CurrentContext(Device::cuda(options.device)));
  // Rank 0's unique id, 128 bytes, reaches the others as 32 int32s over the CPU backend.
  static_assert(sizeof(ncclUniqueId) % sizeof(int32_t) == 0);
  constexpr int64_t kWords = sizeof(ncclUniqueId) / sizeof(int32_t);
  Tensor id_words = Tensor::Empty(kInt32, Shape({kWords}));
  ncclUniqueId id;
  std::memset(&id, 0, sizeof(id));
  if (bootstrap.rank() == 0) {
    const ncclResult_t made = ncclGetUniqueId(&id);
    if (made != ncclSuccess) {
      throw Error(absl::UnavailableError(
          absl::StrCat("distribute (nccl): ncclGetUniqueId failed: ", ncclGetErrorString(made))));
    }
  }
  std::memcpy(id_words.raw_data(), &id, sizeof(id));
  const Tensor shared = bootstrap.broadcast(id_words, 0);
  std::memcpy(&id, shared.raw_data(), sizeof(id));
  ncclComm_t comm;
  const ncclResult_t joined = ncclCommInitRank(&comm, bootstrap.size(), id, bootstrap.rank());
  if (joined != ncclSuccess) {
    throw Error(absl::UnavailableError(
        absl::StrCat("distribute (nccl): rank ", bootstrap.rank(), " of ", bootstrap.size(),
                     ": ncclCommInitRank failed: ", ncclGetErrorString(joined))));
  }
  return std::make_shared<NcclBackend>(comm, context, bootstrap.rank(), bootstrap.size(),
                                       options.timeout);
}

}  // namespace duet::distribute
