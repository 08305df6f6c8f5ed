#include "io/record/example.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "io/record/example_parser.h"

namespace duet::data {
namespace {

Error SpecError(const std::string& name, absl::string_view message) {
  return Error(
      absl::InvalidArgumentError(absl::StrCat("parse_example: feature \"", name, "\": ", message)));
}

io::FeatureKind KindOf(const std::string& name, DType dtype) {
  switch (dtype) {
    case kFloat32:
      return io::FeatureKind::kFloat;
    case kInt64:
      return io::FeatureKind::kInt64;
    case kString:
      return io::FeatureKind::kBytes;
    default:
      throw SpecError(name, absl::StrCat("dtype ", DTypeName(dtype),
                                         " is not an Example's (float32, int64 or string)"));
  }
}

Shape WithLeadingDim(int64_t n, const Shape& shape) {
  Shape result{n};
  for (int64_t dim : shape.dims()) result.push_back(dim);
  return result;
}

// The default of a FixedLen spec as `count` contiguous values on the CPU (a scalar is repeated).
Tensor DefaultValues(const std::string& name, const FeatureSpec& spec, int64_t count) {
  Tensor value = spec.default_value->cpu();
  if (value.dtype() != spec.dtype) {
    throw SpecError(name, absl::StrCat("the default is ", DTypeName(value.dtype()),
                                       ", the feature ", DTypeName(spec.dtype)));
  }
  if (value.num_elements() == count) return value;
  if (value.num_elements() != 1) {
    throw SpecError(name, absl::StrCat("the default has shape ", value.shape().str(), ", expected ",
                                       spec.shape.str(), " or a scalar"));
  }
  Tensor filled = Tensor::Empty(spec.dtype, spec.shape);
  if (spec.dtype == kString) {
    std::fill_n(filled.mutable_data<std::string>(), count, value.item<std::string>());
  } else {
    for (int64_t i = 0; i < count; ++i) {
      std::memcpy(static_cast<char*>(filled.raw_data()) + i * DTypeSize(spec.dtype),
                  value.raw_data(), DTypeSize(spec.dtype));
    }
  }
  return filled;
}

// A VarLen feature's values as a dense (N, max_len) tensor, padded with zeros or "".
template <typename T>
Tensor Densify(std::vector<T>& values, const std::vector<int64_t>& lengths, bool batched) {
  const int64_t max_len = lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
  const int64_t n = static_cast<int64_t>(lengths.size());
  std::vector<T> dense(static_cast<size_t>(n * max_len), T{});
  size_t next = 0;
  for (int64_t i = 0; i < n; ++i) {
    std::move(values.begin() + next, values.begin() + next + lengths[i],
              dense.begin() + i * max_len);
    next += lengths[i];
  }
  return from_vector(dense, batched ? Shape{n, max_len} : Shape{max_len});
}

Tensor DensifyOutput(DType dtype, io::FeatureOutput& output, bool batched) {
  switch (dtype) {
    case kFloat32:
      return Densify(output.floats, output.lengths, batched);
    case kInt64:
      return Densify(output.int64s, output.lengths, batched);
    default:
      return Densify(output.strings, output.lengths, batched);
  }
}

// Without `batched` there is one Example and no leading dim.
ParsedFeatures Parse(absl::Span<const absl::string_view> serialized, const FeatureSpecs& specs,
                     bool batched) {
  const int64_t n = static_cast<int64_t>(serialized.size());
  std::vector<io::FeatureRequest> requests;
  std::vector<Tensor> defaults;
  ParsedFeatures parsed;
  requests.reserve(specs.size());
  std::vector<io::FeatureOutput> outputs(specs.size());
  for (const auto& [name, spec] : specs) {
    io::FeatureRequest& request = requests.emplace_back();
    request.name = name;
    request.kind = KindOf(name, spec.dtype);
    request.var_len = spec.var_len;
    if (spec.var_len) continue;
    if (!spec.shape.is_fully_defined()) {
      throw SpecError(name,
                      absl::StrCat("FixedLen needs a fully defined shape, not ", spec.shape.str()));
    }
    request.count = spec.shape.num_elements();
    if (spec.default_value.has_value()) {
      request.default_values =
          defaults.emplace_back(DefaultValues(name, spec, request.count)).raw_data();
    }
    Tensor out = Tensor::Empty(spec.dtype, batched ? WithLeadingDim(n, spec.shape) : spec.shape);
    outputs[requests.size() - 1].fixed = out.raw_data();
    parsed.emplace(name, std::move(out));
  }
  absl::Status status = io::ParseExamples(serialized, requests, absl::MakeSpan(outputs));
  if (!status.ok()) {
    throw Error(absl::Status(status.code(), absl::StrCat("parse_example: ", status.message())));
  }
  size_t r = 0;
  for (const auto& [name, spec] : specs) {
    io::FeatureOutput& output = outputs[r++];
    if (!spec.var_len) continue;
    parsed.emplace(name, DensifyOutput(spec.dtype, output, batched));
    parsed.emplace(name + "/lengths",
                   batched ? from_vector(output.lengths) : from_vector(output.lengths, Shape{}));
  }
  return parsed;
}

}  // namespace

FeatureSpec FixedLen(DType dtype, Shape shape, std::optional<Tensor> default_value) {
  return FeatureSpec{dtype, std::move(shape), false, std::move(default_value)};
}

FeatureSpec VarLen(DType dtype) { return FeatureSpec{dtype, Shape{}, true, std::nullopt}; }

ParsedFeatures parse_example(absl::Span<const absl::string_view> serialized,
                             const FeatureSpecs& specs) {
  return Parse(serialized, specs, /*batched=*/true);
}

ParsedFeatures parse_example(const std::vector<std::string>& serialized,
                             const FeatureSpecs& specs) {
  const std::vector<absl::string_view> views(serialized.begin(), serialized.end());
  return Parse(views, specs, /*batched=*/true);
}

ParsedFeatures parse_single_example(absl::string_view serialized, const FeatureSpecs& specs) {
  return Parse({serialized}, specs, /*batched=*/false);
}

ParsedFeatures parse_example(const Tensor& serialized, const FeatureSpecs& specs) {
  if (serialized.dtype() != kString || serialized.rank() > 1) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("parse_example: serialized must be a string scalar or vector, not ",
                     DTypeName(serialized.dtype()), " ", serialized.shape().str())));
  }
  const Tensor cpu = serialized.cpu();
  const std::string* strings = cpu.data<std::string>();
  const std::vector<absl::string_view> views(strings, strings + cpu.num_elements());
  return Parse(views, specs, /*batched=*/serialized.rank() == 1);
}

