#include "core/dtype.h"

#include "absl/strings/str_cat.h"

namespace duet {

// Note [Object dtypes]
// A kResource or kVariant tensor is 0-d and holds an object instead of elements: DTypeSize is 0,
// `TensorImpl::data` points at the object and `TensorImpl::resource` owns it (views share the
// owner through `base`, so Identity and function arguments pass the object on). kResource holds
// mutable state (core/resource.h); kVariant an immutable value, so far only a TensorList
// (core/tensor_list.h). Neither has a TensorProto or .npy form, and neither is folded into a
// Const node. Kernel tables have a column for each (kNumAllDTypes), but only ops that pass the
// object on (Identity, the functional ops) register kernels there.

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
    case kUInt8:
      return "uint8";
    case kString:
      return "string";
    case kResource:
      return "resource";
    case kVariant:
      return "variant";
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
    case kUInt8:
      return 1;
    case kString:
      return sizeof(std::string);  // Note [String tensors] in core/tensor.cc
    case kResource:
    case kVariant:
      return 0;  // Note [Object dtypes]
  }
  return 0;
}

bool IsFloating(DType dtype) {
  return dtype == kFloat32 || dtype == kFloat64 || dtype == kFloat16 || dtype == kBFloat16;
}

bool IsInteger(DType dtype) { return dtype == kInt32 || dtype == kInt64 || dtype == kUInt8; }

absl::StatusOr<DType> ParseDType(absl::string_view name) {
  for (int i = 0; i < kNumAllDTypes; ++i) {  // the value dtypes, kResource and kVariant
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
    case kUInt8:
      return 4;  // DT_UINT8
    case kString:
      return 7;  // DT_STRING
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
    case kVariant:
      return 21;  // DT_VARIANT
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
    case 4:
      return kUInt8;
    case 7:
      return kString;
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
    case 21:
      return kVariant;
  }
  return absl::UnimplementedError(
      absl::StrCat("TensorFlow DataType ", proto_dtype, " is not supported by duet"));
}

}  // namespace duet
