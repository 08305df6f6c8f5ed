#include "distribute/gradient_tape.h"

#include "ops/array/array_ops.h"

namespace duet::distribute {
namespace {

// Averages the bucket's gradients (defined, one dtype and device) with one all-reduce of their
// elements laid end to end. Ops all the way, so a traced step averages its gradients too.
void AverageBucket(const Communicator& comm, const std::vector<Tensor>& gradients,
                   const std::vector<size_t>& members, std::vector<Tensor>& out) {
  if (members.size() == 1) {
    out[members[0]] = comm.all_reduce(gradients[members[0]], ReduceOp::kMean);
    return;
  }
  std::vector<Tensor> flat;
  std::vector<int64_t> sizes;
  for (size_t i : members) {
    flat.push_back(reshape(gradients[i], {-1}));
    sizes.push_back(gradients[i].num_elements());
  }
  const std::vector<Tensor> parts =
      split(comm.all_reduce(concat(flat, 0), ReduceOp::kMean), sizes, 0);
  for (size_t k = 0; k < members.size(); ++k) {
    out[members[k]] = reshape(parts[k], gradients[members[k]].shape());
  }
}

}  // namespace

std::vector<Tensor> average_gradients(const Communicator& comm,
                                      const std::vector<Tensor>& gradients, int64_t bucket_bytes) {
  std::vector<Tensor> out(gradients.size());
  std::vector<size_t> bucket;
  int64_t bytes = 0;
  auto flush = [&] {
    if (!bucket.empty()) AverageBucket(comm, gradients, bucket, out);
    bucket.clear();
    bytes = 0;
  };
  for (size_t i = 0; i < gradients.size(); ++i) {
    const Tensor& g = gradients[i];
    if (!g.defined()) continue;
    if (!bucket.empty()) {
      const Tensor& first = gradients[bucket[0]];
      if (first.dtype() != g.dtype() || first.device() != g.device() ||
          bytes + static_cast<int64_t>(g.nbytes()) > bucket_bytes) {
        flush();
      }
    }
    bucket.push_back(i);
    bytes += static_cast<int64_t>(g.nbytes());
  }
  flush();
  return out;
}

std::vector<Tensor> DistributedGradientTape::gradient(const Tensor& target,
                                                      const std::vector<Variable>& variables) {
  return average_gradients(comm_, tape_.gradient(target, variables), bucket_bytes_);
}

}  // namespace duet::distribute
