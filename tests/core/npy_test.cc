// The fixtures in testdata/ were written by NumPy (testdata/make_fixtures.py).
#include "core/npy.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "core/constant.h"
#include "tests/test_util.h"

namespace duet {
namespace {

std::string Fixture(const std::string& name) { return testing::Testdata("core", name); }

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

Tensor Read(const std::string& name) {
  absl::StatusOr<Tensor> t = ReadNpy(Fixture(name));
  INFO(t.status().ToString());
  REQUIRE(t.ok());
  return *t;
}

// Requires `status` to be InvalidArgument with every fragment in its message.
void ExpectInvalid(const absl::Status& status, const std::vector<std::string>& fragments) {
  INFO(status.ToString());
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  for (const auto& f : fragments) CHECK(status.message().find(f) != absl::string_view::npos);
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

TEST_CASE("Reads every supported dtype written by NumPy") {
  testing::ExpectTensor(Read("f4_2x3.npy"), kFloat32, {2, 3}, {1.5, -2, 3.25, 0, 1e-3, -7});
  testing::ExpectTensor(Read("f8_scalar.npy"), kFloat64, {}, {3.141592653589793}, 0);
  testing::ExpectTensor(Read("f2_vec.npy"), kFloat16, {3}, {0.5, -1, 65504}, 0);
  testing::ExpectTensor(Read("i4_vec.npy"), kInt32, {3}, {1, -2, 2147483647}, 0);
  CHECK(Read("i8_2x2.npy").to_vector<int64_t>() ==
        std::vector<int64_t>{-(int64_t{1} << 62), 5, 6, int64_t{1} << 40});
  testing::ExpectTensor(Read("b1_vec.npy"), kBool, {3}, {1, 0, 1});
  testing::ExpectTensor(Read("empty_0x3.npy"), kFloat32, {0, 3}, {});
}

TEST_CASE("Reads format versions 2.0 and 3.0") {
  testing::ExpectTensor(Read("v2_f4.npy"), kFloat32, {4}, {0, 1, 2, 3});
  testing::ExpectTensor(Read("v3_i8.npy"), kInt64, {3}, {0, 1, 2});
}

TEST_CASE("Writes the same bytes as NumPy") {
  const Tensor t = constant({{1.5f, -2.f, 3.25f}, {0.f, 1e-3f, -7.f}});
  absl::StatusOr<std::string> bytes = EncodeNpy(t);
  REQUIRE(bytes.ok());
  CHECK(*bytes == FileBytes(Fixture("f4_2x3.npy")));
  CHECK(*EncodeNpy(constant(3.141592653589793)) == FileBytes(Fixture("f8_scalar.npy")));
  CHECK(*EncodeNpy(constant({true, false, true})) == FileBytes(Fixture("b1_vec.npy")));
  CHECK(*EncodeNpy(from_vector<uint8_t>({0, 255, 7, 128, 1, 200}, {2, 3})) ==
        FileBytes(Fixture("u1_2x3.npy")));
}

TEST_CASE("Reads uint8 ('|u1') arrays NumPy wrote") {
  testing::ExpectTensor(Read("u1_2x3.npy"), kUInt8, {2, 3}, {0, 255, 7, 128, 1, 200}, 0);
  testing::ExpectTensor(Read("u1_vec.npy"), kUInt8, {3}, {0, 1, 2}, 0);
}

TEST_CASE("Round trips every NumPy dtype through a file") {
  const std::vector<Tensor> tensors = {constant({{1.f, 2.f}, {3.f, 4.f}}),
                                       constant(2.5),
                                       fill({2, 2}, 0.375, kFloat16),
                                       constant({7, -8, 9}),
                                       range(0, 6, 1, kInt64).reshaped({1, 2, 3}),
                                       constant({false, true}),
                                       from_vector<uint8_t>({3, 250}, {2, 1}),
                                       zeros({3, 0}, kInt32)};
  const std::string path = TempPath("round_trip.npy");
  for (const Tensor& t : tensors) {
    REQUIRE(WriteNpy(t, path).ok());
    absl::StatusOr<Tensor> back = ReadNpy(path);
    REQUIRE(back.ok());
    testing::ExpectTensorNear(*back, t, 0);
  }
  std::remove(path.c_str());
}

TEST_CASE("Rejects what it cannot represent, naming the path") {
  const std::string fortran = Fixture("fortran_2x3.npy");
  ExpectInvalid(ReadNpy(fortran).status(), {fortran, "Fortran"});
  ExpectInvalid(ReadNpy(Fixture("bigendian.npy")).status(), {"bigendian.npy", "big-endian", ">f4"});
  ExpectInvalid(WriteNpy(constant({"a"}), TempPath("s.npy")), {"s.npy", "string", ".npy"});
  ExpectInvalid(ReadNpy(Fixture("truncated.npy")).status(),
                {"truncated.npy", "needs 24 data bytes but the file has 20", "truncated"});
  const absl::Status missing = ReadNpy(TempPath("no_such_file.npy")).status();
  CHECK(missing.code() == absl::StatusCode::kNotFound);
  CHECK(missing.message().find("no_such_file.npy") != absl::string_view::npos);
  const absl::Status bf16 = WriteNpy(fill({2}, 1, kBFloat16), TempPath("x.npy"));
  ExpectInvalid(bf16, {"x.npy", "bfloat16 has no NumPy dtype"});
}

TEST_CASE("Malformed bytes give errors, never crashes") {
  const std::string good = *EncodeNpy(constant({1.f, 2.f}));
  ExpectInvalid(DecodeNpy("").status(), {"not a .npy file"});
  ExpectInvalid(DecodeNpy("\x93NUMPY").status(), {"not a .npy file"});
  std::string bad_version = good;
  bad_version[6] = 9;
  ExpectInvalid(DecodeNpy(bad_version).status(), {"version 9.0"});
  ExpectInvalid(DecodeNpy(good.substr(0, 9)).status(), {"truncated .npy header"});
  ExpectInvalid(DecodeNpy(good.substr(0, 40)).status(), {"truncated .npy header"});
  ExpectInvalid(DecodeNpy(good + "xx").status(), {"trailing bytes"});
  // Same-length edits of the header text.
  auto edit = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const size_t at = s.find(from);
    REQUIRE(at != std::string::npos);
    REQUIRE(from.size() == to.size());
    return s.replace(at, from.size(), to);
  };
  ExpectInvalid(DecodeNpy(edit("(2,)", "(-2)")).status(), {"malformed", "non-negative"});
  ExpectInvalid(DecodeNpy(edit("'shape'", "'shapf'")).status(), {"unexpected key 'shapf'"});
  ExpectInvalid(DecodeNpy(edit("False", "Flase")).status(), {"True or False"});
  ExpectInvalid(DecodeNpy(edit("(2,)", "(9,)")).status(), {"truncated"});
  ExpectInvalid(DecodeNpy(edit("{'descr'", "['descr'")).status(), {"expected '{'"});
  // A shape whose element count overflows 64 bits.
  std::string huge = good;
  const std::string dims = "(4294967296, 4294967296, 4294967296)";
  const size_t at = huge.find("(2,)");
  huge.replace(at, 4, dims);
  huge.erase(huge.find('\n') - (dims.size() - 4), dims.size() - 4);  // keep the header length
  ExpectInvalid(DecodeNpy(huge).status(), {"too many elements"});
}

TEST_CASE("Writing needs a concrete CPU tensor") {
  CHECK(EncodeNpy(Tensor()).status().code() == absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace duet
