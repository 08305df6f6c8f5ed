// Replays the Example fuzzer's corpus (tests/fuzz/corpus_example/) and truncations and byte
// flips of its seeds through the fuzz entry point, which aborts when the fast parser and
// libprotobuf disagree, so every test run re-checks them.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

TEST_CASE("every Example corpus file, cut anywhere or with bits flipped, parses alike") {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator("tests/fuzz/corpus_example")) {
    INFO(entry.path().string());
    const std::string seed = ReadFile(entry.path());
    CHECK(Replay(seed) == 0);
    ++files;
    for (size_t n = 0; n < seed.size(); ++n) CHECK(Replay(seed.substr(0, n)) == 0);
    for (size_t i = 0; i < seed.size(); ++i) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string mutated = seed;
        mutated[i] = static_cast<char>(mutated[i] ^ (1 << bit));
        CHECK(Replay(mutated) == 0);
      }
    }
  }
  CHECK(files >= 4);
}

}  // namespace
}  // namespace duet
