// Compiling CUDA C++ at run time with NVRTC: source in, a loadable image (CUBIN, or PTX for GPUs
// newer than this NVRTC knows) out. Needs no GPU, so it is tested on machines without one.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace duet::cuda {

// A header the source may #include by `name`, given as text (NVRTC reads no files).
struct NvrtcHeader {
  std::string name;
  std::string source;
};

// The result of a compilation: an image for cuModuleLoadData.
struct CompiledCuda {
  std::string image;  // CUBIN (an ELF file), or NUL-terminated PTX
  bool is_cubin = false;
  std::string architecture;  // the --gpu-architecture it was built for, e.g. "sm_90"
};

// Compiles `source` (called `program_name` in diagnostics) for a GPU of compute capability
// `major`.`minor`: CUBIN for that sm_XY when NVRTC supports it, else PTX for the newest virtual
// architecture NVRTC supports that the GPU can run (the driver compiles it on load). Options are
// C++17 without fast math and without contracting a * b + c into an FMA, so each value is rounded
// as the unfused ops round it; `extra_options` come after them. Errors: InvalidArgument with
// NVRTC's log when the source does not compile; FailedPrecondition when the GPU is older than
// anything NVRTC targets; Internal for other NVRTC failures.
absl::StatusOr<CompiledCuda> CompileCuda(absl::string_view source, absl::string_view program_name,
                                         absl::Span<const NvrtcHeader> headers, int major,
                                         int minor,
                                         absl::Span<const std::string> extra_options = {});

}  // namespace duet::cuda
