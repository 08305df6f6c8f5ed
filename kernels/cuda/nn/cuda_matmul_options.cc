#include "kernels/cuda/nn/cuda_matmul_options.h"

#include <atomic>

namespace duet::cuda {
namespace {

std::atomic<bool> allow_tf32_flag{false};

}  // namespace

void set_allow_tf32(bool allow) { allow_tf32_flag.store(allow, std::memory_order_relaxed); }

bool allow_tf32() { return allow_tf32_flag.load(std::memory_order_relaxed); }

}  // namespace duet::cuda
