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
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/table.h"

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

// The same as a structured fuzz input: the index's records, then the data file.
std::string PackStructured(const std::string& prefix) {
  const std::string path = prefix + ".index";
  uint64_t size = 0;
  leveldb::RandomAccessFile* file = nullptr;
  REQUIRE(leveldb::Env::Default()->GetFileSize(path, &size).ok());
  REQUIRE(leveldb::Env::Default()->NewRandomAccessFile(path, &file).ok());
  std::unique_ptr<leveldb::RandomAccessFile> file_owner(file);
  leveldb::Table* table = nullptr;
  REQUIRE(leveldb::Table::Open(leveldb::Options(), file, size, &table).ok());
  std::unique_ptr<leveldb::Table> table_owner(table);
  std::unique_ptr<leveldb::Iterator> it(table->NewIterator(leveldb::ReadOptions()));
  std::string records;
  const auto put = [&](const leveldb::Slice& bytes) {
    for (size_t n = bytes.size(); true; n >>= 7) {
      records.push_back(static_cast<char>(n >= 0x80 ? (n & 0x7f) | 0x80 : n));
      if (n < 0x80) break;
    }
    records.append(bytes.data(), bytes.size());
  };
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    put(it->key());
    put(it->value());
  }
  std::string packed;
  const uint32_t length = static_cast<uint32_t>(records.size()) | 0x80000000u;
  for (int i = 0; i < 4; ++i) packed.push_back(static_cast<char>(length >> (8 * i)));
  return packed + records + ReadFile(prefix + ".data-00000-of-00001");
}

// A small bundle duet wrote: several dtypes, a scalar, an empty tensor, strings.
std::string WriteDuetBundle() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string prefix = std::string(tmp ? tmp : "/tmp") + "/duet_seed/ckpt";
  {
    io::BundleWriter writer(prefix);
    writer.add("a/float32", from_vector(std::vector<float>{1, -2, 3.5f, 0}, {2, 2}));
    writer.add("b/int64", from_vector(std::vector<int64_t>{-1, 1LL << 40}, {2}));
    writer.add("c/bool", from_vector(std::vector<bool>{true, false, true}, {3}));
    writer.add("d/scalar", from_vector(std::vector<double>{2.5}, {}));
    writer.add("e/empty", from_vector(std::vector<int32_t>{}, {0, 4}));
    writer.add("f/strings",
               from_vector<std::string>({"", std::string(130, 's'), std::string("\0z", 2)}));
    writer.finish();
  }
  return prefix;
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
  const std::string duet = WriteDuetBundle();
  const std::vector<std::string> seeds = {Pack(duet), PackStructured(duet),
                                          ReadFile("tests/fuzz/corpus_bundle/tf_fixture"),
                                          PackStructured("tests/io/checkpoint/testdata/tf_bundle")};
  // DUET_WRITE_BUNDLE_SEEDS=dir writes the seeds made here (tests/fuzz/corpus_bundle/).
  if (const char* dir = std::getenv("DUET_WRITE_BUNDLE_SEEDS")) {
    std::ofstream(std::string(dir) + "/duet_bundle", std::ios::binary) << seeds[0];
    std::ofstream(std::string(dir) + "/duet_bundle_structured", std::ios::binary) << seeds[1];
    std::ofstream(std::string(dir) + "/tf_fixture_structured", std::ios::binary) << seeds[3];
  }
  for (const std::string& valid : seeds) {
    REQUIRE(valid.size() > 4);
    CHECK(Replay(valid) == 0);
    for (size_t n = 0; n < valid.size(); n += 5) CHECK(Replay(valid.substr(0, n)) == 0);
    const uint8_t flips[] = {0x01, 0x80, 0xff};
    for (size_t i = 0; i < valid.size(); ++i) {
      std::string mutated = valid;
      mutated[i] = static_cast<char>(mutated[i] ^ flips[i % 3]);
      Replay(mutated);
    }
  }
}

}  // namespace
}  // namespace duet
