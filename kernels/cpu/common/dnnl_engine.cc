#include "kernels/cpu/common/dnnl_engine.h"

#include "absl/strings/str_cat.h"
#include "core/thread_pool.h"

namespace duet {

const dnnl::engine& DnnlEngine() {
  FitOpenMpThreadsToLimit();  // before oneDNN sizes a primitive's work split
  // Leaked on purpose: thread-local streams and plans may outlive static destructors.
  static const auto* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

dnnl::stream& DnnlStream() {
  FitOpenMpThreadsToLimit();  // and before it runs one, on each thread
  thread_local dnnl::stream stream(DnnlEngine());
  return stream;
}

std::optional<dnnl::memory::data_type> ToDnnlType(DType dtype) {
  switch (dtype) {
    case kFloat32:
      return dnnl::memory::data_type::f32;
    case kBFloat16:
      return dnnl::memory::data_type::bf16;
    case kFloat16:
      return dnnl::memory::data_type::f16;
    case kInt32:
      return dnnl::memory::data_type::s32;
    default:
      return std::nullopt;
  }
}

absl::Status DnnlErrorToStatus(const dnnl::error& e, absl::string_view what) {
  std::string message = absl::StrCat("oneDNN could not run the ", what, ": ", e.what());
  if (e.status == dnnl_unimplemented) {
    return absl::UnimplementedError(
        absl::StrCat(message, " (oneDNN has no implementation for this case on this CPU)"));
  }
  return absl::InternalError(message);
}

}  // namespace duet
