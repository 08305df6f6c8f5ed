// Replays the TFRecord fuzzer's corpus (tests/fuzz/corpus_tfrecord/) and truncations and byte
// flips of its seeds through the fuzz entry point, so every test run re-checks them.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

TEST_CASE("every TFRecord corpus file, cut anywhere or with a byte flipped, reads safely") {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator("tests/fuzz/corpus_tfrecord")) {
    INFO(entry.path().string());
    const std::string seed = ReadFile(entry.path());
    CHECK(Replay(seed) == 0);
    ++files;
    if (seed.size() > 2000) continue;  // the small seeds cover every region of the framing
    for (size_t n = 1; n < seed.size(); ++n) CHECK(Replay(seed.substr(0, n)) == 0);
    for (size_t i = 1; i < seed.size(); ++i) {
      std::string mutated = seed;
      mutated[i] = static_cast<char>(mutated[i] ^ (i % 2 ? 0x01 : 0x80));
      CHECK(Replay(mutated) == 0);
    }
  }
  CHECK(files >= 5);
}

}  // namespace
}  // namespace duet
