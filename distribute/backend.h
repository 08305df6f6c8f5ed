// distribute::Backend: the collectives data-parallel training needs (all-reduce, broadcast,
// all-gather, barrier) among the ranks of a job, as one collective library (Gloo, MPI) does them
// on host tensors. Programs use them through a Communicator (communicator.h), whose collectives
// are ops; the ops' kernels call a Backend.
#pragma once

#include <chrono>
#include <string>

#include "core/error.h"
#include "core/tensor.h"

namespace duet::distribute {

enum class ReduceOp { kSum, kMean, kMin, kMax, kProduct };
std::string ReduceOpName(ReduceOp op);

// Note [Collective timeouts]: every collective waits at most its communicator's timeout (the
// default 300 s, as TensorFlow's and PyTorch's). A rank that died or stalls makes the others
// fail with an Error (DeadlineExceeded or Unavailable) naming this rank, the collective, the
// tensor and the time waited: never a hang.
inline constexpr std::chrono::milliseconds kDefaultTimeout{300'000};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // "gloo", "mpi", "nccl".
  virtual std::string name() const = 0;
  virtual std::chrono::milliseconds timeout() const = 0;
  // Whether the collectives take tensors in `device`'s memory as they are (NCCL: its GPU); the
  // collective ops' kernels copy the others' to the host first (Gloo, MPI: host memory only).
  virtual bool works_on(Device device) const { return device.is_host(); }

  // Each collective returns once it is done, its result in host memory, or on the input's device
  // for a device it works_on.
  //
  // Every rank passes a tensor of the same dtype and shape; each gets the elementwise reduction
  // (kMean: the sum divided by size(); integers divide as C++ does). float32, float64, int32,
  // int64.
  virtual Tensor all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::kSum) = 0;
  // root's tensor, on every rank (the others' tensors give the dtype and shape and must match).
  // Any dtype but string, resource and variant: broadcasts and gathers move bytes.
  virtual Tensor broadcast(const Tensor& tensor, int root = 0) = 0;
  // The ranks' tensors (same dtype and shape) stacked along a new axis 0, in rank order. Any
  // dtype but string, resource and variant.
  virtual Tensor all_gather(const Tensor& tensor) = 0;
  // Returns once every rank has called it.
  virtual void barrier() = 0;
};

// For the backends.
namespace backend_internal {
// A copy of `tensor`'s values in host memory, which a collective then works in.
Tensor HostCopy(const Tensor& tensor);
// `tensor` itself when it is in host memory, else a host copy: an input a collective only reads.
Tensor OnHost(const Tensor& tensor);
// kMean's last step: every element of a summed `tensor` (host memory) divided by `size`, as C++
// divides (integers truncate).
void DivideBySize(Tensor& tensor, int size);
// The message of a collective that failed (Note [Collective timeouts]): "distribute (gloo): rank
// 0 of 2: all_reduce (sum) of float32 (4,) failed after 1.5 s (timeout 1.5 s): <cause>" (no
// tensor part for an undefined tensor, as a barrier's).
std::string FailureMessage(const Backend& backend, const std::string& what, const Tensor& tensor,
                           std::chrono::steady_clock::time_point began, const std::string& cause);
// The InvalidArgument Error for a dtype an all-reduce does not take.
Error UnsupportedDType(const std::string& what, DType dtype);
// Throws InvalidArgument unless `dtype`'s elements are plain bytes (not string, resource or
// variant), which broadcasts and gathers move as they are.
void CheckMovableBytes(const std::string& what, DType dtype);
}  // namespace backend_internal

}  // namespace duet::distribute
