// distribute::Communicator: the ranks of a data-parallel job and the collectives among them.
// Its collectives are ops (collective_ops.h): eagerly they run at once; in duet::function traces,
// Sessions and exported graphs they are CollectiveReduceV2/GatherV2/BcastSendV2/BcastRecvV2
// nodes, so a training step that averages its gradients traces like any other.
#pragma once

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>

#include "core/tensor.h"
#include "distribute/backend.h"
#include "ops/op_site.h"

namespace duet::distribute {

// The result of an asynchronous collective (Communicator::all_reduce_async, ...).
class Work {
 public:
  // Blocks until the collective is done and returns its result, or throws its Error.
  Tensor wait() const;
  // Whether wait() would return at once.
  bool done() const;

 private:
  friend class Communicator;
  explicit Work(std::shared_future<Tensor> result) : result_(std::move(result)) {}
  std::shared_future<Tensor> result_;
};

class Communicator {
 public:
  // None: defined() is false, and every collective throws.
  Communicator() = default;
  // Registers `backend` as a group of its own (Note [Collective groups]) for as long as a copy of
  // this communicator lives. Copies share the backend.
  explicit Communicator(std::shared_ptr<Backend> backend);

  bool defined() const { return group_ != nullptr; }
  int rank() const;
  int size() const;
  // "gloo", "mpi".
  std::string backend() const;
  std::chrono::milliseconds timeout() const;
  // The group_key of its collective ops.
  int group_key() const;

  // Every rank passes a tensor of the same dtype and shape; each gets the elementwise reduction
  // (kMean: the sum divided by size(); integers divide as C++ does), on the input's device.
  // float32, float64, int32, int64. Differentiable for kSum and kMean.
  Tensor all_reduce(const Tensor& x, ReduceOp op = ReduceOp::kSum, OpSite site = {}) const;
  // root's tensor, on every rank (the others' tensors give the dtype and shape and must match).
  Tensor broadcast(const Tensor& x, int root = 0, OpSite site = {}) const;
  // The ranks' tensors (same dtype and shape) stacked along a new axis 0, in rank order.
  Tensor all_gather(const Tensor& x, OpSite site = {}) const;
  // Returns once every rank has called it (eagerly, not an op).
  void barrier() const;

  // Note [Asynchronous collectives]: the same collectives started on a thread of their own, for
  // overlapping communication with computation eagerly (PyTorch's async_op=True). They run in the
  // order they were started, each after the one before, and a synchronous collective (or
  // barrier) first waits for those started before it, so every rank keeps one order. The
  // Communicator must outlive their Works' wait(). Eagerly only: in a duet::function the
  // collectives are nodes of the plan (FailedPrecondition).
  Work all_reduce_async(const Tensor& x, ReduceOp op = ReduceOp::kSum) const;
  Work broadcast_async(const Tensor& x, int root = 0) const;
  Work all_gather_async(const Tensor& x) const;

  // The backend itself, whose collectives skip the ops (host tensors, eagerly only).
  Backend& backend_impl() const;

 private:
  struct Group;
  const Group& group() const;
  // The collectives themselves, on `g`'s backend.
  static Tensor AllReduceOn(const Group& g, const Tensor& x, ReduceOp op, OpSite site);
  static Tensor BroadcastOn(const Group& g, const Tensor& x, int root, OpSite site);
  static Tensor AllGatherOn(const Group& g, const Tensor& x, OpSite site);
  // Waits for the asynchronous collectives started before (Note [Asynchronous collectives]).
  void AfterAsync() const;
  // Starts `collective` on a thread of its own, after the asynchronous ones started before.
  Work Async(std::function<Tensor(const Group&)> collective) const;
  std::shared_ptr<const Group> group_;
};

// The communicator distribute::init() made last in this process, which the functions without a
// communicator argument use; throws FailedPrecondition when init() has not run.
const Communicator& default_communicator();
void set_default_communicator(const Communicator& communicator);

// default_communicator()'s collectives.
Tensor all_reduce(const Tensor& x, ReduceOp op = ReduceOp::kSum, OpSite site = {});
Tensor broadcast(const Tensor& x, int root = 0, OpSite site = {});
Tensor all_gather(const Tensor& x, OpSite site = {});

}  // namespace duet::distribute