template <typename Integers>
ExampleBuilder& ExampleBuilder::add_int64s(const std::string& name, const Integers& values) {
  auto* list = feature(name).mutable_int64_list()->mutable_value();
  list->Reserve(static_cast<int>(values.size()));
  for (const auto value : values) list->Add(static_cast<int64_t>(value));
  return *this;
}

tensorflow::Feature& ExampleBuilder::feature(const std::string& name) {
  tensorflow::Feature& feature = (*example_.mutable_features()->mutable_feature())[name];
  feature.Clear();
  return feature;
}

ExampleBuilder& ExampleBuilder::add(const std::string& name, const Tensor& values) {
  const Tensor cpu = values.cpu();
  switch (cpu.dtype()) {
    case kFloat32: {
      const std::vector<float> floats = cpu.to_vector<float>();
      feature(name).mutable_float_list()->mutable_value()->Add(floats.begin(), floats.end());
      break;
    }
    case kString:
      return add(name, cpu.to_vector<std::string>());
    case kInt64:
      return add_int64s(name, cpu.to_vector<int64_t>());
    case kInt32:
      return add_int64s(name, cpu.to_vector<int32_t>());
    case kUInt8:
      return add_int64s(name, cpu.to_vector<uint8_t>());
    case kBool:
      return add_int64s(name, cpu.to_vector<bool>());
    default:
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("ExampleBuilder: feature \"", name, "\" is ", DTypeName(cpu.dtype()),
                       "; an Example holds float32, integers (as int64) or strings")));
  }
  return *this;
}

ExampleBuilder& ExampleBuilder::add(const std::string& name,
                                    const std::vector<std::string>& values) {
  auto* list = feature(name).mutable_bytes_list()->mutable_value();
  for (const std::string& value : values) list->Add(std::string(value));
  return *this;
}

}  // namespace duet::data
