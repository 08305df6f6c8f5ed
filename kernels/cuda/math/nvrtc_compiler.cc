#include "kernels/cuda/math/nvrtc_compiler.h"

#include <nvrtc.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/error.h"

namespace duet::cuda {
namespace {

absl::Status NvrtcStatus(nvrtcResult result, absl::string_view what) {
  if (result == NVRTC_SUCCESS) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, " failed: ", nvrtcGetErrorString(result)));
}

#define DUET_NVRTC_RETURN_IF_ERROR(expr) DUET_RETURN_IF_ERROR(NvrtcStatus((expr), #expr))

// The architectures (e.g. 90 for sm_90) this NVRTC compiles for, ascending.
absl::StatusOr<std::vector<int>> SupportedArchitectures() {
  int count = 0;
  DUET_NVRTC_RETURN_IF_ERROR(nvrtcGetNumSupportedArchs(&count));
  std::vector<int> archs(static_cast<size_t>(count));
  DUET_NVRTC_RETURN_IF_ERROR(nvrtcGetSupportedArchs(archs.data()));
  return archs;
}

struct ProgramDeleter {
  void operator()(nvrtcProgram* program) const {
    nvrtcDestroyProgram(program);
    delete program;
  }
};

std::string ProgramLog(nvrtcProgram program) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return "";
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return "";
  log.resize(size - 1);  // the terminating NUL
  return log;
}

}  // namespace

absl::StatusOr<CompiledCuda> CompileCuda(absl::string_view source, absl::string_view program_name,
                                         absl::Span<const NvrtcHeader> headers, int major,
                                         int minor, absl::Span<const std::string> extra_options) {
  DUET_ASSIGN_OR_RETURN(const std::vector<int> archs, SupportedArchitectures());
  const int wanted = major * 10 + minor;
  int target = -1;
  for (int arch : archs) {
    if (arch <= wanted) target = arch;
  }
  if (target < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("NVRTC cannot compile for compute capability ", major, ".", minor,
                     ": it supports only ", absl::StrJoin(archs, ", ")));
  }
  // Real code for the GPU itself, else PTX for the newest virtual architecture below it.
  CompiledCuda compiled;
  compiled.is_cubin = target == wanted;
  compiled.architecture = absl::StrCat(compiled.is_cubin ? "sm_" : "compute_", target);

  std::vector<const char*> header_sources, header_names;
  for (const NvrtcHeader& header : headers) {
    header_sources.push_back(header.source.c_str());
    header_names.push_back(header.name.c_str());
  }
  const std::string source_text(source);
  const std::string name(program_name);
  std::unique_ptr<nvrtcProgram, ProgramDeleter> program(new nvrtcProgram(nullptr));
  DUET_NVRTC_RETURN_IF_ERROR(nvrtcCreateProgram(program.get(), source_text.c_str(), name.c_str(),
                                                static_cast<int>(headers.size()),
                                                header_sources.data(), header_names.data()));

  std::vector<std::string> options = {
      absl::StrCat("--gpu-architecture=", compiled.architecture),
      "--std=c++17",
      "--fmad=false",
  };
  options.insert(options.end(), extra_options.begin(), extra_options.end());
  std::vector<const char*> option_ptrs;
  for (const std::string& option : options) option_ptrs.push_back(option.c_str());
  const nvrtcResult result =
      nvrtcCompileProgram(*program, static_cast<int>(option_ptrs.size()), option_ptrs.data());
  if (result != NVRTC_SUCCESS) {
    return absl::InvalidArgumentError(
        absl::StrCat("NVRTC could not compile ", name, " for ", compiled.architecture, " (",
                     nvrtcGetErrorString(result), "):\n", ProgramLog(*program)));
  }

  size_t size = 0;
  if (compiled.is_cubin) {
    DUET_NVRTC_RETURN_IF_ERROR(nvrtcGetCUBINSize(*program, &size));
    compiled.image.resize(size);
    DUET_NVRTC_RETURN_IF_ERROR(nvrtcGetCUBIN(*program, compiled.image.data()));
  } else {
    DUET_NVRTC_RETURN_IF_ERROR(nvrtcGetPTXSize(*program, &size));  // counts the NUL
    compiled.image.resize(size);
    DUET_NVRTC_RETURN_IF_ERROR(nvrtcGetPTX(*program, compiled.image.data()));
  }
  return compiled;
}

}  // namespace duet::cuda
