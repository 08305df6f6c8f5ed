// The tf_*.pb fixtures were serialized by TensorFlow 2.21 (testdata/make_tf_protos.py).
#include "core/tensor_proto.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "core/constant.h"
#include "tests/test_util.h"

namespace duet {
namespace {

tensorflow::TensorProto ReadFixture(const std::string& name) {
  std::ifstream in(testing::Testdata("core", "tf_" + name + ".pb"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  tensorflow::TensorProto proto;
  REQUIRE(!bytes.empty());
  REQUIRE(proto.ParseFromString(bytes));
  return proto;
}

Tensor Decode(const tensorflow::TensorProto& proto) {
  absl::StatusOr<Tensor> t = TensorFromProto(proto);
  INFO(t.status().ToString());
  REQUIRE(t.ok());
  return *t;
}

// A proto with dtype and shape set, for hand-built typed-field cases.
tensorflow::TensorProto Proto(tensorflow::DataType dtype, std::initializer_list<int64_t> dims) {
  tensorflow::TensorProto p;
  p.set_dtype(dtype);
  ShapeToProto(Shape(dims), p.mutable_tensor_shape());
  return p;
}

void ExpectInvalid(const tensorflow::TensorProto& proto,
                   const std::vector<std::string>& fragments) {
  const absl::Status status = TensorFromProto(proto).status();
  INFO(status.ToString());
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  for (const auto& f : fragments) CHECK(status.message().find(f) != absl::string_view::npos);
}

TEST_CASE("Round trips every dtype through serialized bytes") {
  const std::vector<Tensor> tensors = {constant({{1.5f, -2.f}, {3.25f, 1e-3f}}),
                                       constant(3.141592653589793),
                                       fill({3}, 0.1, kFloat16),
                                       fill({2, 1}, -0.3, kBFloat16),
                                       constant({1, -2, 2147483647}),
                                       constant({int64_t{-1} << 62, int64_t{5}}),
                                       constant({true, false, true}),
                                       from_vector<uint8_t>({0, 255, 7}, {3, 1}),
                                       zeros({0, 4}, kInt32)};
  for (const Tensor& t : tensors) {
    tensorflow::TensorProto proto;
    REQUIRE(TensorToProto(t, &proto).ok());
    CHECK(proto.tensor_content().size() == t.nbytes());
    tensorflow::TensorProto parsed;
    REQUIRE(parsed.ParseFromString(proto.SerializeAsString()));
    testing::ExpectTensorNear(Decode(parsed), t, 0);
  }
}

TEST_CASE("String tensors round trip through string_val, one entry per element") {
  const std::string nuls("\0x\0", 3);
  const std::string long_string((1 << 20) + 7, 'L');  // over 1 MiB
  const Tensor t = from_vector<std::string>({"", nuls, long_string, "abc"}, {2, 2});
  tensorflow::TensorProto proto;
  REQUIRE(TensorToProto(t, &proto).ok());
  CHECK(proto.dtype() == tensorflow::DT_STRING);
  CHECK(proto.tensor_content().empty());
  REQUIRE(proto.string_val_size() == 4);
  CHECK(proto.string_val(1) == nuls);
  tensorflow::TensorProto parsed;
  REQUIRE(parsed.ParseFromString(proto.SerializeAsString()));
  const Tensor back = Decode(parsed);
  CHECK(back.dtype() == kString);
  CHECK(back.shape() == Shape{2, 2});
  CHECK(back.to_vector<std::string>() == t.to_vector<std::string>());
  REQUIRE(TensorToProto(Tensor::Empty(kString, {0, 3}), &proto).ok());
  CHECK(Decode(proto).shape() == Shape{0, 3});
}

TEST_CASE("Reads uint8 and string TensorProtos serialized by TensorFlow") {
  testing::ExpectTensor(Decode(ReadFixture("u8_vec")), kUInt8, {3}, {0, 255, 7}, 0);
  testing::ExpectTensor(Decode(ReadFixture("u8_fill")), kUInt8, {2, 2}, {200, 200, 200, 200}, 0);
  const Tensor strings = Decode(ReadFixture("string_vec"));
  CHECK(strings.shape() == Shape{3});
  CHECK(strings.to_vector<std::string>() ==
        std::vector<std::string>{"abc", "", std::string("a\0b\xff", 4)});
  // TensorFlow writes a constant-filled string tensor as one string_val entry.
  CHECK(Decode(ReadFixture("string_fill")).to_vector<std::string>() ==
        std::vector<std::string>{"hi", "hi", "hi"});
}

TEST_CASE("Malformed uint8 and string protos are InvalidArgument") {
  auto u = Proto(tensorflow::DT_UINT8, {2});
  u.add_int_val(256);
  ExpectInvalid(u, {"int_val", "256", "uint8"});
  auto s = Proto(tensorflow::DT_STRING, {1});
  s.add_string_val("a");
  s.add_string_val("b");
  ExpectInvalid(s, {"2 values in string_val", "(1,)"});
  auto content = Proto(tensorflow::DT_STRING, {1});
  content.set_tensor_content("abc");
  ExpectInvalid(content, {"string_val", "tensor_content"});
  auto huge = Proto(tensorflow::DT_STRING, {int64_t{1} << 20});
  huge.add_string_val(std::string(4096, 'x'));  // repeated: 4 GiB
  ExpectInvalid(huge, {"repeats", "4096-byte"});
  testing::ExpectTensor(Decode(Proto(tensorflow::DT_UINT8, {2})), kUInt8, {2}, {0, 0}, 0);
  CHECK(Decode(Proto(tensorflow::DT_STRING, {2})).to_vector<std::string>() ==
        std::vector<std::string>{"", ""});
}

TEST_CASE("Writes TensorFlow's dtype numbers and shape") {
  tensorflow::TensorProto proto;
  REQUIRE(TensorToProto(fill({2, 3}, 1, kBFloat16), &proto).ok());
  CHECK(proto.dtype() == tensorflow::DT_BFLOAT16);
  REQUIRE(proto.tensor_shape().dim_size() == 2);
  CHECK(proto.tensor_shape().dim(1).size() == 3);
  CHECK_FALSE(proto.tensor_shape().unknown_rank());
  REQUIRE(TensorToProto(constant(1.f), &proto).ok());  // Clear()s what was there
  CHECK(proto.dtype() == tensorflow::DT_FLOAT);
  CHECK(proto.tensor_shape().dim_size() == 0);
}

TEST_CASE("Reads TensorProtos serialized by TensorFlow") {
  testing::ExpectTensor(Decode(ReadFixture("f32_2x3")), kFloat32, {2, 3},
                        {1.5, -2, 3.25, 0, 1e-3, -7});
  testing::ExpectTensor(Decode(ReadFixture("f32_fill")), kFloat32, {2, 2}, {2.5, 2.5, 2.5, 2.5});
  testing::ExpectTensor(Decode(ReadFixture("f64_scalar")), kFloat64, {}, {3.141592653589793}, 0);
  testing::ExpectTensor(Decode(ReadFixture("f16_vec")), kFloat16, {3}, {0.5, -1, 65504}, 0);
  CHECK(Decode(ReadFixture("f16_scalar")).item<float16>().bits == float16(0.1f).bits);
  testing::ExpectTensor(Decode(ReadFixture("bf16_vec")), kBFloat16, {3}, {0.5, -1, 3}, 0);
  CHECK(Decode(ReadFixture("bf16_scalar")).item<bfloat16>().bits == bfloat16(0.1f).bits);
  testing::ExpectTensor(Decode(ReadFixture("i32_vec")), kInt32, {3}, {1, -2, 2147483647}, 0);
  CHECK(Decode(ReadFixture("i64_fill")).to_vector<int64_t>() == std::vector<int64_t>{7, 7, 7});
  CHECK(Decode(ReadFixture("i64_vec")).to_vector<int64_t>() ==
        std::vector<int64_t>{int64_t{-1} << 62, 5, int64_t{1} << 40});
  testing::ExpectTensor(Decode(ReadFixture("bool_vec")), kBool, {3}, {1, 0, 1});
  testing::ExpectTensor(Decode(ReadFixture("bool_scalar")), kBool, {}, {1});
}

TEST_CASE("Typed fields: the last value repeats, none means zeros") {
  auto p = Proto(tensorflow::DT_FLOAT, {2, 2});
  p.add_float_val(1.5f);
  p.add_float_val(-2.f);
  testing::ExpectTensor(Decode(p), kFloat32, {2, 2}, {1.5, -2, -2, -2});
  testing::ExpectTensor(Decode(Proto(tensorflow::DT_DOUBLE, {3})), kFloat64, {3}, {0, 0, 0});
  auto i = Proto(tensorflow::DT_INT32, {3});
  i.add_int_val(4);
  testing::ExpectTensor(Decode(i), kInt32, {3}, {4, 4, 4});
  auto l = Proto(tensorflow::DT_INT64, {2});
  l.add_int64_val(int64_t{1} << 50);
  CHECK(Decode(l).to_vector<int64_t>() == std::vector<int64_t>{int64_t{1} << 50, int64_t{1} << 50});
  auto b = Proto(tensorflow::DT_BOOL, {3});
  b.add_bool_val(false);
  b.add_bool_val(true);
  testing::ExpectTensor(Decode(b), kBool, {3}, {0, 1, 1});
  auto h = Proto(tensorflow::DT_HALF, {2});
  h.add_half_val(0x3c00);  // 1.0
  h.add_half_val(0xc000);  // -2.0
  testing::ExpectTensor(Decode(h), kFloat16, {2}, {1, -2});
  auto bf = Proto(tensorflow::DT_BFLOAT16, {3});
  bf.add_half_val(0x3fc0);  // 1.5
  testing::ExpectTensor(Decode(bf), kBFloat16, {3}, {1.5, 1.5, 1.5});
  auto bf_int = Proto(tensorflow::DT_BFLOAT16, {2});
  bf_int.add_int_val(0xc040);  // -3.0, the int_val form older writers use
  testing::ExpectTensor(Decode(bf_int), kBFloat16, {2}, {-3, -3});
  testing::ExpectTensor(Decode(Proto(tensorflow::DT_BOOL, {0})), kBool, {0}, {});
}

TEST_CASE("tensor_content wins over typed fields and nonzero bool bytes read as true") {
  auto p = Proto(tensorflow::DT_BOOL, {3});
  p.set_tensor_content(std::string("\x00\x02\xff", 3));
  p.add_bool_val(false);
  testing::ExpectTensor(Decode(p), kBool, {3}, {0, 1, 1});
}

TEST_CASE("Malformed protos are InvalidArgument") {
  ExpectInvalid(Proto(tensorflow::DT_COMPLEX64, {1}), {"dtype 8", "not supported"});
  ExpectInvalid(Proto(static_cast<tensorflow::DataType>(101), {1}), {"dtype 101"});
  ExpectInvalid(Proto(tensorflow::DT_INVALID, {}), {"dtype 0"});
  auto negative = Proto(tensorflow::DT_FLOAT, {2});
  negative.mutable_tensor_shape()->mutable_dim(0)->set_size(-5);
  ExpectInvalid(negative, {"dim 0 has size -5"});
  auto unknown_dim = Proto(tensorflow::DT_FLOAT, {2});
  unknown_dim.mutable_tensor_shape()->mutable_dim(0)->set_size(-1);
  ExpectInvalid(unknown_dim, {"fully defined", "(None,)"});
  auto unknown_rank = Proto(tensorflow::DT_FLOAT, {});
  unknown_rank.mutable_tensor_shape()->set_unknown_rank(true);
  ExpectInvalid(unknown_rank, {"fully defined", "<unknown>"});
  auto short_content = Proto(tensorflow::DT_INT32, {3});
  short_content.set_tensor_content(std::string(11, '\0'));
  ExpectInvalid(short_content, {"11 bytes", "(3,)", "needs 12"});
  auto too_many = Proto(tensorflow::DT_FLOAT, {2});
  for (int k = 0; k < 3; ++k) too_many.add_float_val(1);
  ExpectInvalid(too_many, {"3 values in float_val", "holds 2"});
  auto bad_half = Proto(tensorflow::DT_HALF, {1});
  bad_half.add_half_val(70000);
  ExpectInvalid(bad_half, {"half_val value 70000"});
  auto huge = Proto(tensorflow::DT_FLOAT, {int64_t{1} << 20, int64_t{1} << 20});
  huge.add_float_val(1);
  ExpectInvalid(huge, {"exceeds"});
  auto overflow = Proto(tensorflow::DT_FLOAT, {int64_t{1} << 40, int64_t{1} << 40, -1});
  ExpectInvalid(overflow, {"more than 2^63 elements"});
}

TEST_CASE("Shapes round trip, unknown dims and rank included") {
  for (const Shape& s :
       {Shape{}, Shape{3}, Shape{2, Shape::kUnknownDim, 0}, Shape::UnknownRank()}) {
    tensorflow::TensorShapeProto proto;
    ShapeToProto(s, &proto);
    absl::StatusOr<Shape> back = ShapeFromProto(proto);
    REQUIRE(back.ok());
    CHECK(*back == s);
  }
  tensorflow::TensorShapeProto both;
  both.set_unknown_rank(true);
  both.add_dim()->set_size(2);
  CHECK(ShapeFromProto(both).status().code() == absl::StatusCode::kInvalidArgument);
  tensorflow::TensorShapeProto deep;
  for (int i = 0; i < 300; ++i) deep.add_dim()->set_size(1);
  CHECK(ShapeFromProto(deep).status().message().find("at most 254") != absl::string_view::npos);
}

TEST_CASE("Encoding needs a concrete tensor") {
  tensorflow::TensorProto proto;
  CHECK(TensorToProto(Tensor(), &proto).code() == absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace duet
