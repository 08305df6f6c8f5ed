// oneDNN basics shared by CPU kernels: the CPU engine, this thread's stream, the oneDNN data type
// of a DType, and turning oneDNN's exceptions into absl::Status.
//
// Kernels normally go through DnnlPlan (dnnl_plan.h), which caches ready-to-run primitives; use
// these directly only to build plans or for one-off primitives.
#pragma once

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace duet {

// The process-wide oneDNN CPU engine (thread-safe; never destroyed).
const dnnl::engine& DnnlEngine();

// This thread's oneDNN stream (streams are not thread-safe, so each thread has its own).
dnnl::stream& DnnlStream();

// The oneDNN data type of `dtype`, or nullopt for dtypes oneDNN has no type for (float64, int64).
std::optional<dnnl::memory::data_type> ToDnnlType(DType dtype);

// Converts a oneDNN exception into a status naming `what` (e.g. "Conv2D float32 primitive");
// "unimplemented" becomes Unimplemented (oneDNN has no kernel for this case on this CPU).
absl::Status DnnlErrorToStatus(const dnnl::error& e, absl::string_view what);

}  // namespace duet
