// DistributedGradientTape: a GradientTape whose gradients are averaged over the ranks of a job,
// in buckets, as data-parallel training needs (Horovod's DistributedGradientTape).
#pragma once

#include <cstdint>
#include <vector>

#include "distribute/communicator.h"
#include "eager/gradient_tape.h"
#include "eager/variable.h"

namespace duet::distribute {

// PyTorch DDP's default bucket size: small gradients share one collective.
inline constexpr int64_t kDefaultBucketBytes = 25 << 20;

// Note [Gradient buckets]: the gradients, in the order given, go into buckets of at most
// bucket_bytes (a larger one alone) of one dtype and device each; each bucket is one all_reduce
// (mean) of the gradients laid end to end (Reshape, ConcatV2, CollectiveReduceV2, SplitV: ops, so
// a traced step does the same), then split back. The order and the buckets depend only on the
// variables, the same on every rank, so every rank gets the same bits. Undefined gradients (a
// variable the target does not depend on) stay undefined and take no part: every rank must
// leave the same ones undefined.
std::vector<Tensor> average_gradients(const Communicator& comm,
                                      const std::vector<Tensor>& gradients,
                                      int64_t bucket_bytes = kDefaultBucketBytes);

class DistributedGradientTape {
 public:
  // Records, as a GradientTape does, from construction on this thread.
  explicit DistributedGradientTape(const Communicator& comm, bool persistent = false,
                                   int64_t bucket_bytes = kDefaultBucketBytes)
      : comm_(comm), tape_(persistent), bucket_bytes_(bucket_bytes) {}

  void watch(const Tensor& tensor) { tape_.watch(tensor); }
  void watch(const Variable& variable) { tape_.watch(variable); }

  // d(target)/d(variable) for each variable, averaged over the ranks (every rank calls it).
  std::vector<Tensor> gradient(const Tensor& target, const std::vector<Variable>& variables);

 private:
  Communicator comm_;
  GradientTape tape_;
  int64_t bucket_bytes_;
};

}  // namespace duet::distribute
