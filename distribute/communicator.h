// distribute::Communicator: the collectives data-parallel training needs (all-reduce, broadcast,
// all-gather, barrier) among the ranks of a job, over a collective library (Gloo here; MPI and
// NCCL are the next backends: docs/distributed.md).
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

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string backend() const = 0;

  // Every rank passes a tensor of the same dtype and shape; each gets the elementwise reduction
  // (kMean: the sum divided by size(); integers divide as C++ does). float32, float64, int32,
  // int64.
  virtual Tensor all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::kSum) = 0;
  // root's tensor, on every rank (the others' tensors give the dtype and shape and must match).
  virtual Tensor broadcast(const Tensor& tensor, int root = 0) = 0;
  // The ranks' tensors (same dtype and shape) stacked along a new axis 0, in rank order.
  virtual Tensor all_gather(const Tensor& tensor) = 0;
  // Returns once every rank has called it.
  virtual void barrier() = 0;
};

// For the backends.
namespace communicator_internal {
// A copy of `tensor`'s values in host memory, which a collective then works in.
Tensor HostCopy(const Tensor& tensor);
// kMean's last step: every element of a summed `tensor` (host memory) divided by `size`, as C++
// divides (integers truncate).
void DivideBySize(Tensor& tensor, int size);
// The InvalidArgument Error for a dtype collectives do not take.
Error UnsupportedDType(const std::string& what, DType dtype);
}  // namespace communicator_internal

}  // namespace duet::distribute
