#include "distribute/mpi_communicator.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/error.h"

namespace duet::distribute {
namespace {

using communicator_internal::HostCopy;
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
      throw communicator_internal::UnsupportedDType(what, dtype);
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

class MpiCommunicator : public Communicator {
 public:
  MpiCommunicator(MPI_Comm comm, std::chrono::milliseconds timeout)
      : comm_(comm), timeout_(timeout) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  // A collective that timed out leaves its peers waiting in it: the job cannot go on, so the
  // communicator ends it (MPI_Abort) rather than let the others hang.
  ~MpiCommunicator() override {
    if (broken_) MPI_Abort(comm_, 1);
    MPI_Comm_free(&comm_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return "mpi"; }

  Tensor all_reduce(const Tensor& tensor, ReduceOp op) override {
    const std::string what = absl::StrCat("all_reduce (", ReduceOpName(op), ")");
    Tensor out = HostCopy(tensor);
    const MPI_Datatype type = MpiType(out.dtype(), what);
    Wait(what, tensor, [&](MPI_Request* request) {
      return MPI_Iallreduce(MPI_IN_PLACE, out.raw_data(), static_cast<int>(out.num_elements()),
                            type, MpiOp(op), comm_, request);
    });
    if (op == ReduceOp::kMean) communicator_internal::DivideBySize(out, size_);
    return out;
  }

  Tensor broadcast(const Tensor& tensor, int root) override {
    const std::string what = absl::StrCat("broadcast (root ", root, ")");
    if (root < 0 || root >= size_) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat(what, ": the root is not a rank of this job of ", size_)));
    }
    Tensor out = HostCopy(tensor);
    const MPI_Datatype type = MpiType(out.dtype(), what);
    Wait(what, tensor, [&](MPI_Request* request) {
      return MPI_Ibcast(out.raw_data(), static_cast<int>(out.num_elements()), type, root, comm_,
                        request);
    });
    return out;
  }

  Tensor all_gather(const Tensor& tensor) override {
    const Tensor in = HostCopy(tensor);
    std::vector<int64_t> dims = {size_};
    for (int64_t d : in.shape().dims()) dims.push_back(d);
    Tensor out = Tensor::Empty(in.dtype(), Shape(dims));
    const MPI_Datatype type = MpiType(in.dtype(), "all_gather");
    const int n = static_cast<int>(in.num_elements());
    Wait("all_gather", tensor, [&](MPI_Request* request) {
      return MPI_Iallgather(in.raw_data(), n, type, out.raw_data(), n, type, comm_, request);
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
        Fail(what, tensor, begin, "timed out", absl::DeadlineExceededError);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
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
    const double waited = std::chrono::duration<double>(Clock::now() - begin).count();
    const absl::Status status = make_status(absl::StrFormat(
        "distribute (mpi): rank %d of %d: %s%s failed after %.1f s (timeout %g s): %s", rank_,
        size_, what,
        tensor.defined()
            ? absl::StrCat(" of ", DTypeName(tensor.dtype()), " ", tensor.shape().str())
            : "",
        waited, std::chrono::duration<double>(timeout_).count(), cause));
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

std::unique_ptr<Communicator> ConnectMpi(const MpiOptions& options) {
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
      if (!finalized) MPI_Finalize();
    });
  }
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  return std::make_unique<MpiCommunicator>(comm, options.timeout);
}

}  // namespace duet::distribute
