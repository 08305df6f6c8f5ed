#include "core/dtype.h"

#include "absl/strings/str_cat.h"

namespace duet {

absl::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case kFloat32:
      return "float32";
    case kFloat64:
      return "float64";
    case kFloat16:
      return "float16";
    case kBFloat16:
      return "bfloat16";
    case kInt32:
      return "int32";
    case kInt64:
      return "int64";
    case kBool:
      return "bool";
    case kResource:
      return "resource";
  }
  return "invalid";
}

int DTypeSize(DType dtype) {
  switch (dtype) {
    case kFloat32:
      return 4;
    case kFloat64:
      return 8;
    case kFloat16:
      return 2;
    case kBFloat16:
      return 2;
    case kInt32:
      return 4;
    case kInt64:
      return 8;
    case kBool:
      return 1;
    case kResource:
      return 0;  // a resource tensor holds a handle, not elements
  }
  return 0;
}

bool IsFloating(DType dtype) {
  return dtype == kFloat32 || dtype == kFloat64 || dtype == kFloat16 || dtype == kBFloat16;
}

bool IsInteger(DType dtype) { return dtype == kInt32 || dtype == kInt64; }

absl::StatusOr<DType> ParseDType(absl::string_view name) {
  for (int i = 0; i <= kNumDTypes; ++i) {  // the value dtypes and kResource
    DType d = static_cast<DType>(i);
    if (DTypeName(d) == name) return d;
  }
  if (name == "float") return kFloat32;
  if (name == "double") return kFloat64;
  if (name == "half") return kFloat16;
  return absl::InvalidArgumentError(absl::StrCat("unknown dtype '", name, "'"));
}

int ToProtoDataType(DType dtype) {
  switch (dtype) {
    case kFloat32:
      return 1;  // DT_FLOAT
    case kFloat64:
      return 2;  // DT_DOUBLE
    case kInt32:
      return 3;  // DT_INT32
    case kInt64:
      return 9;  // DT_INT64
    case kBool:
      return 10;  // DT_BOOL
    case kBFloat16:
      return 14;  // DT_BFLOAT16
    case kFloat16:
      return 19;  // DT_HALF
    case kResource:
      return 20;  // DT_RESOURCE
  }
  return 0;
}

absl::StatusOr<DType> FromProtoDataType(int proto_dtype) {
  switch (proto_dtype) {
    case 1:
      return kFloat32;
    case 2:
      return kFloat64;
    case 3:
      return kInt32;
    case 9:
      return kInt64;
    case 10:
      return kBool;
    case 14:
      return kBFloat16;
    case 19:
      return kFloat16;
    case 20:
      return kResource;
  }
  return absl::UnimplementedError(
      absl::StrCat("TensorFlow DataType ", proto_dtype, " is not supported by duet"));
}

}  // namespace duet
