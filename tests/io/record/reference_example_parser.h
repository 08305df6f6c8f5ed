// The reference for io::ParseExamples: each Example parsed by libprotobuf's generated
// tensorflow::Example, its features read from the message. Tests and the fuzzer compare the
// fast parser with it.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "io/record/example_parser.h"

namespace duet::testing {

// As io::ParseExamples, with the same outputs (fixed-length ones into the caller's buffers).
absl::Status ReferenceParseExamples(absl::Span<const absl::string_view> serialized,
                                    absl::Span<const io::FeatureRequest> requests,
                                    absl::Span<io::FeatureOutput> outputs);

// Runs both parsers over `serialized` (fixed-length outputs in buffers of their own): "" when
// both fail or both give the same values (bit for bit), else a description of the difference.
std::string CompareWithReference(absl::Span<const absl::string_view> serialized,
                                 absl::Span<const io::FeatureRequest> requests);

// The bytes as hex, for failure messages.
std::string Hex(absl::string_view bytes);

}  // namespace duet::testing
