#include "io/checkpoint/tensor_bundle.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/constant.h"
#include "io/crc32c.h"
#include "leveldb/env.h"
#include "leveldb/options.h"
#include "leveldb/table_builder.h"
#include "proto/tensor_bundle.pb.h"
#include "tests/test_util.h"

namespace duet::io {
namespace {

namespace fs = std::filesystem;
using testing::ExpectError;

// A fresh, empty directory under the test's temporary directory.
std::string TempDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const fs::path dir = fs::path(tmp ? tmp : "/tmp") / "tensor_bundle_test" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << bytes;
}

std::vector<std::string> Listing(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

void CheckSameTensor(const Tensor& actual, const Tensor& expected) {
  REQUIRE(actual.dtype() == expected.dtype());
  REQUIRE(actual.shape() == expected.shape());
  CHECK(std::memcmp(actual.raw_data(), expected.raw_data(), expected.nbytes()) == 0);
}

// Writes an index of `entries` (key -> BundleEntryProto) with `header`, as TensorFlow would.
void WriteIndex(const std::string& path, const tensorflow::BundleHeaderProto& header,
                const std::map<std::string, tensorflow::BundleEntryProto>& entries) {
  leveldb::WritableFile* file = nullptr;
  REQUIRE(leveldb::Env::Default()->NewWritableFile(path, &file).ok());
  leveldb::Options options;
  options.compression = leveldb::kNoCompression;
  {
    leveldb::TableBuilder builder(options, file);
    builder.Add("", header.SerializeAsString());
    for (const auto& [key, entry] : entries) builder.Add(key, entry.SerializeAsString());
    REQUIRE(builder.Finish().ok());
  }
  REQUIRE(file->Close().ok());
  delete file;
}

tensorflow::BundleHeaderProto GoodHeader() {
  tensorflow::BundleHeaderProto header;
  header.set_num_shards(1);
  header.mutable_version()->set_producer(1);
  return header;
}

// A bundle of one float32 tensor "x" of shape (2, 3); returns its prefix.
std::string OneTensorBundle(const std::string& name) {
  const std::string prefix = TempDir(name) + "/ckpt";
  BundleWriter writer(prefix);
  writer.add("x", from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3}));
  writer.finish();
  return prefix;
}

TEMPLATE_TEST_CASE("every numeric dtype round-trips, scalars and empty tensors included",
                   "[bundle]", DUET_ALL_TYPES) {
  const std::string prefix = TempDir("dtypes") + "/ckpt";
  const Tensor matrix = testing::SequenceTensor<TestType>({2, 3}, 1);
  const Tensor scalar = testing::SequenceTensor<TestType>({}, 7);
  const Tensor empty = testing::SequenceTensor<TestType>({0, 3});
  const Tensor big = testing::SequenceTensor<TestType>({1000, 17});
  {
    BundleWriter writer(prefix);
    writer.add("matrix", matrix);
    writer.add("scalar", scalar);
    writer.add("empty", empty);
    writer.add("big", big);
    writer.finish();
  }
  BundleReader reader(prefix);
  CHECK(reader.keys() == std::vector<std::string>{"big", "empty", "matrix", "scalar"});
  CheckSameTensor(reader.read("matrix"), matrix);
  CheckSameTensor(reader.read("scalar"), scalar);
  CheckSameTensor(reader.read("empty"), empty);
  CheckSameTensor(reader.read("big"), big);
  const BundleEntry entry = reader.entry("matrix");
  CHECK(entry.proto_dtype == ToProtoDataType(DTypeOf<TestType>()));
  CHECK(entry.shape == Shape({2, 3}));
  CHECK(reader.entry("scalar").shape == Shape());
}

