// Replays the TensorBundle fuzzer's corpus (tests/fuzz/corpus_bundle/, including any crashers
// found) and truncations and byte flips of valid bundles through the fuzz entry point, so every
// test run re-checks them.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/constant.h"
#include "io/checkpoint/tensor_bundle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace duet {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

int Replay(const std::string& bytes) {
  return LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

// A fuzz input: the index's length (4 bytes, little-endian), the index, the data file.
std::string Pack(const std::string& prefix) {
  const std::string index = ReadFile(prefix + ".index");
  std::string packed;
  for (int i = 0; i < 4; ++i) packed.push_back(static_cast<char>(index.size() >> (8 * i)));
  return packed + index + ReadFile(prefix + ".data-00000-of-00001");
}

// A small bundle duet wrote: several dtypes, a scalar, an empty tensor, strings.
std::string PackedDuetBundle() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string prefix = std::string(tmp ? tmp : "/tmp") + "/duet_seed/ckpt";
  {
    io::BundleWriter writer(prefix);
    writer.add("a/float32", from_vector(std::vector<float>{1, -2, 3.5f, 0}, {2, 2}));
    writer.add("b/int64", from_vector(std::vector<int64_t>{-1, 1LL << 40}, {2}));
    writer.add("c/bool", from_vector(std::vector<bool>{true, false, true}, {3}));
    writer.add("d/scalar", from_vector(std::vector<double>{2.5}, {}));
    writer.add("e/empty", from_vector(std::vector<int32_t>{}, {0, 4}));
    writer.add_strings("f/strings", {3}, {"", std::string(130, 's'), std::string("\0z", 2)});
    writer.finish();
  }
  return Pack(prefix);
}

TEST_CASE("every corpus file replays without crashing") {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator("tests/fuzz/corpus_bundle")) {
    INFO(entry.path().string());
    CHECK(Replay(ReadFile(entry.path())) == 0);
    ++files;
  }
  CHECK(files > 0);
}

TEST_CASE("truncations and byte flips of valid bundles never crash the reader") {
  const std::string duet = PackedDuetBundle();
  // DUET_WRITE_BUNDLE_SEED=path writes the duet-written seed (tests/fuzz/corpus_bundle/duet).
  if (const char* out = std::getenv("DUET_WRITE_BUNDLE_SEED")) {
    std::ofstream(out, std::ios::binary) << duet;
  }
  for (const std::string& valid : {duet, ReadFile("tests/fuzz/corpus_bundle/tf_fixture")}) {
    REQUIRE(valid.size() > 4);
    CHECK(Replay(valid) == 0);
    for (size_t n = 0; n < valid.size(); n += 5) CHECK(Replay(valid.substr(0, n)) == 0);
    for (size_t i = 0; i < valid.size(); ++i) {
      for (const uint8_t flip : {0x01, 0x80, 0xff}) {
        std::string mutated = valid;
        mutated[i] = static_cast<char>(mutated[i] ^ flip);
        Replay(mutated);
      }
    }
  }
}

}  // namespace
}  // namespace duet
