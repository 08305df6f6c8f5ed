// Replays the GraphDef fuzzer's corpus (tests/fuzz/corpus/, including any crashers found) and
// mutations of valid graphs through the fuzz entry point, so every test run re-checks them.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "duet.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace duet {
namespace {

int Replay(const std::string& bytes) {
  return LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

std::string SerializedMlp() {
  Graph g;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kFloat32, {-1, 3}, "x");
    const Tensor h = relu(bias_add(matmul(x, constant({{1.f}, {2.f}, {3.f}})), constant({0.5f})));
    reduce_sum(concat({h, h}, 1), {1}, /*keep_dims=*/false, "y");
  }
  return g.to_graph_def().SerializeAsString();
}

TEST_CASE("every corpus file replays without crashing") {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator("tests/fuzz/corpus")) {
    std::ifstream file(entry.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << file.rdbuf();
    INFO(entry.path().string());
    CHECK(Replay(bytes.str()) == 0);
    ++files;
  }
  CHECK(files > 0);
}

TEST_CASE("truncations and byte flips of a valid graph never crash the importer") {
  const std::string valid = SerializedMlp();
  CHECK(Replay(valid) == 0);
  for (size_t n = 0; n < valid.size(); n += 7) CHECK(Replay(valid.substr(0, n)) == 0);
  for (size_t i = 0; i < valid.size(); ++i) {
    for (const uint8_t flip : {0x01, 0x80, 0xff}) {
      std::string mutated = valid;
      mutated[i] = static_cast<char>(mutated[i] ^ flip);
      Replay(mutated);
    }
  }
}

}  // namespace
}  // namespace duet