TEST_CASE("string tensors round-trip: empty, long, with NULs, scalar, no elements") {
  const std::string prefix = TempDir("strings") + "/ckpt";
  const std::vector<std::string> values = {
      "", "a", std::string(200, 'x'), std::string("a\0b", 3), std::string(70000, 'y'), "last"};
  {
    BundleWriter writer(prefix);
    writer.add("s", from_vector(values, {2, 3}));
    writer.add("scalar", constant("hello"));
    writer.add("none", Tensor::Empty(kString, {0}));
    writer.add("f", from_vector(std::vector<float>{1.5f}, {1}));
    writer.finish();
  }
  BundleReader reader(prefix);
  const Tensor s = reader.read("s");
  CHECK(s.dtype() == kString);
  CHECK(s.shape() == Shape({2, 3}));
  CHECK(s.to_vector<std::string>() == values);
  CHECK(reader.read("scalar").item<std::string>() == "hello");
  CHECK(reader.read("scalar").shape() == Shape());
  CHECK(reader.read("none").shape() == Shape({0}));
  CHECK(reader.entry("s").proto_dtype == 7);  // DT_STRING
  CHECK(reader.entry("s").shape == Shape({2, 3}));
  CHECK(reader.read("f").to_vector<float>() == std::vector<float>{1.5f});
}

TEST_CASE("small and large tensors interleave in the data file in add order") {
  // Large tensors bypass the write buffer: what was buffered before them must come first.
  const std::string prefix = TempDir("interleave") + "/ckpt";
  std::vector<Tensor> tensors;
  for (const int64_t n : {3, 1 << 20, 5, 3 << 20, 1 << 20, 7}) {
    tensors.push_back(testing::SequenceTensor<float>({n}, n));
  }
  const std::string big_string(5 << 20, 'q');
  {
    BundleWriter writer(prefix);
    for (size_t i = 0; i < tensors.size(); ++i) {
      writer.add("t" + std::to_string(i), tensors[i]);
      writer.add("s" + std::to_string(i),
                 from_vector<std::string>({"small", i % 2 ? big_string : "x"}));
    }
    writer.finish();
  }
  BundleReader reader(prefix);
  for (size_t i = 0; i < tensors.size(); ++i) {
    CheckSameTensor(reader.read("t" + std::to_string(i)), tensors[i]);
    CHECK(reader.read("s" + std::to_string(i)).to_vector<std::string>() ==
          std::vector<std::string>{"small", i % 2 ? big_string : "x"});
  }
}

TEST_CASE("keys come in any order; the index is sorted") {
  const std::string prefix = TempDir("order") + "/ckpt";
  {
    BundleWriter writer(prefix);
    writer.add("zeta", from_vector(std::vector<int64_t>{3}, {1}));
    writer.add("alpha", from_vector(std::vector<int64_t>{1}, {1}));
    writer.add("mu", constant({"2"}));
    writer.finish();
  }
  BundleReader reader(prefix);
  CHECK(reader.prefix() == prefix);
  CHECK(reader.keys() == std::vector<std::string>{"alpha", "mu", "zeta"});
  CHECK(reader.contains("mu"));
  CHECK_FALSE(reader.contains(""));
  CHECK_FALSE(reader.contains("nu"));
  CHECK(reader.read("zeta").to_vector<int64_t>() == std::vector<int64_t>{3});
  ExpectError([&] { reader.entry("nu"); }, {prefix, "'nu'", "not in the checkpoint"});
}

TEST_CASE("reads the bundle TensorFlow wrote (testdata/make_tf_bundle.py)") {
  const std::string index = testing::Testdata("io/checkpoint", "tf_bundle.index");
  const std::string prefix = index.substr(0, index.size() - std::string(".index").size());
  BundleReader reader(prefix);
  CHECK(reader.keys() == std::vector<std::string>{"bfloat16", "bool", "empty", "empty_strings",
                                                  "float16", "float32", "float64", "int32", "int64",
                                                  "model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE",
                                                  "scalar", "scalar_string", "strings"});
  testing::ExpectTensor(reader.read("float32"), kFloat32, {2, 3}, {1.5, -2, 3.25, 0, 1e-3, -7});
  testing::ExpectTensor(reader.read("int64"), kInt64, {4}, {1, -2, 3000000000, -9e18}, 0);
  CHECK(reader.read("int64").to_vector<int64_t>()[3] == -9000000000000000000);
  testing::ExpectTensor(reader.read("int32"), kInt32, {2, 1}, {7, -8}, 0);
  testing::ExpectTensor(reader.read("float64"), kFloat64, {2}, {3.141592653589793, -0.5}, 0);
  testing::ExpectTensor(reader.read("float16"), kFloat16, {3}, {0.5, -1.25, 65504}, 0);
  testing::ExpectTensor(reader.read("bfloat16"), kBFloat16, {3}, {1, -2.5, 256}, 0);
  testing::ExpectTensor(reader.read("bool"), kBool, {3}, {1, 0, 1}, 0);
  testing::ExpectTensor(reader.read("scalar"), kFloat32, {}, {42}, 0);
  testing::ExpectTensor(reader.read("empty"), kFloat32, {0, 3}, {}, 0);
  std::vector<double> kernel(12);
  for (int i = 0; i < 12; ++i) kernel[i] = i;
  testing::ExpectTensor(reader.read("model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE"), kFloat32,
                        {3, 4}, kernel, 0);
  CHECK(reader.read("strings").to_vector<std::string>() ==
        std::vector<std::string>{"a", "", std::string(200, 'x'), std::string("nul\0byte", 8)});
  CHECK(reader.read("strings").shape() == Shape({2, 2}));
  CHECK(reader.read("empty_strings").num_elements() == 0);
  CHECK(reader.read("scalar_string").item<std::string>() == "hello");
}

