// Snapshot: the input copied into the output's own buffer, in parallel chunks for large tensors.
#include <algorithm>
#include <cstring>

#include "kernels/cpu/array/register_all_dtypes.h"
#include "kernels/cpu/array/strided_copy.h"

namespace duet {
namespace {

absl::Status SnapshotKernel(KernelContext& ctx) {
  const char* src = static_cast<const char*>(ctx.input(0).raw_data());
  char* dst = static_cast<char*>(ctx.output(0).raw_data());
  const int64_t bytes = static_cast<int64_t>(ctx.input(0).nbytes());
  if (bytes == 0) return absl::OkStatus();
  ctx.pool().ParallelFor(bytes, kParallelCopyBytes, [&](int64_t begin, int64_t end) {
    std::memcpy(dst + begin, src + begin, end - begin);
  });
  return absl::OkStatus();
}

const bool kSnapshot =
    RegisterAllDTypes("Snapshot", [](auto) -> KernelFn { return SnapshotKernel; });

}  // namespace
}  // namespace duet
