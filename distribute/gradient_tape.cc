#include "distribute/gradient_tape.h"

#include <cstring>

namespace duet::distribute {
namespace {

// Averages gradients[first, last) (defined, one dtype) with one all_reduce.
void AverageBucket(Communicator& comm, const std::vector<Tensor>& gradients,
                   const std::vector<size_t>& members, std::vector<Tensor>& out) {
  const DType dtype = gradients[members[0]].dtype();
  int64_t elements = 0;
  for (size_t i : members) elements += gradients[i].num_elements();
  Tensor flat = Tensor::Empty(dtype, Shape({elements}));
  char* cursor = static_cast<char*>(flat.raw_data());
  for (size_t i : members) {
    const Tensor host = gradients[i].device().is_host() ? gradients[i] : gradients[i].cpu();
    std::memcpy(cursor, host.raw_data(), host.nbytes());
    cursor += host.nbytes();
  }
  const Tensor mean = comm.all_reduce(flat, ReduceOp::kMean);
  const char* from = static_cast<const char*>(mean.raw_data());
  for (size_t i : members) {
    Tensor g = Tensor::Empty(dtype, gradients[i].shape());
    std::memcpy(g.raw_data(), from, g.nbytes());
    from += g.nbytes();
    out[i] = gradients[i].device().is_host() ? g : g.to(gradients[i].device());
  }
}

}  // namespace

std::vector<Tensor> average_gradients(Communicator& comm, const std::vector<Tensor>& gradients,
                                      int64_t bucket_bytes) {
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
    const bool other_dtype = !bucket.empty() && gradients[bucket[0]].dtype() != g.dtype();
    if (other_dtype ||
        (!bucket.empty() && bytes + static_cast<int64_t>(g.nbytes()) > bucket_bytes)) {
      flush();
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
