// libFuzzer entry point for the TFRecord reader. The first byte picks how the rest becomes a
// file and how it is read: (byte & 3) % 3 is the compression (none, ZLIB, GZIP); with byte & 4
// set and a compression chosen, the harness deflates the rest itself, so that mutations reach
// the framing inside the compressed stream, not only the deflate decoder; byte >> 3, when not
// 0, is the reader's chunk size in bytes (else the default 256 KiB), so that records straddle
// chunks. Every record is read, going on after
// data-CRC errors as the dataset's ignore_errors() does; a DataLoss or OutOfRange status is
// fine, a crash, hang, leak or sanitizer report is not.
// Built with clang-16 and --config=fuzz; docs/records.md, "Fuzzing", has the commands.
// tests/fuzz/tfrecord_fuzz_test.cc replays the corpus tests/fuzz/corpus_tfrecord/ in every run.
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "absl/status/status.h"
#include "io/record/record_reader.h"

namespace {

const std::string& Path() {
  static const std::string* path = [] {
    std::string dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    if (const char* tmp = getenv("TEST_TMPDIR")) dir = tmp;
    std::string templ = dir + "/tfrecord_fuzz.XXXXXX";
    if (mkdtemp(templ.data()) == nullptr) abort();
    return new std::string(templ + "/records");
  }();
  return *path;
}

std::string Deflate(const uint8_t* data, size_t size, duet::io::Compression compression) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, duet::io::ZlibWindowBits(compression), 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    abort();
  }
  std::string out(deflateBound(&stream, size), '\0');
  stream.next_in = const_cast<Bytef*>(data);
  stream.avail_in = static_cast<uInt>(size);
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  if (deflate(&stream, Z_FINISH) != Z_STREAM_END) abort();
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto compression = static_cast<duet::io::Compression>((data[0] & 3) % 3);
  const size_t chunk_bytes =
      data[0] >> 3 != 0 ? data[0] >> 3 : duet::io::RecordReader::kDefaultChunkBytes;
  const bool harness_deflates = (data[0] & 4) != 0 && compression != duet::io::Compression::kNone;
  {
    std::ofstream file(Path(), std::ios::binary | std::ios::trunc);
    if (harness_deflates) {
      file << Deflate(data + 1, size - 1, compression);
    } else {
      file.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
    }
  }
  auto reader = duet::io::RecordReader::Open(Path(), compression, chunk_bytes);
  if (!reader.ok()) abort();  // the harness's own file
  std::string record;
  uint64_t offset = 0;
  while (true) {
    const absl::Status status = (*reader)->ReadRecord(&record);
    if (absl::IsOutOfRange(status)) break;
    if (!status.ok() && !absl::IsDataLoss(status)) abort();  // only corruption is expected
    // Every record, good or not, moves the reader forward: no endless loop.
    if (status.ok() && (*reader)->offset() <= offset) abort();
    if (!status.ok() && (*reader)->offset() == offset) {
      // Only the data-CRC error continues, after moving on; the others end the file.
      if (!absl::IsOutOfRange((*reader)->ReadRecord(&record))) abort();
      break;
    }
    offset = (*reader)->offset();
  }
  return 0;
}
