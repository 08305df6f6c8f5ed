// TFRecordDataset: records written by TFRecordWriter come back, byte for byte, in every
// compression; corrupt records and missing files are errors naming the file, skippable with
// ignore_errors().
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "duet.h"
#include "io/record/record_writer.h"
#include "tests/io/data/dataset_test_util.h"
#include "tests/test_util.h"

namespace duet::data {
namespace {

namespace fs = std::filesystem;

std::string TempPath(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return (fs::path(tmp != nullptr ? tmp : "/tmp") / name).string();
}

std::vector<std::string> Records() {
  return {"first", std::string("\0binary\xff", 8), "", std::string(100000, 'x')};
}

std::string Write(const std::string& name, const std::string& compression) {
  const std::string path = TempPath(name);
  TFRecordWriter writer(path, compression);
  for (const std::string& r : Records()) writer.write(r);
  writer.close();
  return path;
}

std::vector<std::string> Strings(const Dataset& ds) {
  std::vector<std::string> out;
  for (auto& e : ds) {
    REQUIRE(e.size() == 1);
    CHECK(e[0].dtype() == kString);
    CHECK(e[0].rank() == 0);
    out.push_back(e[0].item<std::string>());
  }
  return out;
}

TEST_CASE("TFRecordDataset reads back every record in every compression") {
  for (const std::string compression : {"", "ZLIB", "GZIP"}) {
    INFO("compression '" << compression << "'");
    const std::string path = Write("records_" + compression + ".tfrecord", compression);
    CHECK(Strings(TFRecordDataset(path, compression)) == Records());
  }
  const std::string a = Write("a.tfrecord", ""), b = Write("b.tfrecord", "");
  std::vector<std::string> twice = Records();
  for (const std::string& r : Records()) twice.push_back(r);
  CHECK(Strings(TFRecordDataset(std::vector<std::string>{a, b})) == twice);
}

TEST_CASE("auto_shard gives each worker whole files, or elements when files are too few") {
  std::vector<std::string> files;
  for (int f = 0; f < 5; ++f) {
    files.push_back(TempPath("shard_" + std::to_string(f) + ".tfrecord"));
    TFRecordWriter writer(files.back(), "GZIP");
    for (int r = 0; r < 3; ++r) writer.write(std::to_string(f) + "/" + std::to_string(r));
    writer.close();
  }
  const Dataset all = TFRecordDataset(files, "GZIP");
  CHECK(Strings(all.auto_shard(2, 1)) ==
        std::vector<std::string>{"1/0", "1/1", "1/2", "3/0", "3/1", "3/2"});
  CHECK(Strings(all.auto_shard(2, 0)).size() == 9);  // files 0, 2 and 4
  // Fewer files than workers: elements, as shard() (one file of 3 records among 2 workers).
  const Dataset one = TFRecordDataset(files[0], "GZIP");
  CHECK(Strings(one.auto_shard(2, 1)) == Strings(one.shard(2, 1)));
  CHECK(Strings(one.auto_shard(2, 1)) == std::vector<std::string>{"0/1"});
  // A dataset of no files: elements; bad arguments fail as shard's do.
  const Dataset tensors = Dataset::from_tensor_slices({constant({1, 2, 3, 4, 5})});
  CHECK(testing::Collect(tensors.auto_shard(2, 0)).size() == 3);
  duet::testing::ExpectError([&] { all.auto_shard(2, 2); }, {"shard: index 2 is not in"});
}

TEST_CASE("TFRecordDataset names the file of a missing or corrupt record") {
  duet::testing::ExpectError([] { TFRecordDataset("x.tfrecord", "LZMA"); },
                             {"TFRecordDataset", "LZMA"});
  const std::string missing = TempPath("missing.tfrecord");
  duet::testing::ExpectError([&] { testing::Collect(TFRecordDataset(missing)); },
                             {"TFRecordDataset", "missing.tfrecord"});

  // Flip a byte of the first record's data: its data CRC fails, the rest still read.
  const std::string path = Write("corrupt.tfrecord", "");
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(12);  // after the 8-byte length and its 4-byte CRC
    f.put('F');
  }
  duet::testing::ExpectError([&] { testing::Collect(TFRecordDataset(path)); },
                             {"TFRecordDataset", "corrupt.tfrecord", "byte offset 0"});
  const Dataset skipping = TFRecordDataset(std::vector<std::string>{path, missing}).ignore_errors();
  auto it = skipping.begin();
  std::vector<std::string> seen;
  for (; it != skipping.end(); ++it) seen.push_back((*it)[0].item<std::string>());
  const std::vector<std::string> records = Records();
  CHECK(seen == std::vector<std::string>(records.begin() + 1, records.end()));
  CHECK(it.dropped() == 2);  // the corrupt record and the missing file
}

}  // namespace
}  // namespace duet::data
