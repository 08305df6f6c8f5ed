// IDX files (MNIST's format): every element type, gzipped or not, against fixtures NumPy wrote
// (make_fixtures.py), and every way a file can be bad.
#include "io/formats/idx.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "catch2/catch.hpp"
#include "core/error.h"
#include "tests/test_util.h"

namespace duet {
namespace {

std::string Fixture(const std::string& name) { return testing::Testdata("io/formats", name); }

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  const char* root = std::getenv("TEST_TMPDIR");
  std::string path = (std::filesystem::path(root != nullptr ? root : "/tmp") / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_CASE("reads every IDX element type, plain and gzipped") {
  for (const std::string suffix : {".idx", ".idx.gz"}) {
    CAPTURE(suffix);
    Tensor u8 = data::read_idx(Fixture("uint8" + suffix));
    CHECK(u8.dtype() == kUInt8);
    CHECK(u8.shape() == Shape{2, 3});
    CHECK(u8.to_vector<uint8_t>() == std::vector<uint8_t>{0, 1, 127, 128, 254, 255});
    // int8 and int16 have no duet dtype: they widen to int32, keeping their sign.
    CHECK(data::read_idx(Fixture("int8" + suffix)).to_vector<int32_t>() ==
          std::vector<int32_t>{-128, -1, 0, 1, 2, 127});
    CHECK(data::read_idx(Fixture("int16" + suffix)).to_vector<int32_t>() ==
          std::vector<int32_t>{-32768, -300, 0, 1, 300, 32767});
    CHECK(data::read_idx(Fixture("int32" + suffix)).to_vector<int32_t>() ==
          std::vector<int32_t>{INT32_MIN, -70000, 0, 1, 70000, INT32_MAX});
    CHECK(data::read_idx(Fixture("float32" + suffix)).to_vector<float>() ==
          std::vector<float>{-1.5f, 0.f, 0.25f, 3.f, 1e-3f, 65504.f});
    CHECK(data::read_idx(Fixture("float64" + suffix)).to_vector<double>() ==
          std::vector<double>{-1.5, 0., 0.1, 3., 1e-300, 1e300});
  }
}

TEST_CASE("bad IDX files are errors naming the file") {
  CHECK_THROWS_WITH(data::read_idx("/nonexistent/train.idx"),
                    Catch::Contains("/nonexistent/train.idx"));
  const std::string good = ReadBytes(Fixture("int32.idx"));
  std::string bad_magic = good;
  bad_magic[0] = 1;
  CHECK_THROWS_WITH(data::read_idx(WriteTemp("magic.idx", bad_magic)),
                    Catch::Contains("magic.idx") && Catch::Contains("not an IDX file"));
  std::string bad_type = good;
  bad_type[2] = 0x42;
  CHECK_THROWS_WITH(data::read_idx(WriteTemp("type.idx", bad_type)),
                    Catch::Contains("element type 0x42"));
  // Cut inside the header, the dimensions and the data.
  for (size_t size : {size_t{2}, size_t{6}, good.size() - 1}) {
    CAPTURE(size);
    CHECK_THROWS_WITH(data::read_idx(WriteTemp("short.idx", good.substr(0, size))),
                      Catch::Contains("short.idx") && Catch::Contains("truncated"));
  }
  // Dimensions whose product no memory holds.
  std::string huge = std::string("\0\0\x08\x03", 4) + std::string(12, '\xff');
  CHECK_THROWS_WITH(data::read_idx(WriteTemp("huge.idx", huge)), Catch::Contains("too large"));
  // A gzip stream cut short.
  const std::string gz = ReadBytes(Fixture("float64.idx.gz"));
  CHECK_THROWS_WITH(data::read_idx(WriteTemp("cut.idx.gz", gz.substr(0, gz.size() / 2))),
                    Catch::Contains("cut.idx.gz"));
}

}  // namespace
}  // namespace duet
