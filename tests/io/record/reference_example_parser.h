// The reference for io::ParseExamples: each Example parsed by libprotobuf's generated
// tensorflow::Example, its features read from the message. Tests and the fuzzer compare the
// fast parser with it.
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "io/record/example_parser.h"

namespace duet::testing {

// As io::ParseExamples, with the same outputs (fixed-length ones into the caller's buffers).
absl::Status ReferenceParseExamples(absl::Span<const absl::string_view> serialized,
                                    absl::Span<const io::FeatureRequest> requests,
                                    absl::Span<io::FeatureOutput> outputs);

}  // namespace duet::testing