TEST_CASE("the same tensors written by duet are byte-identical to TensorFlow's bundle") {
  const std::string index = testing::Testdata("io/checkpoint", "tf_bundle.index");
  const std::string tf_prefix = index.substr(0, index.size() - std::string(".index").size());
  BundleReader tf(tf_prefix);
  const std::string prefix = TempDir("identical") + "/ckpt";
  {
    BundleWriter writer(prefix);
    for (const std::string& key : tf.keys()) writer.add(key, tf.read(key));
    writer.finish();
  }
  CHECK(ReadFile(prefix + ".index") == ReadFile(tf_prefix + ".index"));
  CHECK(ReadFile(prefix + ".data-00000-of-00001") == ReadFile(tf_prefix + ".data-00000-of-00001"));
}

TEST_CASE("the writer publishes nothing before finish and cleans up without it") {
  const std::string dir = TempDir("atomic");
  const std::string prefix = dir + "/nested/deeper/ckpt";
  {
    BundleWriter writer(prefix);
    writer.add("x", from_vector(std::vector<float>{1, 2}, {2}));
    for (const std::string& name : Listing(dir + "/nested/deeper")) {
      CHECK(name.find(".tempstate") != std::string::npos);
    }
    CHECK_FALSE(fs::exists(prefix + ".index"));
    CHECK_FALSE(fs::exists(prefix + ".data-00000-of-00001"));
    writer.finish();
    CHECK(Listing(dir + "/nested/deeper") ==
          std::vector<std::string>{"ckpt.data-00000-of-00001", "ckpt.index"});
    ExpectError([&] { writer.add("y", from_vector(std::vector<float>{1}, {1})); },
                {"after finish"});
  }
  CHECK(Listing(dir + "/nested/deeper").size() == 2);
  {
    BundleWriter writer(dir + "/abandoned");
    writer.add("x", from_vector(std::vector<float>{1, 2}, {2}));
  }
  CHECK(Listing(dir) == std::vector<std::string>{"nested"});
}

TEST_CASE("the writer rejects duplicate and empty keys and mismatched string counts") {
  BundleWriter writer(TempDir("writer_errors") + "/ckpt");
  writer.add("x", from_vector(std::vector<float>{1}, {1}));
  ExpectError([&] { writer.add("x", from_vector(std::vector<float>{1}, {1})); },
              {"'x'", "added twice"});
  ExpectError([&] { writer.add("x", constant({"a"})); }, {"'x'", "added twice"});
  ExpectError([&] { writer.add("", from_vector(std::vector<float>{1}, {1})); }, {"empty key"});
  ExpectError([&] { writer.add("u", Tensor()); }, {"'u'", "no value"});
}

TEST_CASE("missing files are NotFound naming the file") {
  const std::string dir = TempDir("missing");
  try {
    BundleReader reader(dir + "/none");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == absl::StatusCode::kNotFound);
    CHECK(std::string(e.what()).find(dir + "/none.index") != std::string::npos);
  }
  const std::string prefix = OneTensorBundle("missing_data");
  fs::remove(prefix + ".data-00000-of-00001");
  try {
    BundleReader reader(prefix);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == absl::StatusCode::kNotFound);
    CHECK(std::string(e.what()).find(prefix + ".data-00000-of-00001") != std::string::npos);
  }
}

