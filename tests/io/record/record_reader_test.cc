// TFRecord reading: TensorFlow's fixtures (make_tf_records.py), round trips through the writer,
// and every kind of corruption, with the file and byte offset in the message.
#include "io/record/record_reader.h"

#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/base/internal/endian.h"
#include "catch2/catch.hpp"
#include "io/crc32c.h"
#include "io/record/record_writer.h"

namespace duet {
namespace {

using io::Compression;

std::string TempPath(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  return (std::filesystem::path(root != nullptr ? root : "/tmp") / name).string();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The records make_tf_records.py wrote.
std::vector<std::string> TensorFlowRecords() {
  std::string all_bytes;
  for (int i = 0; i < 256; ++i) all_bytes.push_back(static_cast<char>(i));
  std::string long_record;
  for (int i = 0; i < 40; ++i) long_record += all_bytes;
  return {"", "a", "hello, records", long_record};
}

std::unique_ptr<io::RecordReader> Open(const std::string& path,
                                       Compression compression = Compression::kNone) {
  absl::StatusOr<std::unique_ptr<io::RecordReader>> reader =
      io::RecordReader::Open(path, compression);
  REQUIRE(reader.ok());
  return *std::move(reader);
}

// Every record up to the end; fails the test on an error.
std::vector<std::string> ReadAll(io::RecordReader& reader) {
  std::vector<std::string> records;
  std::string record;
  absl::Status status;
  while ((status = reader.ReadRecord(&record)).ok()) records.push_back(record);
  CHECK(absl::IsOutOfRange(status));
  return records;
}

// Framed records as bytes, then compressed as zlib does it for the writer.
std::string Frame(const std::string& data) {
  return io::RecordHeader(data.size()) + data + io::RecordFooter(data);
}

std::string Deflate(const std::string& bytes, Compression compression) {
  z_stream stream{};
  REQUIRE(deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, io::ZlibWindowBits(compression),
                       8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&stream, bytes.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&stream, Z_FINISH) == Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

std::string Encode(const std::string& framed, Compression compression) {
  return compression == Compression::kNone ? framed : Deflate(framed, compression);
}

TEST_CASE("TensorFlow's TFRecord files read back, in every compression") {
  const std::vector<std::pair<std::string, Compression>> files = {
      {"tf_records", Compression::kNone},
      {"tf_records.zlib", Compression::kZlib},
      {"tf_records.gz", Compression::kGzip}};
  for (const auto& [name, compression] : files) {
    INFO(name);
    auto reader = Open("tests/io/record/testdata/" + name, compression);
    CHECK(ReadAll(*reader) == TensorFlowRecords());
    std::string record;  // the end stays the end
    CHECK(absl::IsOutOfRange(reader->ReadRecord(&record)));
  }
}

TEST_CASE("records of every size round-trip through the writer, beyond the read chunk too") {
  std::vector<std::string> records;
  for (int i = 0; i < 300; ++i) records.push_back(std::string(i * 37 % 1000, static_cast<char>(i)));
  records.push_back(std::string(3 << 20, 'x'));  // 3 MiB: longer than a 256 KiB read
  records.push_back("after the long one");
  for (Compression compression : {Compression::kNone, Compression::kZlib, Compression::kGzip}) {
    INFO(io::CompressionName(compression));
    const std::string path = TempPath("round_trip.tfrecord");
    {
      auto writer = io::RecordWriter::Open(path, compression);
      REQUIRE(writer.ok());
      for (const std::string& record : records) REQUIRE((*writer)->Write(record).ok());
      REQUIRE((*writer)->Close().ok());
    }
    auto reader = Open(path, compression);
    CHECK(ReadAll(*reader) == records);
  }
}

TEST_CASE("records straddling small read chunks come back whole") {
  const std::vector<std::string> records = {"", "a", std::string(100, 'b'), "cc",
                                            std::string(1000, 'd')};
  for (Compression compression : {Compression::kNone, Compression::kZlib, Compression::kGzip}) {
    std::string framed;
    for (const std::string& record : records) framed += Frame(record);
    const std::string path = TempPath("small_chunks.tfrecord");
    WriteFile(path, Encode(framed, compression));
    for (size_t chunk : {1, 7, 16, 100}) {
      INFO(io::CompressionName(compression) << " chunk " << chunk);
      auto reader = io::RecordReader::Open(path, compression, chunk);
      REQUIRE(reader.ok());
      CHECK(ReadAll(**reader) == records);
    }
  }
}

TEST_CASE("a missing file is NotFound, naming it") {
  auto reader = io::RecordReader::Open(TempPath("no_such.tfrecord"));
  REQUIRE(absl::IsNotFound(reader.status()));
  CHECK_THAT(std::string(reader.status().message()), Catch::Contains("no_such.tfrecord"));
}

// Three records; the second starts at byte 21 (12 + 5 + 4) and its data at 33.
const std::string kFirst = "first", kSecond = "second", kThird = "third";
constexpr size_t kSecondOffset = 21;
constexpr size_t kSecondData = kSecondOffset + 12;
std::string ThreeRecords() { return Frame(kFirst) + Frame(kSecond) + Frame(kThird); }

// Reads the first record, then expects `message` about the second, at byte 21.
void ExpectSecondBad(io::RecordReader& reader, const std::string& message, bool uncompressed) {
  std::string record;
  REQUIRE(reader.ReadRecord(&record).ok());
  CHECK(record == kFirst);
  const absl::Status status = reader.ReadRecord(&record);
  REQUIRE(absl::IsDataLoss(status));
  const std::string text(status.message());
  CHECK_THAT(text, Catch::Contains(message));
  CHECK_THAT(text, Catch::Contains("at byte offset 21"));
  CHECK_THAT(text, Catch::Contains(reader.path()));
  if (!uncompressed) CHECK_THAT(text, Catch::Contains("uncompressed stream"));
}

TEST_CASE("a data CRC mismatch names the file and offset, and reading goes on after it") {
  for (Compression compression : {Compression::kNone, Compression::kZlib, Compression::kGzip}) {
    for (size_t flip : {kSecondData + 2, kSecondData + kSecond.size() + 1}) {  // data, footer
      INFO(io::CompressionName(compression) << " byte " << flip);
      std::string bytes = ThreeRecords();
      bytes[flip] ^= 0x01;
      const std::string path = TempPath("bad_data_crc.tfrecord");
      WriteFile(path, Encode(bytes, compression));
      auto reader = Open(path, compression);
      ExpectSecondBad(*reader, "data CRC mismatch", compression == Compression::kNone);
      std::string record;  // Note [Reading on after an error]: the next record is intact
      REQUIRE(reader->ReadRecord(&record).ok());
      CHECK(record == kThird);
      CHECK(absl::IsOutOfRange(reader->ReadRecord(&record)));
    }
  }
}

TEST_CASE("a length CRC mismatch names the file and offset, then the reader reports the end") {
  for (Compression compression : {Compression::kNone, Compression::kZlib, Compression::kGzip}) {
    for (size_t flip : {kSecondOffset, kSecondOffset + 9}) {  // the length, its CRC
      INFO(io::CompressionName(compression) << " byte " << flip);
      std::string bytes = ThreeRecords();
      bytes[flip] ^= 0x40;
      const std::string path = TempPath("bad_length_crc.tfrecord");
      WriteFile(path, Encode(bytes, compression));
      auto reader = Open(path, compression);
      ExpectSecondBad(*reader, "length CRC mismatch", compression == Compression::kNone);
      std::string record;  // the third record is intact, but the framing cannot be trusted
      CHECK(absl::IsOutOfRange(reader->ReadRecord(&record)));
    }
  }
}

TEST_CASE("a file cut in a record's header, data or footer is a truncation at its offset") {
  const std::vector<std::pair<size_t, std::string>> cuts = {
      {kSecondOffset + 5, "truncated record header (5 of 12 bytes"},
      {kSecondData + 3, "truncated record: its length is 6 but only 3 bytes follow"},
      {kSecondData + kSecond.size() + 2, "truncated record: its length is 6 but only 8 bytes"}};
  for (Compression compression : {Compression::kNone, Compression::kZlib, Compression::kGzip}) {
    for (const auto& [cut, message] : cuts) {
      INFO(io::CompressionName(compression) << " cut at " << cut);
      const std::string path = TempPath("truncated.tfrecord");
      WriteFile(path, Encode(ThreeRecords().substr(0, cut), compression));
      auto reader = Open(path, compression);
      // An uncompressed file's size is known: a cut inside the data or footer is a length that
      // runs past the end.
      const bool header = cut < kSecondData;
      const std::string expected =
          compression == Compression::kNone && !header ? "runs past the end of the file" : message;
      ExpectSecondBad(*reader, expected, compression == Compression::kNone);
      std::string record;
      CHECK(absl::IsOutOfRange(reader->ReadRecord(&record)));
    }
  }
}

TEST_CASE("a huge length with a valid CRC is an error, not a huge allocation") {
  std::string header(12, '\0');
  const uint64_t huge = uint64_t{1} << 60;
  absl::little_endian::Store64(header.data(), huge);
  absl::little_endian::Store32(header.data() + 8, io::MaskCrc32c(io::Crc32c(header.data(), 8)));
  for (Compression compression : {Compression::kNone, Compression::kZlib, Compression::kGzip}) {
    INFO(io::CompressionName(compression));
    const std::string path = TempPath("huge_length.tfrecord");
    WriteFile(path, Encode(Frame(kFirst) + header + "short", compression));
    auto reader = Open(path, compression);
    ExpectSecondBad(*reader,
                    compression == Compression::kNone
                        ? "length 1152921504606846976 runs past the end of the file (5 bytes"
                        : "truncated record: its length is 1152921504606846976 but only 5",
                    compression == Compression::kNone);
  }
}

TEST_CASE("a corrupt or cut compressed stream is an error naming the file") {
  const std::string framed = ThreeRecords();
  SECTION("corrupt deflate data") {
    std::string bytes = Deflate(framed, Compression::kZlib);
    bytes[0] ^= 0xff;  // the zlib header
    const std::string path = TempPath("corrupt.zlib");
    WriteFile(path, bytes);
    auto reader = Open(path, Compression::kZlib);
    std::string record;
    const absl::Status status = reader->ReadRecord(&record);
    REQUIRE(absl::IsDataLoss(status));
    CHECK_THAT(std::string(status.message()),
               Catch::Contains("corrupt ZLIB stream in TFRecord file " + path +
                               " at compressed byte offset"));
    CHECK(absl::IsOutOfRange(reader->ReadRecord(&record)));
  }
  SECTION("a GZIP file cut after its first records") {
    std::string bytes = Deflate(framed, Compression::kGzip);
    const std::string path = TempPath("cut.gz");
    WriteFile(path, bytes.substr(0, bytes.size() - 8));  // the gzip trailer is gone
    auto reader = Open(path, Compression::kGzip);
    std::string record;
    absl::Status status;
    int records = 0;
    while ((status = reader->ReadRecord(&record)).ok()) ++records;
    CHECK(records == 3);
    REQUIRE(absl::IsDataLoss(status));
    CHECK_THAT(std::string(status.message()), Catch::Contains("ends without its end marker"));
    CHECK_THAT(std::string(status.message()), Catch::Contains(path));
  }
}

TEST_CASE("ReadRecord into a view gives the same records and offsets") {
  const std::string path = TempPath("views.tfrecord");
  WriteFile(path, ThreeRecords());
  auto reader = Open(path);
  absl::string_view view;
  CHECK(reader->offset() == 0);
  REQUIRE(reader->ReadRecord(&view).ok());
  CHECK(view == kFirst);
  CHECK(reader->offset() == kSecondOffset);
  REQUIRE(reader->ReadRecord(&view).ok());
  CHECK(view == kSecond);
  REQUIRE(reader->ReadRecord(&view).ok());
  CHECK(view == kThird);
  CHECK(absl::IsOutOfRange(reader->ReadRecord(&view)));
}

}  // namespace
}  // namespace duet
