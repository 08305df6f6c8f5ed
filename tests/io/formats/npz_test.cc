// .npz archives written by NumPy's savez and savez_compressed (make_fixtures.py).
#include "io/formats/npz.h"

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

TEST_CASE("loads every array of np.savez and np.savez_compressed archives") {
  for (const std::string name : {"arrays.npz", "arrays_compressed.npz"}) {
    CAPTURE(name);
    std::map<std::string, Tensor> arrays = data::load_npz(Fixture(name));
    REQUIRE(arrays.size() == 3);
    CHECK(arrays.at("a").shape() == Shape{2, 3});
    CHECK(arrays.at("a").to_vector<float>() ==
          std::vector<float>{0.f, 0.25f, 0.5f, 0.75f, 1.f, 1.25f});
    CHECK(arrays.at("b").to_vector<int64_t>() == std::vector<int64_t>{-1, 0, int64_t{1} << 40, 7});
    CHECK(arrays.at("c").dtype() == kUInt8);
    CHECK(arrays.at("c").to_vector<uint8_t>() == std::vector<uint8_t>{0, 255, 7, 128});
  }
}

TEST_CASE("bad .npz archives are errors naming the archive") {
  CHECK_THROWS_WITH(data::load_npz("/nonexistent/a.npz"), Catch::Contains("/nonexistent/a.npz"));
  const char* root = std::getenv("TEST_TMPDIR");
  const std::filesystem::path dir = root != nullptr ? root : "/tmp";
  std::ifstream in(Fixture("arrays_compressed.npz"), std::ios::binary);
  std::string bytes(std::istreambuf_iterator<char>(in), {});
  // Not a zip at all; a zip cut in half (its central directory gone); a flipped data byte.
  std::string flipped = bytes;
  flipped[60] ^= 0x5a;
  for (const auto& [name, contents] : std::vector<std::pair<std::string, std::string>>{
           {"text.npz", "not a zip file"},
           {"half.npz", bytes.substr(0, bytes.size() / 2)},
           {"flipped.npz", flipped}}) {
    CAPTURE(name);
    const std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << contents;
    CHECK_THROWS_WITH(data::load_npz(path), Catch::Contains(name));
  }
}

}  // namespace
}  // namespace duet