TEST_CASE("a truncated or corrupted index is DataLoss") {
  const std::string prefix = OneTensorBundle("bad_index");
  const std::string index = ReadFile(prefix + ".index");
  for (size_t n : {size_t{0}, size_t{10}, index.size() / 2, index.size() - 1}) {
    WriteFile(prefix + ".index", index.substr(0, n));
    INFO("truncated to " << n);
    try {
      BundleReader reader(prefix);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == absl::StatusCode::kDataLoss);
      CHECK(std::string(e.what()).find(prefix + ".index") != std::string::npos);
    }
  }
  // Every flipped byte is caught by the blocks' and footer's checks.
  for (size_t i = 0; i < index.size(); ++i) {
    std::string flipped = index;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x20);
    WriteFile(prefix + ".index", flipped);
    INFO("byte " << i << " flipped");
    try {
      BundleReader reader(prefix);
      for (const std::string& key : reader.keys()) reader.read(key);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == absl::StatusCode::kDataLoss);
    }
  }
}

// The index's footer with the index block's handle claiming `size` bytes (a crafted file: the
// footer has no checksum).
std::string WithIndexBlockSize(const std::string& index, uint64_t size) {
  const size_t footer = index.size() - 48;
  size_t pos = footer;
  const auto varint = [&] {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = static_cast<uint8_t>(index[pos++]);
      v |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return v;
    }
  };
  const uint64_t handles[4] = {varint(), varint(), varint(), size};
  std::string encoded;
  for (uint64_t v : handles) {
    for (; v >= 0x80; v >>= 7) encoded.push_back(static_cast<char>(v | 0x80));
    encoded.push_back(static_cast<char>(v));
  }
  encoded.resize(40, '\0');
  return index.substr(0, footer) + encoded + index.substr(index.size() - 8);
}

TEST_CASE("block handles beyond the index file are refused before LevelDB allocates them") {
  const std::string prefix = OneTensorBundle("huge_block");
  const std::string index = ReadFile(prefix + ".index");
  for (const uint64_t size : {uint64_t{1} << 48, uint64_t{1} << 62, uint64_t{1000}}) {
    WriteFile(prefix + ".index", WithIndexBlockSize(index, size));
    INFO("index block size " << size);
    ExpectError([&] { BundleReader reader(prefix); }, {prefix + ".index", "corrupt block index"});
  }
}

TEST_CASE("a truncated or corrupted data file is DataLoss naming the key") {
  const std::string prefix = OneTensorBundle("bad_data");
  const std::string data_path = prefix + ".data-00000-of-00001";
  const std::string data = ReadFile(data_path);
  std::string flipped = data;
  flipped[5] ^= 1;
  WriteFile(data_path, flipped);
  ExpectError([&] { BundleReader(prefix).read("x"); },
              {"checkpoint '" + prefix + "': tensor 'x': crc32c mismatch (file " + data_path +
               ", offset 0, 24 bytes): the file is corrupt"});
  WriteFile(data_path, data.substr(0, 20));
  ExpectError([&] { BundleReader(prefix).read("x"); },
              {"tensor 'x'", "beyond the end of " + data_path, "(20 bytes)"});

  const std::string strings = TempDir("bad_strings") + "/ckpt";
  {
    BundleWriter writer(strings);
    writer.add("s", constant({"abc", "", "defg"}));
    writer.finish();
  }
  const std::string good = ReadFile(strings + ".data-00000-of-00001");
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] ^= 0x40;
    WriteFile(strings + ".data-00000-of-00001", bad);
    INFO("byte " << i << " flipped");
    ExpectError([&] { BundleReader(strings).read("s"); }, {"tensor 's'", "corrupt"});
  }
  WriteFile(strings + ".data-00000-of-00001", good.substr(0, good.size() - 1));
  ExpectError([&] { BundleReader(strings).read("s"); }, {"tensor 's'", "truncated"});
}

