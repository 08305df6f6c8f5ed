// libFuzzer entry point for the TensorBundle reader: an input is a bundle, its first 4 bytes
// (little-endian) the length of the .index file, then the index, then the data file. Every key's
// entry is read (read or read_strings); a duet::Error is fine, a crash, leak or sanitizer report
// is not.
// Built with clang-16 and --config=fuzz, run for 10 minutes on a copy of the seed corpus
// tests/fuzz/corpus_bundle/: docs/checkpoints.md, "Fuzzing the checkpoint reader", has the
// commands. tests/fuzz/tensor_bundle_fuzz_test.cc replays the corpus in every test run.
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#include "core/error.h"
#include "google/protobuf/stubs/logging.h"
#include "io/checkpoint/tensor_bundle.h"

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  uint32_t index_size = 0;
  for (int i = 0; i < 4; ++i) index_size |= uint32_t{data[i]} << (8 * i);
  data += 4;
  size -= 4;
  if (index_size > size) index_size = static_cast<uint32_t>(size);
  const std::string& prefix = Prefix();
  Write(prefix + ".index", data, index_size);
  Write(prefix + ".data-00000-of-00001", data + index_size, size - index_size);
  try {
    duet::io::BundleReader reader(prefix);
    for (const std::string& key : reader.keys()) {
      try {
        const duet::io::BundleEntry entry = reader.entry(key);
        if (entry.proto_dtype == duet::io::kProtoDTypeString) {
          reader.read_strings(key);
        } else {
          reader.read(key);
        }
      } catch (const duet::Error&) {
      }
    }
  } catch (const duet::Error&) {
  }
  return 0;
}
