#include "distribute/gloo_backend.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/error.h"
#include "distribute/tcp_store.h"

namespace duet::distribute {
namespace {

using backend_internal::HostCopy;
using backend_internal::OnHost;
using Clock = std::chrono::steady_clock;
using ReduceFn = void (*)(void*, const void*, const void*, size_t);

template <typename T>
ReduceFn ReduceOf(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kMean:
      return static_cast<ReduceFn>(&gloo::sum<T>);
    case ReduceOp::kProduct:
      return static_cast<ReduceFn>(&gloo::product<T>);
    case ReduceOp::kMin:
      return static_cast<ReduceFn>(&gloo::min<T>);
    case ReduceOp::kMax:
      return static_cast<ReduceFn>(&gloo::max<T>);
  }
  return nullptr;
}

// Calls fn<T>() for the dtype's element type T; throws for the dtypes collectives do not take.
template <typename Fn>
void ForDType(DType dtype, const std::string& what, Fn&& fn) {
  switch (dtype) {
    case kFloat32:
      return fn(float{});
    case kFloat64:
      return fn(double{});
    case kInt32:
      return fn(int32_t{});
    case kInt64:
      return fn(int64_t{});
    default:
      throw backend_internal::UnsupportedDType(what, dtype);
  }
}

class GlooBackend : public Backend {
 public:
  GlooBackend(std::shared_ptr<gloo::Context> context, std::chrono::milliseconds timeout)
      : context_(std::move(context)), timeout_(timeout) {}

  int rank() const override { return context_->rank; }
  int size() const override { return context_->size; }
  std::string name() const override { return "gloo"; }
  std::chrono::milliseconds timeout() const override { return timeout_; }

  Tensor all_reduce(const Tensor& tensor, ReduceOp op) override {
    const std::string what = absl::StrCat("all_reduce (", ReduceOpName(op), ")");
    // Separate input and output buffers: no copy of the input first.
    const Tensor in = OnHost(tensor);
    Tensor out = Tensor::Empty(in.dtype(), in.shape());
    const size_t n = static_cast<size_t>(out.num_elements());
    ForDType(out.dtype(), what, [&](auto zero) {
      using T = decltype(zero);
      Run(what, tensor, [&] {
        gloo::AllreduceOptions opts(context_);
        opts.setTimeout(timeout_);
        opts.setInput<T>(const_cast<T*>(in.data<T>()), n);  // read only
        opts.setOutput<T>(out.mutable_data<T>(), n);
        opts.setReduceFunction(ReduceOf<T>(op));
        gloo::allreduce(opts);
      });
    });
    if (op == ReduceOp::kMean) backend_internal::DivideBySize(out, size());
    return out;
  }

  Tensor broadcast(const Tensor& tensor, int root) override {
    const std::string what = absl::StrCat("broadcast (root ", root, ")");
    if (root < 0 || root >= size()) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat(what, ": the root is not a rank of this job of ", size())));
    }
    backend_internal::CheckMovableBytes(what, tensor.dtype());
    Tensor out = HostCopy(tensor);
    Run(what, tensor, [&] {
      gloo::BroadcastOptions opts(context_);
      opts.setTimeout(timeout_);
      opts.setRoot(root);
      opts.setOutput<uint8_t>(static_cast<uint8_t*>(out.raw_data()), out.nbytes());
      gloo::broadcast(opts);
    });
    return out;
  }

  Tensor all_gather(const Tensor& tensor) override {
    backend_internal::CheckMovableBytes("all_gather", tensor.dtype());
    const Tensor in = OnHost(tensor);
    std::vector<int64_t> dims = {size()};
    for (int64_t d : in.shape().dims()) dims.push_back(d);
    Tensor out = Tensor::Empty(in.dtype(), Shape(dims));
    Run("all_gather", tensor, [&] {
      gloo::AllgatherOptions opts(context_);
      opts.setTimeout(timeout_);
      opts.setInput<uint8_t>(static_cast<uint8_t*>(in.raw_data()), in.nbytes());
      opts.setOutput<uint8_t>(static_cast<uint8_t*>(out.raw_data()), out.nbytes());
      gloo::allgather(opts);
    });
    return out;
  }

  void barrier() override {
    Run("barrier", Tensor(), [&] {
      gloo::BarrierOptions opts(context_);
      opts.setTimeout(timeout_);
      gloo::barrier(opts);
    });
  }

 private:
  // Runs a collective; a failure (a peer gone, a timeout) becomes an Error naming this rank,
  // the collective, the tensor and the time waited (Note [Collective timeouts]).
  void Run(const std::string& what, const Tensor& tensor, const std::function<void()>& call) {
    if (tensor.defined() && tensor.num_elements() == 0) return;  // every rank skips alike
    const Clock::time_point start = Clock::now();
    try {
      call();
    } catch (const std::exception& e) {
      const std::string message =
          backend_internal::FailureMessage(*this, what, tensor, start, e.what());
      const std::string cause = absl::AsciiStrToLower(e.what());
      const bool timed_out =
          absl::StrContains(cause, "timed out") || absl::StrContains(cause, "timeout");
      throw Error(timed_out ? absl::DeadlineExceededError(message)
                            : absl::UnavailableError(message));
    }
  }

  std::shared_ptr<gloo::Context> context_;
  std::chrono::milliseconds timeout_;
};

}  // namespace

std::shared_ptr<Backend> ConnectGloo(int rank, int size, const GlooOptions& options) {
  if (size < 1 || rank < 0 || rank >= size) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("ConnectGloo: rank ", rank, " is not a rank of a job of ", size)));
  }
  const bool tcp = !options.master_addr.empty();
  if (!tcp && options.rendezvous_dir.empty()) {
    throw Error(absl::InvalidArgumentError(
        "ConnectGloo: GlooOptions has neither a rendezvous_dir nor a master_addr"));
  }
  const std::string where =
      tcp ? absl::StrCat("tcp://", options.master_addr, ":", options.master_port)
          : options.rendezvous_dir;
  if (!tcp) {
    std::error_code ec;
    std::filesystem::create_directories(options.rendezvous_dir, ec);
    if (ec) {
      throw Error(absl::UnavailableError(absl::StrCat(
          "ConnectGloo: cannot make the rendezvous directory '", where, "': ", ec.message())));
    }
  }
  const Clock::time_point start = Clock::now();
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = options.hostname;
    std::shared_ptr<gloo::transport::Device> device = gloo::transport::tcp::CreateDevice(attr);
    std::unique_ptr<gloo::rendezvous::Store> store;
    if (tcp) {
      store = std::make_unique<TcpStore>(options.master_addr, options.master_port, rank == 0,
                                         options.timeout);
    } else {
      store = std::make_unique<gloo::rendezvous::FileStore>(options.rendezvous_dir);
    }
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    context->setTimeout(options.timeout);
    context->connectFullMesh(*store, device);
    if (tcp) {  // every rank is done with rank 0's store before it goes (Note [TCP rendezvous])
      gloo::BarrierOptions barrier(context);
      barrier.setTimeout(options.timeout);
      gloo::barrier(barrier);
    }
    return std::make_shared<GlooBackend>(std::move(context), options.timeout);
  } catch (const std::exception& e) {
    const double waited = std::chrono::duration<double>(Clock::now() - start).count();
    throw Error(absl::UnavailableError(absl::StrFormat(
        "distribute (gloo): rank %d of %d: the rendezvous in '%s' failed after %.1f s (timeout "
        "%g s; are all %d ranks started?): %s",
        rank, size, where, waited, std::chrono::duration<double>(options.timeout).count(), size,
        e.what())));
  }
}

}  // namespace duet::distribute
