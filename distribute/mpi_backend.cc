#include "distribute/mpi_backend.h"

#include <mpi.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/error.h"

namespace duet::distribute {
namespace {

using backend_internal::HostCopy;
using backend_internal::OnHost;
using Clock = std::chrono::steady_clock;

MPI_Datatype MpiType(DType dtype, const std::string& what) {
  switch (dtype) {
    case kFloat32:
      return MPI_FLOAT;
    case kFloat64:
      return MPI_DOUBLE;
    case kInt32:
      return MPI_INT32_T;
    case kInt64:
      return MPI_INT64_T;
    default:
      throw backend_internal::UnsupportedDType(what, dtype);
  }
}

MPI_Op MpiOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kMean:
      return MPI_SUM;
    case ReduceOp::kProduct:
      return MPI_PROD;
    case ReduceOp::kMin:
      return MPI_MIN;
    case ReduceOp::kMax:
      return MPI_MAX;
  }
  return MPI_SUM;
}

// Set when a collective timed out: the job cannot go on (its peers wait inside it), so it is
// ended with MPI_Abort, by the backend's destructor or, if the backend outlives main (the default
// communicator), at exit instead of MPI_Finalize, which would wait for those peers.
std::atomic<bool> job_broken{false};

class MpiBackend : public Backend {
 public:
  MpiBackend(MPI_Comm comm, std::chrono::milliseconds timeout) : comm_(comm), timeout_(timeout) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  // A collective that timed out leaves its peers waiting in it: the job cannot go on, so the
  // communicator ends it (MPI_Abort) rather than let the others hang.
  ~MpiBackend() override {
    if (broken_) MPI_Abort(comm_, 1);
    MPI_Comm_free(&comm_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override { return "mpi"; }
  std::chrono::milliseconds timeout() const override { return timeout_; }

  Tensor all_reduce(const Tensor& tensor, ReduceOp op) override {
    const std::string what = absl::StrCat("all_reduce (", ReduceOpName(op), ")");
    // Separate send and receive buffers: no copy of the input first.
    const Tensor in = OnHost(tensor);
    Tensor out = Tensor::Empty(in.dtype(), in.shape());
    const MPI_Datatype type = MpiType(out.dtype(), what);
    Wait(what, tensor, [&](MPI_Request* request) {
      return MPI_Iallreduce(in.raw_data(), out.raw_data(), static_cast<int>(out.num_elements()),
                            type, MpiOp(op), comm_, request);
    });
    if (op == ReduceOp::kMean) backend_internal::DivideBySize(out, size_);
    return out;
  }

  Tensor broadcast(const Tensor& tensor, int root) override {
    const std::string what = absl::StrCat("broadcast (root ", root, ")");
    if (root < 0 || root >= size_) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat(what, ": the root is not a rank of this job of ", size_)));
    }
    backend_internal::CheckMovableBytes(what, tensor.dtype());
    Tensor out = HostCopy(tensor);
    Wait(what, tensor, [&](MPI_Request* request) {
      return MPI_Ibcast(out.raw_data(), static_cast<int>(out.nbytes()), MPI_BYTE, root, comm_,
                        request);
    });
    return out;
  }

  Tensor all_gather(const Tensor& tensor) override {
    backend_internal::CheckMovableBytes("all_gather", tensor.dtype());
    const Tensor in = OnHost(tensor);
    std::vector<int64_t> dims = {size_};
    for (int64_t d : in.shape().dims()) dims.push_back(d);
    Tensor out = Tensor::Empty(in.dtype(), Shape(dims));
    const int n = static_cast<int>(in.nbytes());
    Wait("all_gather", tensor, [&](MPI_Request* request) {
      return MPI_Iallgather(in.raw_data(), n, MPI_BYTE, out.raw_data(), n, MPI_BYTE, comm_,
                            request);
    });
    return out;
  }

  void barrier() override {
    Wait("barrier", Tensor(), [&](MPI_Request* request) { return MPI_Ibarrier(comm_, request); });
  }

 private:
  template <typename Start>
  void Wait(const std::string& what, const Tensor& tensor, Start start) {
    if (tensor.defined() && tensor.num_elements() == 0) return;  // every rank skips alike
    const Clock::time_point begin = Clock::now();
    MPI_Request request;
    int code = start(&request);
    int done = 0;
    while (code == MPI_SUCCESS && !done) {
      code = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done || code != MPI_SUCCESS) break;
      if (Clock::now() - begin > timeout_) {
        broken_ = true;
        job_broken = true;
        Fail(what, tensor, begin, "timed out", absl::DeadlineExceededError);
      }
      // Open MPI advances a non-blocking collective only inside MPI_Test: poll without sleeping
      // for the first milliseconds (a 1 MB all-reduce took 3x MPI_Allreduce's time with 50 us
      // naps between polls), then nap so that a long wait does not burn a core.
      if (Clock::now() - begin < std::chrono::milliseconds(5)) {
        std::this_thread::yield();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    }
    if (code != MPI_SUCCESS) {
      char text[MPI_MAX_ERROR_STRING];
      int length = 0;
      MPI_Error_string(code, text, &length);
      Fail(what, tensor, begin, std::string(text, length), absl::UnavailableError);
    }
  }

  // Throws the Error of a failed collective. A timed-out one (broken_) also goes to stderr at
  // once: the communicator's destructor aborts the job, maybe before anyone prints the Error.
  template <typename MakeStatus>
  [[noreturn]] void Fail(const std::string& what, const Tensor& tensor, Clock::time_point begin,
                         const std::string& cause, MakeStatus make_status) {
    const absl::Status status =
        make_status(backend_internal::FailureMessage(*this, what, tensor, begin, cause));
    if (broken_) std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
    throw Error(status);
  }

  MPI_Comm comm_;
  std::chrono::milliseconds timeout_;
  int rank_ = 0, size_ = 1;
  bool broken_ = false;
};

}  // namespace

bool LaunchedByMpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr ||
         std::getenv("PMIX_RANK") != nullptr;
}

std::shared_ptr<Backend> ConnectMpi(const MpiOptions& options) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
      throw Error(absl::UnavailableError("distribute (mpi): MPI_Init_thread failed"));
    }
    std::atexit([] {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (finalized) return;
      if (job_broken) MPI_Abort(MPI_COMM_WORLD, 1);
      MPI_Finalize();
    });
  }
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  return std::make_shared<MpiBackend>(comm, options.timeout);
}

}  // namespace duet::distribute
