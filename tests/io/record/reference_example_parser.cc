#include "tests/io/record/reference_example_parser.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "proto/example.pb.h"

namespace duet::testing {
namespace {

using io::FeatureKind;

FeatureKind KindOf(const tensorflow::Feature& feature) {
  switch (feature.kind_case()) {
    case tensorflow::Feature::kBytesList:
      return FeatureKind::kBytes;
    case tensorflow::Feature::kFloatList:
      return FeatureKind::kFloat;
    case tensorflow::Feature::kInt64List:
      return FeatureKind::kInt64;
    default:
      return FeatureKind::kNone;
  }
}

int64_t CountOf(const tensorflow::Feature& feature) {
  switch (KindOf(feature)) {
    case FeatureKind::kBytes:
      return feature.bytes_list().value_size();
    case FeatureKind::kFloat:
      return feature.float_list().value_size();
    case FeatureKind::kInt64:
      return feature.int64_list().value_size();
    default:
      return 0;
  }
}

// Copies the feature's values (or `count` defaults) to `out`.
void CopyOut(FeatureKind kind, const tensorflow::Feature* feature, const void* defaults,
             int64_t count, void* out) {
  switch (kind) {
    case FeatureKind::kFloat: {
      const float* from =
          feature ? feature->float_list().value().data() : static_cast<const float*>(defaults);
      std::copy_n(from, count, static_cast<float*>(out));
      break;
    }
    case FeatureKind::kInt64: {
      const int64_t* from =
          feature ? feature->int64_list().value().data() : static_cast<const int64_t*>(defaults);
      std::copy_n(from, count, static_cast<int64_t*>(out));
      break;
    }
    default:
      for (int64_t i = 0; i < count; ++i) {
        static_cast<std::string*>(out)[i] =
            feature ? feature->bytes_list().value(i) : static_cast<const std::string*>(defaults)[i];
      }
  }
}

void* Grow(FeatureKind kind, int64_t n, io::FeatureOutput& output) {
  switch (kind) {
    case FeatureKind::kFloat:
      output.floats.resize(output.floats.size() + n);
      return output.floats.data() + output.floats.size() - n;
    case FeatureKind::kInt64:
      output.int64s.resize(output.int64s.size() + n);
      return output.int64s.data() + output.int64s.size() - n;
    default:
      output.strings.resize(output.strings.size() + n);
      return output.strings.data() + output.strings.size() - n;
  }
}

size_t ValueBytes(FeatureKind kind) {
  return kind == FeatureKind::kFloat   ? sizeof(float)
         : kind == FeatureKind::kInt64 ? sizeof(int64_t)
                                       : sizeof(std::string);
}

absl::Status Extract(size_t e, const io::FeatureRequest& request,
                     const tensorflow::Example& example, io::FeatureOutput& output) {
  const auto& map = example.features().feature();
  const auto it = map.find(request.name);
  const tensorflow::Feature* feature =
      it == map.end() || KindOf(it->second) == FeatureKind::kNone ? nullptr : &it->second;
  const auto error = [&](absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("Example ", e, ", feature \"", request.name, "\": ", what));
  };
  if (feature != nullptr && KindOf(*feature) != request.kind) return error("wrong kind");
  const int64_t count = feature ? CountOf(*feature) : 0;
  if (request.var_len) {
    output.lengths.push_back(count);
    if (count > 0)
      CopyOut(request.kind, feature, nullptr, count, Grow(request.kind, count, output));
    return absl::OkStatus();
  }
  void* out = static_cast<char*>(output.fixed) + e * request.count * ValueBytes(request.kind);
  if (feature == nullptr) {
    if (request.default_values == nullptr) return error("missing");
    CopyOut(request.kind, nullptr, request.default_values, request.count, out);
    return absl::OkStatus();
  }
  if (count != request.count) return error("wrong count");
  CopyOut(request.kind, feature, nullptr, count, out);
  return absl::OkStatus();
}

}  // namespace

absl::Status ReferenceParseExamples(absl::Span<const absl::string_view> serialized,
                                    absl::Span<const io::FeatureRequest> requests,
                                    absl::Span<io::FeatureOutput> outputs) {
  tensorflow::Example example;
  for (size_t e = 0; e < serialized.size(); ++e) {
    if (!example.ParseFromArray(serialized[e].data(), static_cast<int>(serialized[e].size()))) {
      return absl::InvalidArgumentError(absl::StrCat("Example ", e, " is malformed"));
    }
    for (size_t r = 0; r < requests.size(); ++r) {
      absl::Status status = Extract(e, requests[r], example, outputs[r]);
      if (!status.ok()) return status;
    }
  }
  return absl::OkStatus();
}

namespace {

// A parser's outputs, with room of their own for the fixed-length values.
struct Parsed {
  Parsed(size_t n, absl::Span<const io::FeatureRequest> requests) : outputs(requests.size()) {
    strings.reserve(requests.size());  // no reallocation: outputs point into the buffers
    bytes.reserve(requests.size());
    for (size_t r = 0; r < requests.size(); ++r) {
      if (requests[r].var_len) continue;
      const size_t values = n * static_cast<size_t>(requests[r].count);
      if (requests[r].kind == FeatureKind::kBytes) {
        strings.emplace_back(values);
        outputs[r].fixed = strings.back().data();
      } else {
        bytes.emplace_back(values * 8, '\0');
        outputs[r].fixed = bytes.back().data();
      }
    }
  }
  std::vector<io::FeatureOutput> outputs;
  std::vector<std::vector<std::string>> strings;
  std::vector<std::string> bytes;  // float and int64 values, compared bit for bit
  absl::Status status;
};

template <typename T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

}  // namespace

std::string Hex(absl::string_view bytes) { return absl::BytesToHexString(bytes); }

std::string CompareWithReference(absl::Span<const absl::string_view> serialized,
                                 absl::Span<const io::FeatureRequest> requests) {
  Parsed fast(serialized.size(), requests), reference(serialized.size(), requests);
  fast.status = io::ParseExamples(serialized, requests, absl::MakeSpan(fast.outputs));
  reference.status =
      ReferenceParseExamples(serialized, requests, absl::MakeSpan(reference.outputs));
  if (fast.status.ok() != reference.status.ok()) {
    return absl::StrCat("fast parser: ", fast.status.ToString(),
                        "; reference: ", reference.status.ToString());
  }
  if (!fast.status.ok()) return "";
  if (fast.bytes != reference.bytes || fast.strings != reference.strings) {
    return "fixed-length values differ";
  }
  for (size_t r = 0; r < requests.size(); ++r) {
    const io::FeatureOutput &a = fast.outputs[r], &b = reference.outputs[r];
    if (!SameBits(a.floats, b.floats) || a.int64s != b.int64s || a.strings != b.strings ||
        a.lengths != b.lengths) {
      return absl::StrCat("variable-length values of \"", requests[r].name, "\" differ");
    }
  }
  return "";
}

}  // namespace duet::testing
