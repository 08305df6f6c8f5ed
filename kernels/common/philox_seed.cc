#include "kernels/common/philox_seed.h"

#include <cstdint>

namespace duet {

philox::Stream SeedStream(const Tensor& seed) {
  int64_t s0, s1;
  if (seed.dtype() == kInt32) {
    s0 = seed.data<int32_t>()[0];
    s1 = seed.data<int32_t>()[1];
  } else {
    s0 = seed.data<int64_t>()[0];
    s1 = seed.data<int64_t>()[1];
  }
  return philox::StreamFromSeed(static_cast<uint64_t>(s0), static_cast<uint64_t>(s1));
}

}  // namespace duet
