// TFRecord writing: byte-identical to TensorFlow's writer (fixtures by make_tf_records.py).
#include "io/record/record_writer.h"

#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "core/error.h"
#include "tests/test_util.h"

namespace duet {
namespace {

std::string TempPath(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  return (std::filesystem::path(root != nullptr ? root : "/tmp") / name).string();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

// Inflates a zlib or gzip stream (windowBits 15 + 32 detects either); stops at the end of what
// the bytes hold, so a stream that was only flushed inflates too.
std::string Inflate(const std::string& compressed) {
  z_stream stream{};
  REQUIRE(inflateInit2(&stream, 15 + 32) == Z_OK);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  std::string out;
  char chunk[4096];
  int rc = Z_OK;
  while (rc == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(chunk);
    stream.avail_out = sizeof(chunk);
    rc = inflate(&stream, Z_NO_FLUSH);
    out.append(chunk, sizeof(chunk) - stream.avail_out);
    if (rc == Z_BUF_ERROR && stream.avail_in == 0) break;  // all input used, stream not ended
  }
  inflateEnd(&stream);
  REQUIRE((rc == Z_STREAM_END || rc == Z_BUF_ERROR));
  return out;
}

const std::vector<std::string>& Records() {
  static const std::vector<std::string> records = [] {
    std::string all_bytes;
    for (int i = 0; i < 256; ++i) all_bytes.push_back(static_cast<char>(i));
    std::string long_record;
    for (int i = 0; i < 40; ++i) long_record += all_bytes;
    return std::vector<std::string>{"", "a", "hello, records", long_record};
  }();
  return records;
}

std::string Fixture(const std::string& suffix) {
  return ReadFile(testing::Testdata("io/record", "tf_records" + suffix));
}

std::string WriteRecords(const std::string& name, const std::string& compression) {
  std::string path = TempPath(name);
  data::TFRecordWriter writer(path, compression);
  for (const std::string& record : Records()) writer.write(record);
  writer.close();
  return ReadFile(path);
}

TEST_CASE("an uncompressed TFRecord file is byte-identical to TensorFlow's") {
  std::string written = WriteRecords("plain.tfrecord", "");
  CHECK(written.size() == Fixture("").size());
  CHECK(written == Fixture(""));
}

TEST_CASE("ZLIB and GZIP files hold TensorFlow's framed records") {
  for (const auto& [compression, suffix] :
       std::vector<std::pair<std::string, std::string>>{{"ZLIB", ".zlib"}, {"GZIP", ".gz"}}) {
    CAPTURE(compression);
    std::string written = WriteRecords("compressed.tfrecord", compression);
    CHECK(Inflate(written) == Fixture(""));
    CHECK(Inflate(Fixture(suffix)) == Fixture(""));
    // The wrappers differ: gzip starts with its magic bytes, zlib with a 0x78 header byte.
    if (compression == "GZIP") {
      CHECK(written.substr(0, 2) == "\x1f\x8b");
    } else {
      CHECK(written[0] == '\x78');
    }
  }
}

TEST_CASE("flush makes every record written so far readable") {
  for (const std::string compression : {"", "GZIP"}) {
    CAPTURE(compression);
    std::string path = TempPath("flushed.tfrecord");
    data::TFRecordWriter writer(path, compression);
    writer.write("first");
    writer.flush();
    std::string framed = io::RecordHeader(5) + "first" + io::RecordFooter("first");
    std::string on_disk = ReadFile(path);
    CHECK((compression.empty() ? on_disk : Inflate(on_disk)) == framed);
  }
}

TEST_CASE("writer errors name the file or the compression") {
  CHECK_THROWS_WITH(data::TFRecordWriter("/nonexistent-dir/x.tfrecord"),
                    Catch::Contains("/nonexistent-dir/x.tfrecord"));
  CHECK_THROWS_WITH(data::TFRecordWriter(TempPath("x.tfrecord"), "LZ4"), Catch::Contains("LZ4"));
  data::TFRecordWriter writer(TempPath("closed.tfrecord"));
  writer.close();
  CHECK_THROWS_WITH(writer.write("late"), Catch::Contains("closed"));
}

}  // namespace
}  // namespace duet
