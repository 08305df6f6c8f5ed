// Parsing serialized tf.train.Example protos straight into output buffers (docs/records.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace duet::io {

// The kinds of a Feature, numbered as its oneof's fields (kNone: no kind set).
enum class FeatureKind : uint8_t { kNone = 0, kBytes = 1, kFloat = 2, kInt64 = 3 };
absl::string_view FeatureKindName(FeatureKind kind);  // "bytes_list", "float_list", ...

// One feature to take from every Example. The values of a kind are float, int64_t and
// std::string.
struct FeatureRequest {
  std::string name;
  FeatureKind kind = FeatureKind::kFloat;
  bool var_len = false;
  int64_t count = 0;  // fixed-length: the values per Example
  // Fixed-length: `count` values used where an Example lacks the feature; null: it is required.
  const void* default_values = nullptr;
};

// Where a request's values go. A fixed-length feature fills `fixed`, which the caller points at
// room for N * count values; a variable-length one appends every Example's values to the
// vector of its kind and its count to `lengths`.
struct FeatureOutput {
  void* fixed = nullptr;
  std::vector<float> floats;
  std::vector<int64_t> int64s;
  std::vector<std::string> strings;
  std::vector<int64_t> lengths;
};

// Parses every serialized Example and fills one output per request. The result is what
// parsing each Example with libprotobuf (tensorflow::Example) and reading its features gives
// (tests/io/record/example_differential_test.cc checks that), without building the messages:
// Note [Parsing Examples in place]. A feature that is present but has no kind set counts as
// missing. Errors (InvalidArgument) name the Example's index and, where there is one, the
// feature: a malformed proto, a missing required feature, a kind other than the requested one,
// a fixed-length feature with another number of values.
absl::Status ParseExamples(absl::Span<const absl::string_view> serialized,
                           absl::Span<const FeatureRequest> requests,
                           absl::Span<FeatureOutput> outputs);

}  // namespace duet::io
