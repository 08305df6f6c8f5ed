#include "core/dtype.h"

#include <catch2/catch.hpp>
#include <string>

namespace duet {
namespace {

TEST_CASE("Every dtype has a name, a size and a TensorFlow DataType number") {
  struct Row {
    DType dtype;
    const char* name;
    int size;
    int proto;
  };
  const Row rows[] = {{kFloat32, "float32", 4, 1},
                      {kFloat64, "float64", 8, 2},
                      {kFloat16, "float16", 2, 19},
                      {kBFloat16, "bfloat16", 2, 14},
                      {kInt32, "int32", 4, 3},
                      {kInt64, "int64", 8, 9},
                      {kBool, "bool", 1, 10},
                      {kUInt8, "uint8", 1, 4},
                      {kString, "string", static_cast<int>(sizeof(std::string)), 7}};
  REQUIRE(std::size(rows) == kNumDTypes);
  for (const Row& r : rows) {
    INFO(r.name);
    CHECK(DTypeName(r.dtype) == r.name);
    CHECK(DTypeSize(r.dtype) == r.size);
    CHECK(ToProtoDataType(r.dtype) == r.proto);
    CHECK(*FromProtoDataType(r.proto) == r.dtype);
    CHECK(*ParseDType(r.name) == r.dtype);
  }
}

TEST_CASE("C++ element types map to dtypes") {
  STATIC_REQUIRE(DTypeOf<float>() == kFloat32);
  STATIC_REQUIRE(DTypeOf<double>() == kFloat64);
  STATIC_REQUIRE(DTypeOf<float16>() == kFloat16);
  STATIC_REQUIRE(DTypeOf<bfloat16>() == kBFloat16);
  STATIC_REQUIRE(DTypeOf<int32_t>() == kInt32);
  STATIC_REQUIRE(DTypeOf<int64_t>() == kInt64);
  STATIC_REQUIRE(DTypeOf<bool>() == kBool);
  STATIC_REQUIRE(DTypeOf<uint8_t>() == kUInt8);
  STATIC_REQUIRE(DTypeOf<std::string>() == kString);
  for (int i = 0; i < kNumNumericDTypes; ++i) {
    const DType d = static_cast<DType>(i);
    CHECK(VisitDType(d, [](auto zero) { return static_cast<int>(sizeof(zero)); }) == DTypeSize(d));
  }
}

TEST_CASE("Floating and integer classification") {
  for (DType d : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    CHECK(IsFloating(d));
    CHECK_FALSE(IsInteger(d));
  }
  for (DType d : {kInt32, kInt64, kUInt8}) {
    CHECK(IsInteger(d));
    CHECK_FALSE(IsFloating(d));
  }
  CHECK_FALSE(IsFloating(kBool));
  CHECK_FALSE(IsInteger(kBool));
  CHECK_FALSE(IsFloating(kString));
  CHECK_FALSE(IsInteger(kString));
}

TEST_CASE("Numeric dtypes come first; kString is the last value dtype") {
  for (int i = 0; i < kNumNumericDTypes; ++i) CHECK(IsNumeric(static_cast<DType>(i)));
  CHECK(static_cast<int>(kString) == kNumNumericDTypes);
  CHECK(static_cast<int>(kString) == kNumDTypes - 1);
  for (DType d : {kString, kResource, kVariant}) CHECK_FALSE(IsNumeric(d));
}

TEST_CASE("ParseDType accepts C spellings and rejects unknown names") {
  CHECK(*ParseDType("float") == kFloat32);
  CHECK(*ParseDType("double") == kFloat64);
  CHECK(*ParseDType("half") == kFloat16);
  const auto bad = ParseDType("complex64");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(bad.status().message().find("complex64") != absl::string_view::npos);
}

TEST_CASE("Unsupported TensorFlow DataTypes are reported by number") {
  for (int proto : {0, 5, 6, 18, 101}) {
    const auto d = FromProtoDataType(proto);
    REQUIRE_FALSE(d.ok());
    CHECK(d.status().message().find(std::to_string(proto)) != absl::string_view::npos);
  }
}

}  // namespace
}  // namespace duet
