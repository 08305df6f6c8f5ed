// libFuzzer entry point for the TensorBundle reader: an input is a bundle, its first 4 bytes
// (little-endian) the length of the index part, then the index part, then the data file. Every
// key's entry is read; a duet::Error is fine, a crash, leak or sanitizer
// report is not.
// With the length's top bit clear the index part is the .index file as it is. With it set, the
// index part is records [varint32 key size][key][varint32 value size][value] that the harness
// writes into a table itself (adding a valid header under "" when no record has that key): the
// table's block checksums would otherwise stop nearly every mutation of the entries behind them.
// Built with clang-16 and --config=fuzz, run for 10 minutes on a copy of the seed corpus
// tests/fuzz/corpus_bundle/: docs/checkpoints.md, "Fuzzing the checkpoint reader", has the
// commands. tests/fuzz/tensor_bundle_fuzz_test.cc replays the corpus in every test run.
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

#include "core/error.h"
#include "google/protobuf/stubs/logging.h"
#include "io/checkpoint/tensor_bundle.h"
#include "leveldb/env.h"
#include "leveldb/options.h"
#include "leveldb/table_builder.h"
#include "proto/tensor_bundle.pb.h"

namespace {

// Malformed protos make protobuf log an error per input; the fuzzer only cares about crashes.
const bool kQuietProtobuf = [] {
  google::protobuf::SetLogHandler(nullptr);
  return true;
}();

// A directory of this process's own for the two files (in memory where /dev/shm exists).
const std::string& Prefix() {
  static const std::string* prefix = [] {
    std::string dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    if (const char* tmp = getenv("TEST_TMPDIR")) dir = tmp;
    std::string templ = dir + "/tensor_bundle_fuzz.XXXXXX";
    if (mkdtemp(templ.data()) == nullptr) abort();
    return new std::string(templ + "/bundle");
  }();
  return *prefix;
}

void Write(const std::string& path, const uint8_t* data, size_t n) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n));
}

class StringFile : public leveldb::WritableFile {
 public:
  leveldb::Status Append(const leveldb::Slice& data) override {
    contents.append(data.data(), data.size());
    return leveldb::Status::OK();
  }
  leveldb::Status Close() override { return leveldb::Status::OK(); }
  leveldb::Status Flush() override { return leveldb::Status::OK(); }
  leveldb::Status Sync() override { return leveldb::Status::OK(); }
  std::string contents;
};

bool ReadVarint32(const uint8_t*& p, const uint8_t* end, uint32_t* value) {
  uint32_t result = 0;
  for (int shift = 0; shift <= 28 && p < end; shift += 7) {
    const uint32_t byte = *p++;
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

// The table of the records in [p, end) (see the top of the file), the last value of a key winning.
std::string BuildIndex(const uint8_t* p, const uint8_t* end) {
  std::map<std::string, std::string> records;
  while (p < end) {
    uint32_t key_size = 0, value_size = 0;
    if (!ReadVarint32(p, end, &key_size) || key_size > static_cast<size_t>(end - p)) break;
    std::string key(reinterpret_cast<const char*>(p), key_size);
    p += key_size;
    if (!ReadVarint32(p, end, &value_size) || value_size > static_cast<size_t>(end - p)) break;
    records[std::move(key)].assign(reinterpret_cast<const char*>(p), value_size);
    p += value_size;
  }
  if (records.count("") == 0) {
    tensorflow::BundleHeaderProto header;
    header.set_num_shards(1);
    header.mutable_version()->set_producer(1);
    records[""] = header.SerializeAsString();
  }
  StringFile file;
  leveldb::Options options;
  options.compression = leveldb::kNoCompression;
  leveldb::TableBuilder builder(options, &file);
  for (const auto& [key, value] : records) builder.Add(key, value);
  if (!builder.Finish().ok()) abort();
  return file.contents;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  uint32_t index_size = 0;
  for (int i = 0; i < 4; ++i) index_size |= uint32_t{data[i]} << (8 * i);
  data += 4;
  size -= 4;
  const bool structured = (index_size & 0x80000000u) != 0;
  index_size &= 0x7fffffffu;
  if (index_size > size) index_size = static_cast<uint32_t>(size);
  const std::string& prefix = Prefix();
  if (structured) {
    const std::string index = BuildIndex(data, data + index_size);
    Write(prefix + ".index", reinterpret_cast<const uint8_t*>(index.data()), index.size());
  } else {
    Write(prefix + ".index", data, index_size);
  }
  Write(prefix + ".data-00000-of-00001", data + index_size, size - index_size);
  try {
    duet::io::BundleReader reader(prefix);
    for (const std::string& key : reader.keys()) {
      try {
        reader.entry(key);
        reader.read(key);
      } catch (const duet::Error&) {
      }
    }
  } catch (const duet::Error&) {
  }
  return 0;
}
