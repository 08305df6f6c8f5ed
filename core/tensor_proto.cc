// TensorProto codec. Writing uses tensor_content (string_val for strings); reading accepts
// tensor_content and the typed *_val fields TensorFlow writes for small or constant-filled tensors.
#include "core/tensor_proto.h"

#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"

namespace duet {
namespace {

// TensorFlow's limit on rank (TensorShape::MaxDimensions).
constexpr int kMaxRank = 254;
// The largest tensor a proto may describe. A serialized protobuf cannot exceed 2 GiB, so only
// typed fields that repeat their last value could ask for more; we refuse rather than try.
constexpr int64_t kMaxBytes = int64_t{1} << 31;

// The number of elements of a fully defined shape, or an error when it is not one or would
// take more than kMaxBytes.
absl::StatusOr<int64_t> CheckedNumElements(const Shape& shape, DType dtype) {
  if (!shape.is_fully_defined()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a TensorProto needs a fully defined shape, got ", shape.str()));
  }
  const int64_t max_elements = kMaxBytes / DTypeSize(dtype);
  int64_t n = 1;
  for (int64_t d : shape.dims()) {
    if (d == 0) return 0;
  }
  for (int64_t d : shape.dims()) {
    if (n > max_elements / d) {
      return absl::InvalidArgumentError(absl::StrCat("TensorProto shape ", shape.str(), " of ",
                                                     DTypeName(dtype), " exceeds ", kMaxBytes,
                                                     " bytes"));
    }
    n *= d;
  }
  return n;
}

// Copies raw little-endian bytes into a new tensor (x86-64 is little-endian, as is the format).
absl::StatusOr<Tensor> FromContent(DType dtype, const Shape& shape, int64_t n,
                                   const std::string& content) {
  const size_t want = static_cast<size_t>(n) * DTypeSize(dtype);
  if (content.size() != want) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorProto tensor_content has ", content.size(), " bytes, but shape ",
                     shape.str(), " of ", DTypeName(dtype), " needs ", want));
  }
  DUET_ASSIGN_OR_RETURN(Tensor t, Tensor::TryEmpty(dtype, shape));
  if (dtype == kBool) {
    // Any nonzero byte is true; a bool holding another value would be undefined behavior.
    bool* out = t.mutable_data<bool>();
    for (size_t i = 0; i < want; ++i) out[i] = content[i] != 0;
  } else if (want > 0) {
    std::memcpy(t.raw_data(), content.data(), want);
  }
  return t;
}

// Fills a new tensor from typed values, repeating the last one (none: zeros), converting each
// with `convert`.
template <typename T, typename Values, typename Convert>
absl::StatusOr<Tensor> FromValues(DType dtype, const Shape& shape, int64_t n, const Values& values,
                                  absl::string_view field, Convert convert) {
  const int64_t count = values.size();
  if (count > n) {
    return absl::InvalidArgumentError(absl::StrCat("TensorProto has ", count, " values in ", field,
                                                   " but shape ", shape.str(), " holds ", n));
  }
  DUET_ASSIGN_OR_RETURN(Tensor t, Tensor::TryEmpty(dtype, shape));
  T* out = t.mutable_data<T>();
  for (int64_t i = 0; i < count; ++i) {
    DUET_ASSIGN_OR_RETURN(out[i], convert(values[i]));
  }
  T fill{};
  if (count > 0) fill = out[count - 1];
  std::fill(out + count, out + n, fill);
  return t;
}

// A kString tensor from string_val: one entry per element, or fewer with the last repeating (TF
// broadcasts a single entry), none: empty strings. tensor_content has no string form.
absl::StatusOr<Tensor> FromStringValues(const tensorflow::TensorProto& p, const Shape& shape,
                                        int64_t n) {
  const int64_t count = p.string_val_size();
  if (count > n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorProto has ", count, " values in string_val but shape ", shape.str(), " holds ", n));
  }
  if (count > 0 && n > count) {
    // Repeating the last entry must not turn a small proto into a huge tensor.
    const int64_t repeated = static_cast<int64_t>(p.string_val(count - 1).size());
    if (repeated > 0 && n - count > kMaxBytes / repeated) {
      return absl::InvalidArgumentError(absl::StrCat("TensorProto string_val repeats a ", repeated,
                                                     "-byte string to fill shape ", shape.str(),
                                                     ", more than ", kMaxBytes, " bytes"));
    }
  }
  DUET_ASSIGN_OR_RETURN(Tensor t, Tensor::TryEmpty(kString, shape));
  std::string* out = t.mutable_data<std::string>();
  for (int64_t i = 0; i < count; ++i) out[i] = p.string_val(i);
  if (count > 0) std::fill(out + count, out + n, out[count - 1]);
  return t;
}

// Converts a typed-field value to T unchanged.
template <typename T>
auto Same() {
  return [](auto v) -> absl::StatusOr<T> { return static_cast<T>(v); };
}

// Converts a half_val / int_val entry (a 16-bit pattern in an int32) to float16 or bfloat16.
template <typename Half>
auto FromBits(absl::string_view field) {
  return [field](int32_t v) -> absl::StatusOr<Half> {
    if (v < 0 || v > 0xffff) {
      return absl::InvalidArgumentError(
          absl::StrCat("TensorProto ", field, " value ", v, " is not a 16-bit pattern"));
    }
    return Half::FromBits(static_cast<uint16_t>(v));
  };
}