TEST_CASE("malformed entries are clear errors, never crashes or huge allocations") {
  const std::string prefix = OneTensorBundle("bad_entries");
  const std::string good_data = ReadFile(prefix + ".data-00000-of-00001");
  tensorflow::BundleEntryProto good;
  good.set_dtype(tensorflow::DT_FLOAT);
  good.mutable_shape()->add_dim()->set_size(2);
  good.mutable_shape()->add_dim()->set_size(3);
  good.set_size(24);
  good.set_crc32c(MaskCrc32c(Crc32c(good_data.data(), 24)));
  const auto read_with = [&](const tensorflow::BundleEntryProto& entry,
                             const tensorflow::BundleHeaderProto& header = GoodHeader()) {
    WriteIndex(prefix + ".index", header, {{"x", entry}});
    BundleReader reader(prefix);
    reader.read("x");
  };
  read_with(good);  // the baseline reads

  auto entry = good;
  entry.set_size(20);
  ExpectError([&] { read_with(entry); },
              {"tensor 'x'", "the index says 20 bytes, but float32 (2, 3) is 24"});
  entry = good;
  entry.set_offset(-4);
  ExpectError([&] { read_with(entry); }, {"tensor 'x'", "negative offset"});
  entry = good;
  entry.set_offset(int64_t{1} << 62);
  ExpectError([&] { read_with(entry); }, {"tensor 'x'", "beyond the end"});
  entry = good;
  entry.mutable_shape()->mutable_dim(0)->set_size(int64_t{1} << 40);
  entry.set_size(int64_t{24} << 39);
  ExpectError([&] { read_with(entry); }, {"tensor 'x'", "beyond the end"});
  entry.mutable_shape()->mutable_dim(1)->set_size(int64_t{1} << 40);
  ExpectError([&] { read_with(entry); }, {"tensor 'x'", "bad shape", "2^63"});
  entry = good;
  entry.mutable_shape()->mutable_dim(0)->set_size(-1);
  ExpectError([&] { read_with(entry); }, {"tensor 'x'", "not known"});
  entry = good;
  entry.mutable_shape()->mutable_dim(0)->set_size(-7);
  ExpectError([&] { read_with(entry); }, {"tensor 'x'", "bad shape"});
  entry = good;
  entry.set_dtype(tensorflow::DT_COMPLEX64);
  ExpectError([&] { read_with(entry); }, {"tensor 'x'", "DataType 8 is not supported"});
  entry = good;
  entry.set_dtype(tensorflow::DT_STRING);
  entry.mutable_shape()->mutable_dim(0)->set_size(int64_t{1} << 40);
  ExpectError([&] { read_with(entry); }, {"tensor 'x'", "cannot hold"});
  entry = good;
  entry.set_shard_id(3);
  ExpectError([&] { read_with(entry); }, {"tensor 'x'", "data file 3"});
  entry = good;
  entry.add_slices();
  ExpectError([&] { read_with(entry); }, {"tensor 'x'", "partitioned"});

  auto header = GoodHeader();
  header.set_num_shards(2);
  ExpectError([&] { read_with(good, header); }, {"2 data files", "not supported"});
  header = GoodHeader();
  header.set_endianness(tensorflow::BundleHeaderProto::BIG);
  ExpectError([&] { read_with(good, header); }, {"big-endian"});
  header = GoodHeader();
  header.mutable_version()->set_min_consumer(5);
  ExpectError([&] { read_with(good, header); }, {"newer TensorBundle version"});

  // An entry that is not a BundleEntryProto at all.
  {
    leveldb::WritableFile* file = nullptr;
    REQUIRE(leveldb::Env::Default()->NewWritableFile(prefix + ".index", &file).ok());
    leveldb::Options options;
    options.compression = leveldb::kNoCompression;
    leveldb::TableBuilder builder(options, file);
    builder.Add("", GoodHeader().SerializeAsString());
    builder.Add("x", std::string("\xff\xff\xff", 3));
    REQUIRE(builder.Finish().ok());
    REQUIRE(file->Close().ok());
    delete file;
  }
  ExpectError([&] { BundleReader(prefix).entry("x"); }, {"tensor 'x'", "malformed index entry"});
}

}  // namespace
}  // namespace duet::io
