#include "distribute/communicator.h"

#include <future>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/constant.h"
#include "core/error.h"
#include "distribute/collective_groups.h"
#include "distribute/collective_ops.h"
#include "eager/device_scope.h"
#include "eager/variable.h"
#include "ops/array/array_ops.h"
#include "ops/execution_context.h"

namespace duet::distribute {

struct Communicator::Group {
  std::shared_ptr<Backend> backend;
  int key = 0;
  // Note [Collective order] (collective_ops.h): a resource every reduce and gather takes, so a
  // graph orders them as the program made them. A host variable nothing reads.
  Variable ordering_token;

  // The last asynchronous collective started (Note [Asynchronous collectives]).
  mutable std::mutex async_mu;
  mutable std::shared_future<Tensor> last_async;

  ~Group() {
    if (last_async.valid()) last_async.wait();  // its thread uses this group
    UnregisterGroup(key);
  }
  CollectiveKeys NewKeys() const { return {backend->size(), key, NextInstanceKey()}; }
};

Tensor Work::wait() const {
  if (!result_.valid()) {
    throw Error(absl::FailedPreconditionError("Work::wait: this Work has no collective"));
  }
  return result_.get();  // rethrows the collective's Error
}

bool Work::done() const {
  return result_.valid() && result_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

Communicator::Communicator(std::shared_ptr<Backend> backend) {
  if (backend == nullptr) {
    throw Error(absl::InvalidArgumentError("Communicator: the backend is null"));
  }
  auto group = std::make_shared<Group>();
  group->key = RegisterGroup(backend);
  group->backend = std::move(backend);
  DeviceScope host(Device::cpu());
  group->ordering_token = Variable(constant(0), "collective_ordering_token", /*trainable=*/false);
  group_ = std::move(group);
}

const Communicator::Group& Communicator::group() const {
  if (group_ == nullptr) {
    throw Error(absl::FailedPreconditionError(
        "this Communicator is empty; distribute::init() returns the job's communicator"));
  }
  return *group_;
}

int Communicator::rank() const { return group().backend->rank(); }
int Communicator::size() const { return group().backend->size(); }
std::string Communicator::backend() const { return group().backend->name(); }
std::chrono::milliseconds Communicator::timeout() const { return group().backend->timeout(); }
int Communicator::group_key() const { return group().key; }
Backend& Communicator::backend_impl() const { return *group().backend; }

namespace {

// CollectiveReduceV2's merge_op for `op`.
const char* MergeOp(ReduceOp op) {
  return op == ReduceOp::kSum || op == ReduceOp::kMean ? "Add"
         : op == ReduceOp::kProduct                    ? "Mul"
         : op == ReduceOp::kMin                        ? "Min"
                                                       : "Max";
}

}  // namespace

Tensor Communicator::AllReduceOn(const Group& g, const Tensor& x, ReduceOp op, OpSite site) {
  return collective_reduce_v2(x, g.NewKeys(), {g.ordering_token.handle()}, MergeOp(op),
                              op == ReduceOp::kMean ? "Div" : "Id", site);
}

Tensor Communicator::BroadcastOn(const Group& g, const Tensor& x, int root, OpSite site) {
  if (root < 0 || root >= g.backend->size()) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "broadcast: root ", root, " is not a rank of this job of ", g.backend->size())));
  }
  if (g.backend->rank() == root) return collective_bcast_send_v2(x, g.NewKeys(), site);
  return collective_bcast_recv_v2(x.dtype(), x.shape(), g.NewKeys(), site);
}

Tensor Communicator::AllGatherOn(const Group& g, const Tensor& x, OpSite site) {
  return collective_gather_v2(expand_dims(x, 0, site), g.NewKeys(), {g.ordering_token.handle()},
                              site);
}

void Communicator::AfterAsync() const {
  if (!executing_eagerly()) return;  // a graph node: it runs in the plan's order
  const Group& g = group();
  std::shared_future<Tensor> previous;
  {
    std::lock_guard<std::mutex> lock(g.async_mu);
    previous = g.last_async;
  }
  if (previous.valid()) previous.wait();  // its error is its Work's
}

Tensor Communicator::all_reduce(const Tensor& x, ReduceOp op, OpSite site) const {
  AfterAsync();
  return AllReduceOn(group(), x, op, site);
}

Tensor Communicator::broadcast(const Tensor& x, int root, OpSite site) const {
  AfterAsync();
  return BroadcastOn(group(), x, root, site);
}

Tensor Communicator::all_gather(const Tensor& x, OpSite site) const {
  AfterAsync();
  return AllGatherOn(group(), x, site);
}

void Communicator::barrier() const {
  AfterAsync();
  group().backend->barrier();
}

Work Communicator::Async(std::function<Tensor(const Group&)> collective) const {
  if (!executing_eagerly()) {
    throw Error(absl::FailedPreconditionError(
        "asynchronous collectives run eagerly; in a duet::function or a graph use all_reduce, "
        "broadcast or all_gather (their nodes run in the plan's order)"));
  }
  const Group& g = group();
  std::lock_guard<std::mutex> lock(g.async_mu);
  // The thread holds the group by pointer: ~Group waits for it (a Communicator it held could be
  // the last, and the group would then wait for the thread that destroys it).
  g.last_async = std::async(std::launch::async, [previous = g.last_async, group = &g,
                                                 collective = std::move(collective)] {
                   if (previous.valid()) previous.wait();
                   return collective(*group);
                 }).share();
  return Work(g.last_async);
}

Work Communicator::all_reduce_async(const Tensor& x, ReduceOp op) const {
  return Async([x, op](const Group& g) { return AllReduceOn(g, x, op, OpSite()); });
}

Work Communicator::broadcast_async(const Tensor& x, int root) const {
  return Async([x, root](const Group& g) { return BroadcastOn(g, x, root, OpSite()); });
}

Work Communicator::all_gather_async(const Tensor& x) const {
  return Async([x](const Group& g) { return AllGatherOn(g, x, OpSite()); });
}

namespace {

absl::Mutex default_mu;
Communicator* default_comm ABSL_GUARDED_BY(default_mu) = nullptr;

}  // namespace

const Communicator& default_communicator() {
  absl::MutexLock lock(&default_mu);
  if (default_comm == nullptr) {
    throw Error(absl::FailedPreconditionError(
        "no communicator yet: call distribute::init() first (it joins the job `duet launch` or "
        "mpirun started)"));
  }
  return *default_comm;
}

void set_default_communicator(const Communicator& communicator) {
  absl::MutexLock lock(&default_mu);
  // Kept for the process' lifetime: references default_communicator() returned stay valid.
  if (default_comm == nullptr) {
    default_comm = new Communicator(communicator);
  } else {
    *default_comm = communicator;
  }
}

Tensor all_reduce(const Tensor& x, ReduceOp op, OpSite site) {
  return default_communicator().all_reduce(x, op, site);
}
Tensor broadcast(const Tensor& x, int root, OpSite site) {
  return default_communicator().broadcast(x, root, site);
}
Tensor all_gather(const Tensor& x, OpSite site) {
  return default_communicator().all_gather(x, site);
}

}  // namespace duet::distribute