// Reads the typed field that belongs to `dtype`.
absl::StatusOr<Tensor> FromTypedFields(const tensorflow::TensorProto& p, DType dtype,
                                       const Shape& shape, int64_t n) {
  switch (dtype) {
    case kFloat32:
      return FromValues<float>(dtype, shape, n, p.float_val(), "float_val", Same<float>());
    case kFloat64:
      return FromValues<double>(dtype, shape, n, p.double_val(), "double_val", Same<double>());
    case kInt32:
      return FromValues<int32_t>(dtype, shape, n, p.int_val(), "int_val", Same<int32_t>());
    case kInt64:
      return FromValues<int64_t>(dtype, shape, n, p.int64_val(), "int64_val", Same<int64_t>());
    case kBool:
      return FromValues<bool>(dtype, shape, n, p.bool_val(), "bool_val", Same<bool>());
    case kUInt8:
      return FromValues<uint8_t>(dtype, shape, n, p.int_val(), "int_val", [](int32_t v) {
        return v >= 0 && v <= 255 ? absl::StatusOr<uint8_t>(static_cast<uint8_t>(v))
                                  : absl::InvalidArgumentError(absl::StrCat(
                                        "TensorProto int_val value ", v, " is not a uint8"));
      });
    case kString:
      return FromStringValues(p, shape, n);
    case kFloat16:
      return FromValues<float16>(dtype, shape, n, p.half_val(), "half_val",
                                 FromBits<float16>("half_val"));
    case kBFloat16:
      // TensorFlow writes bfloat16 to half_val; older writers used int_val.
      if (p.half_val_size() == 0 && p.int_val_size() > 0) {
        return FromValues<bfloat16>(dtype, shape, n, p.int_val(), "int_val",
                                    FromBits<bfloat16>("int_val"));
      }
      return FromValues<bfloat16>(dtype, shape, n, p.half_val(), "half_val",
                                  FromBits<bfloat16>("half_val"));
    case kResource:
    case kVariant:
      break;
  }
  return absl::InvalidArgumentError(
      "resource and variant TensorProtos (variable handles, TensorLists) are not supported");
}

}  // namespace

void ShapeToProto(const Shape& shape, tensorflow::TensorShapeProto* proto) {
  proto->Clear();
  if (shape.unknown_rank()) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int64_t d : shape.dims()) proto->add_dim()->set_size(d < 0 ? -1 : d);
}

absl::StatusOr<Shape> ShapeFromProto(const tensorflow::TensorShapeProto& proto) {
  if (proto.unknown_rank()) {
    if (proto.dim_size() > 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorShapeProto has unknown_rank set but also ", proto.dim_size(), " dims"));
    }
    return Shape::UnknownRank();
  }
  if (proto.dim_size() > kMaxRank) {
    return absl::InvalidArgumentError(absl::StrCat("TensorShapeProto has ", proto.dim_size(),
                                                   " dims; at most ", kMaxRank, " are allowed"));
  }
  Shape shape;
  int64_t known_product = 1;
  for (const auto& dim : proto.dim()) {
    const int64_t d = dim.size();
    if (d < -1) {
      return absl::InvalidArgumentError(absl::StrCat("TensorShapeProto dim ", shape.rank(),
                                                     " has size ", d,
                                                     " (sizes are >= 0, or -1 for unknown)"));
    }
    // Keeps Shape::num_elements() from overflowing later.
    if (d > 0 && known_product > std::numeric_limits<int64_t>::max() / d) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorShapeProto has more than 2^63 elements (dim ", shape.rank(), " is ", d, ")"));
    }
    if (d >= 0) known_product *= d;
    shape.push_back(d);
  }
  return shape;
}

absl::Status TensorToProto(const Tensor& t, tensorflow::TensorProto* proto) {
  if (!t.has_value() || !t.device().is_host()) {
    return absl::FailedPreconditionError(
        "TensorToProto needs a tensor with a value on the CPU (copy it with .cpu() first)");
  }
  if (IsObjectDType(t.dtype())) {
    return absl::InvalidArgumentError(
        absl::StrCat("a ", DTypeName(t.dtype()),
                     " tensor (a variable handle or a TensorList) has no TensorProto value"));
  }
  proto->Clear();
  proto->set_dtype(static_cast<tensorflow::DataType>(ToProtoDataType(t.dtype())));
  ShapeToProto(t.shape(), proto->mutable_tensor_shape());
  if (t.dtype() == kString) {  // strings have no tensor_content form: one string_val each
    const std::string* values = t.data<std::string>();
    for (int64_t i = 0; i < t.num_elements(); ++i) proto->add_string_val(values[i]);
    return absl::OkStatus();
  }
  proto->set_tensor_content(static_cast<const char*>(t.raw_data()), t.nbytes());
  return absl::OkStatus();
}

absl::StatusOr<Tensor> TensorFromProto(const tensorflow::TensorProto& proto) {
  const absl::StatusOr<DType> dtype = FromProtoDataType(proto.dtype());
  if (!dtype.ok() || IsObjectDType(*dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorProto dtype ", proto.dtype(),
                     " is not supported (duet reads DT_FLOAT, DT_DOUBLE, "
                     "DT_HALF, DT_BFLOAT16, DT_INT32, DT_INT64, DT_BOOL, DT_UINT8 and DT_STRING)"));
  }
  DUET_ASSIGN_OR_RETURN(const Shape shape, ShapeFromProto(proto.tensor_shape()));
  DUET_ASSIGN_OR_RETURN(const int64_t n, CheckedNumElements(shape, *dtype));
  if (!proto.tensor_content().empty()) {
    if (*dtype == kString) {
      return absl::InvalidArgumentError(
          "a DT_STRING TensorProto keeps its values in string_val, not tensor_content");
    }
    return FromContent(*dtype, shape, n, proto.tensor_content());
  }
  return FromTypedFields(proto, *dtype, shape, n);
}

}  // namespace duet
