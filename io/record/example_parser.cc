#include "io/record/example_parser.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/wire_format_lite.h"

namespace duet::io {
namespace {

using google::protobuf::io::CodedInputStream;
using WireFormat = google::protobuf::internal::WireFormatLite;

static_assert(std::endian::native == std::endian::little,
              "packed floats are copied as they lie on the wire (little-endian)");

// Note [Parsing Examples in place]
// ParseExamples walks each serialized Example with CodedInputStream and copies the values of
// the requested features straight into the caller's buffers: no Example, Features or Feature
// messages, no map per Example. To give exactly what libprotobuf's generated parser gives, the
// walk follows its rules, not just the happy path:
// - every map entry is checked (even of features nobody asked for), so input that
//   tensorflow::Example::ParseFromString rejects is rejected here too;
// - a later entry with the same key replaces an earlier one, and the `features` field or an
//   entry's value given twice merge (protobuf's merge semantics);
// - within a Feature a list of another kind replaces the values so far (a oneof), a list of the
//   same kind appends to them; floats and int64s may come packed or one by one;
// - keys must be UTF-8 (a proto3 string), tags and lengths at most 5 bytes, varints at most 10,
//   field number 0, end-group tags out of place and wire types 6 and 7 are malformed, unknown
//   fields (groups too, nested at most as deep as protobuf's recursion limit) are skipped.
// A feature's values are found in a first walk that also validates and counts them; a second
// walk over the winning entry copies them, once the output's room is known.

constexpr uint32_t kLengthDelimited = WireFormat::WIRETYPE_LENGTH_DELIMITED;
constexpr uint32_t Tag(int field, uint32_t wire_type) { return (field << 3) | wire_type; }
constexpr uint32_t kFeaturesTag = Tag(1, kLengthDelimited);  // Example.features
constexpr uint32_t kEntryTag = Tag(1, kLengthDelimited);     // Features.feature (map entries)
constexpr uint32_t kKeyTag = Tag(1, kLengthDelimited);       // the map entry's key
constexpr uint32_t kValueTag = Tag(2, kLengthDelimited);     // the map entry's Feature
constexpr uint32_t kPackedTag = Tag(1, kLengthDelimited);    // a list's values, packed
constexpr uint32_t kFloatTag = Tag(1, WireFormat::WIRETYPE_FIXED32);
constexpr uint32_t kInt64Tag = Tag(1, WireFormat::WIRETYPE_VARINT);
// protobuf's recursion limit, less one per message level above each of these.
constexpr int kExampleDepth = 100;
constexpr int kFeaturesDepth = kExampleDepth - 1;
constexpr int kEntryDepth = kExampleDepth - 2;
constexpr int kFeatureDepth = kExampleDepth - 3;
constexpr int kListDepth = kExampleDepth - 4;
constexpr int kMaxTagBytes = 5;
constexpr int kMaxLengthBytes = 5;

// The next tag; false when the message is malformed. *tag is 0 at the end of the message.
bool NextTag(CodedInputStream& in, uint32_t* tag) {
  if (in.BytesUntilLimit() == 0) {
    *tag = 0;
    return true;
  }
  const int start = in.CurrentPosition();
  *tag = in.ReadTagNoLastTag();
  return *tag != 0 && in.CurrentPosition() - start <= kMaxTagBytes && (*tag >> 3) != 0;
}

// A length prefix. Read as a varint64 so that no bits of a 5-byte length are dropped.
bool ReadLength(CodedInputStream& in, int* length) {
  const int start = in.CurrentPosition();
  uint64_t value = 0;
  if (!in.ReadVarint64(&value) || in.CurrentPosition() - start > kMaxLengthBytes) return false;
  if (value > static_cast<uint64_t>(in.BytesUntilLimit())) return false;
  *length = static_cast<int>(value);
  return true;
}

bool SkipField(CodedInputStream& in, uint32_t tag, int depth);

// Skips the fields of a group up to its end tag.
bool SkipGroup(CodedInputStream& in, uint32_t start_tag, int depth) {
  if (--depth < 0) return false;
  const uint32_t end_tag = start_tag + 1;  // the same field number, WIRETYPE_END_GROUP
  while (true) {
    uint32_t tag = 0;
    if (!NextTag(in, &tag) || tag == 0) return false;
    if (tag == end_tag) return true;
    if (!SkipField(in, tag, depth)) return false;
  }
}

// Skips an unknown field whose tag has been read.
bool SkipField(CodedInputStream& in, uint32_t tag, int depth) {
  switch (WireFormat::GetTagWireType(tag)) {
    case WireFormat::WIRETYPE_VARINT: {
      uint64_t value = 0;
      return in.ReadVarint64(&value);
    }
    case WireFormat::WIRETYPE_FIXED64:
      return in.Skip(8);
    case WireFormat::WIRETYPE_FIXED32:
      return in.Skip(4);
    case WireFormat::WIRETYPE_LENGTH_DELIMITED: {
      int length = 0;
      return ReadLength(in, &length) && in.Skip(length);
    }
    case WireFormat::WIRETYPE_START_GROUP:
      return SkipGroup(in, tag, depth);
    default:  // an end-group tag without its start, or wire types 6 and 7
      return false;
  }
}

// Where values go during a walk: `out` for the values of run `wanted_run`, nowhere otherwise
// (and nowhere at all in the first, counting walk).
struct Destination {
  void* out = nullptr;
  int wanted_run = -1;
};

// What the walk of one map entry found: its key, and its Feature's final kind and values.
struct EntryState {
  absl::string_view key;
  FeatureKind kind = FeatureKind::kNone;
  int run = 0;  // bumped whenever a list of another kind replaces the values so far
  int64_t count = 0;
};

bool ReadFloats(CodedInputStream& in, float* out, int64_t* count) {
  while (true) {
    uint32_t tag = 0;
    if (!NextTag(in, &tag)) return false;
    if (tag == 0) return true;
    if (tag == kPackedTag) {
      int length = 0;
      if (!ReadLength(in, &length) || length % sizeof(float) != 0) return false;
      if (out != nullptr ? !in.ReadRaw(out + *count, length) : !in.Skip(length)) return false;
      *count += length / sizeof(float);
    } else if (tag == kFloatTag) {
      uint32_t bits = 0;
      if (!in.ReadLittleEndian32(&bits)) return false;
      if (out != nullptr) out[*count] = std::bit_cast<float>(bits);
      ++*count;
    } else if (!SkipField(in, tag, kListDepth)) {
      return false;
    }
  }
}

bool ReadInt64s(CodedInputStream& in, int64_t* out, int64_t* count) {
  while (true) {
    uint32_t tag = 0;
    if (!NextTag(in, &tag)) return false;
    if (tag == 0) return true;
    uint64_t value = 0;
    if (tag == kPackedTag) {
      int length = 0;
      if (!ReadLength(in, &length)) return false;
      const CodedInputStream::Limit limit = in.PushLimit(length);
      while (in.BytesUntilLimit() > 0) {
        if (!in.ReadVarint64(&value)) return false;
        if (out != nullptr) out[*count] = static_cast<int64_t>(value);
        ++*count;
      }
      in.PopLimit(limit);
    } else if (tag == kInt64Tag) {
      if (!in.ReadVarint64(&value)) return false;
      if (out != nullptr) out[*count] = static_cast<int64_t>(value);
      ++*count;
    } else if (!SkipField(in, tag, kListDepth)) {
      return false;
    }
  }
}

bool ReadBytes(CodedInputStream& in, std::string* out, int64_t* count) {
  while (true) {
    uint32_t tag = 0;
    if (!NextTag(in, &tag)) return false;
    if (tag == 0) return true;
    if (tag == kPackedTag) {
      int length = 0;
      if (!ReadLength(in, &length)) return false;
      if (out != nullptr ? !in.ReadString(out + *count, length) : !in.Skip(length)) return false;
      ++*count;
    } else if (!SkipField(in, tag, kListDepth)) {
      return false;
    }
  }
}

bool ReadList(CodedInputStream& in, FeatureKind kind, void* out, int64_t* count) {
  switch (kind) {
    case FeatureKind::kFloat:
      return ReadFloats(in, static_cast<float*>(out), count);
    case FeatureKind::kInt64:
      return ReadInt64s(in, static_cast<int64_t*>(out), count);
    default:
      return ReadBytes(in, static_cast<std::string*>(out), count);
  }
}

// Walks one Feature message (its bytes up to the stream's limit).
bool WalkFeature(CodedInputStream& in, const Destination& destination, EntryState* state) {
  while (true) {
    uint32_t tag = 0;
    if (!NextTag(in, &tag)) return false;
    if (tag == 0) return true;
    const uint32_t field = tag >> 3;
    if (WireFormat::GetTagWireType(tag) != kLengthDelimited || field > 3) {
      if (!SkipField(in, tag, kFeatureDepth)) return false;
      continue;
    }
    const auto kind = static_cast<FeatureKind>(field);
    if (kind != state->kind) {  // the oneof switches: the values so far are dropped
      state->kind = kind;
      ++state->run;
      state->count = 0;
    }
    int length = 0;
    if (!ReadLength(in, &length)) return false;
    const CodedInputStream::Limit limit = in.PushLimit(length);
    void* out = state->run == destination.wanted_run ? destination.out : nullptr;
    if (!ReadList(in, kind, out, &state->count)) return false;
    in.PopLimit(limit);
  }
}

// Walks one map entry of Features.feature: [p, p + size).
bool WalkEntry(const uint8_t* p, int size, const Destination& destination, EntryState* state) {
  CodedInputStream in(p, size);
  in.PushLimit(size);
  while (true) {
    uint32_t tag = 0;
    if (!NextTag(in, &tag)) return false;
    if (tag == 0) return true;
    int length = 0;
    if (tag == kKeyTag) {
      if (!ReadLength(in, &length)) return false;
      state->key =
          absl::string_view(reinterpret_cast<const char*>(p) + in.CurrentPosition(), length);
      if (!in.Skip(length)) return false;
      if (!google::protobuf::internal::IsStructurallyValidUTF8(state->key.data(), length)) {
        return false;  // generated code rejects a proto3 string that is not UTF-8
      }
    } else if (tag == kValueTag) {
      if (!ReadLength(in, &length)) return false;
      const CodedInputStream::Limit limit = in.PushLimit(length);
      if (!WalkFeature(in, destination, state)) return false;
      in.PopLimit(limit);
    } else if (!SkipField(in, tag, kEntryDepth)) {
      return false;
    }
  }
}

// The entry a request's feature was last found in within the current Example.
struct Found {
  const uint8_t* entry = nullptr;
  int size = 0;
  EntryState state;
};

using RequestIndex = absl::flat_hash_map<absl::string_view, int>;

// Walks the Features message at the stream's position (up to its limit), recording the entries
// of requested features.
bool WalkFeatures(CodedInputStream& in, const uint8_t* example, const RequestIndex& index,
                  std::vector<Found>& found) {
  while (true) {
    uint32_t tag = 0;
    if (!NextTag(in, &tag)) return false;
    if (tag == 0) return true;
    if (tag != kEntryTag) {
      if (!SkipField(in, tag, kFeaturesDepth)) return false;
      continue;
    }
    int length = 0;
    if (!ReadLength(in, &length)) return false;
    const uint8_t* entry = example + in.CurrentPosition();
    EntryState state;
    if (!WalkEntry(entry, length, Destination{}, &state) || !in.Skip(length)) return false;
    if (auto it = index.find(state.key); it != index.end()) {
      found[it->second] = Found{entry, length, state};
    }
  }
}

// Finds the requested features of one Example; false when it is malformed.
bool WalkExample(absl::string_view serialized, const RequestIndex& index,
                 std::vector<Found>& found) {
  const auto* example = reinterpret_cast<const uint8_t*>(serialized.data());
  const int size = static_cast<int>(serialized.size());
  CodedInputStream in(example, size);
  in.PushLimit(size);
  while (true) {
    uint32_t tag = 0;
    if (!NextTag(in, &tag)) return false;
    if (tag == 0) return true;
    if (tag != kFeaturesTag) {
      if (!SkipField(in, tag, kExampleDepth)) return false;
      continue;
    }
    int length = 0;
    if (!ReadLength(in, &length)) return false;
    const CodedInputStream::Limit limit = in.PushLimit(length);
    if (!WalkFeatures(in, example, index, found)) return false;
    in.PopLimit(limit);
  }
}

size_t ValueBytes(FeatureKind kind) {
  switch (kind) {
    case FeatureKind::kFloat:
      return sizeof(float);
    case FeatureKind::kInt64:
      return sizeof(int64_t);
    default:
      return sizeof(std::string);
  }
}

// Copies `n` values of `kind` from `from` to `to` (the default of a missing feature).
void CopyValues(FeatureKind kind, const void* from, void* to, int64_t n) {
  if (kind == FeatureKind::kBytes) {
    std::copy_n(static_cast<const std::string*>(from), n, static_cast<std::string*>(to));
  } else {
    std::memcpy(to, from, static_cast<size_t>(n) * ValueBytes(kind));
  }
}

// Grows a variable-length output by n values of `kind`; returns where they go.
void* GrowVarLen(FeatureKind kind, int64_t n, FeatureOutput& output) {
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

absl::Status FeatureError(size_t example, const FeatureRequest& request,
                          absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("Example ", example, ", feature \"", request.name, "\": ", message));
}

// Moves one request's values of one Example into its output.
absl::Status Extract(size_t example, const FeatureRequest& request, const Found& found,
                     FeatureOutput& output) {
  const bool missing = found.entry == nullptr || found.state.kind == FeatureKind::kNone;
  if (!missing && found.state.kind != request.kind) {
    return FeatureError(example, request,
                        absl::StrCat("has kind ", FeatureKindName(found.state.kind), ", expected ",
                                     FeatureKindName(request.kind)));
  }
  const int64_t count = missing ? 0 : found.state.count;
  void* out = nullptr;
  if (request.var_len) {
    output.lengths.push_back(count);
    if (count == 0) return absl::OkStatus();
    out = GrowVarLen(request.kind, count, output);
  } else {
    out = static_cast<char*>(output.fixed) + example * request.count * ValueBytes(request.kind);
    if (missing) {
      if (request.default_values == nullptr) {
        return FeatureError(example, request, "is required but missing (and has no default)");
      }
      CopyValues(request.kind, request.default_values, out, request.count);
      return absl::OkStatus();
    }
    if (count != request.count) {
      return FeatureError(example, request,
                          absl::StrCat("has ", count, " values, expected ", request.count));
    }
    if (count == 0) return absl::OkStatus();
  }
  EntryState state;  // the second walk: the same path, copying the winning run's values
  WalkEntry(found.entry, found.size, Destination{out, found.state.run}, &state);
  return absl::OkStatus();
}

}  // namespace

absl::string_view FeatureKindName(FeatureKind kind) {
  switch (kind) {
    case FeatureKind::kBytes:
      return "bytes_list";
    case FeatureKind::kFloat:
      return "float_list";
    case FeatureKind::kInt64:
      return "int64_list";
    case FeatureKind::kNone:
      break;
  }
  return "feature without a kind";
}

absl::Status ParseExamples(absl::Span<const absl::string_view> serialized,
                           absl::Span<const FeatureRequest> requests,
                           absl::Span<FeatureOutput> outputs) {
  RequestIndex index;
  for (size_t r = 0; r < requests.size(); ++r) {
    if (!index.emplace(requests[r].name, static_cast<int>(r)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("feature \"", requests[r].name, "\" is requested twice"));
    }
  }
  std::vector<Found> found(requests.size());
  for (size_t e = 0; e < serialized.size(); ++e) {
    std::fill(found.begin(), found.end(), Found{});
    if (serialized[e].size() > static_cast<size_t>(INT32_MAX) ||
        !WalkExample(serialized[e], index, found)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Example ", e, " is not a valid serialized tf.train.Example (",
                       serialized[e].size(), " bytes of malformed protobuf)"));
    }
    for (size_t r = 0; r < requests.size(); ++r) {
      DUET_RETURN_IF_ERROR(Extract(e, requests[r], found[r], outputs[r]));
    }
  }
  return absl::OkStatus();
}

}  // namespace duet::io
