#include "tests/io/record/reference_example_parser.h"

#include <algorithm>
#include <string>

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
      const float* from = feature ? feature->float_list().value().data()
                                  : static_cast<const float*>(defaults);
      std::copy_n(from, count, static_cast<float*>(out));
      break;
    }
    case FeatureKind::kInt64: {
      const int64_t* from = feature ? feature->int64_list().value().data()
                                    : static_cast<const int64_t*>(defaults);
      std::copy_n(from, count, static_cast<int64_t*>(out));
      break;
    }
    default:
      for (int64_t i = 0; i < count; ++i) {
        static_cast<std::string*>(out)[i] = feature ? feature->bytes_list().value(i)
                                                    : static_cast<const std::string*>(defaults)[i];
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
    if (count > 0) CopyOut(request.kind, feature, nullptr, count, Grow(request.kind, count, output));
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

}  // namespace duet::testing
