// duet's side of tests/interop/tf_record_test.sh (the Examples are described in tf_records.py):
//   duet_tf_records write DIR   writes DIR/duet_examples{,.zlib,.gz} (TFRecordWriter of
//                               tensorflow::Example protos, as API.md shows)
//   duet_tf_records check DIR   reads TensorFlow's DIR/tf_examples{,.zlib,.gz} with
//                               io::RecordReader, parses them with data::parse_example and checks
//                               every value; exits 1 naming the first difference
#include <cstdio>
#include <string>
#include <vector>

#include "core/constant.h"
#include "core/error.h"
#include "io/record/example.h"
#include "io/record/record_reader.h"
#include "io/record/record_writer.h"

namespace duet {
namespace {

constexpr int kExamples = 5;
const std::vector<std::pair<std::string, std::string>> kFiles = {
    {"", ""}, {".zlib", "ZLIB"}, {".gz", "GZIP"}};

std::vector<float> Image(int i) { return {i + 0.f, i + 0.25f, i + 0.5f, i + 0.75f}; }

std::vector<std::string> Tags(int i) {
  std::vector<std::string> tags;
  for (int k = 0; k < i; ++k) tags.push_back("tag" + std::to_string(i) + "_" + std::to_string(k));
  return tags;
}

void Write(const std::string& dir) {
  for (const auto& [suffix, compression] : kFiles) {
    data::TFRecordWriter out(dir + "/duet_examples" + suffix, compression);
    for (int i = 0; i < kExamples; ++i) {
      const std::string example =
          data::ExampleBuilder()
              .add("image", from_vector(Image(i)))
              .add("label", constant<int64_t>(100 - i))
              .add("name", std::vector<std::string>{"ex" + std::to_string(i)})
              .add("tags", Tags(i))
              .serialize();
      out.write(example);
    }
    out.close();
  }
}

int Fail(const std::string& path, const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", path.c_str(), what.c_str());
  return 1;
}

int Check(const std::string& dir) {
  const data::FeatureSpecs specs = {{"image", data::FixedLen(kFloat32, {4})},
                                    {"label", data::FixedLen(kInt64, {})},
                                    {"name", data::FixedLen(kString, {})},
                                    {"tags", data::VarLen(kString)}};
  for (const auto& [suffix, compression] : kFiles) {
    const std::string path = dir + "/tf_examples" + suffix;
    auto reader =
        ValueOrThrow(io::RecordReader::Open(path, ValueOrThrow(io::ParseCompression(compression))));
    std::vector<std::string> records;
    std::string record;
    absl::Status status;
    while ((status = reader->ReadRecord(&record)).ok()) records.push_back(record);
    if (!absl::IsOutOfRange(status)) return Fail(path, status.ToString());
    if (records.size() != kExamples) return Fail(path, "wrong number of records");
    const data::ParsedFeatures parsed =
        data::parse_example(from_vector(records), specs);  // a kString (N,) tensor
    std::vector<float> images;
    std::vector<int64_t> labels, lengths;
    std::vector<std::string> names;
    for (int i = 0; i < kExamples; ++i) {
      for (float v : Image(i)) images.push_back(v);
      labels.push_back(100 - i);
      names.push_back("ex" + std::to_string(i));
      lengths.push_back(i);
    }
    if (parsed.at("image").shape() != Shape{kExamples, 4} ||
        parsed.at("image").to_vector<float>() != images) {
      return Fail(path, "image");
    }
    if (parsed.at("label").to_vector<int64_t>() != labels) return Fail(path, "label");
    if (parsed.at("name").to_vector<std::string>() != names) return Fail(path, "name");
    if (parsed.at("tags/lengths").to_vector<int64_t>() != lengths) return Fail(path, "lengths");
    const Tensor& tags = parsed.at("tags");
    if (tags.shape() != Shape{kExamples, kExamples - 1}) return Fail(path, "tags shape");
    const std::vector<std::string> dense = tags.to_vector<std::string>();
    for (int i = 0; i < kExamples; ++i) {
      std::vector<std::string> row(dense.begin() + i * (kExamples - 1),
                                   dense.begin() + (i + 1) * (kExamples - 1));
      std::vector<std::string> expected = Tags(i);
      expected.resize(kExamples - 1);  // padded with ""
      if (row != expected) return Fail(path, "tags of Example " + std::to_string(i));
    }
    std::printf("duet read %d Examples from %s\n", kExamples, path.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace duet

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: duet_tf_records write|check DIR\n");
    return 2;
  }
  const std::string mode = argv[1];
  if (mode == "write") {
    duet::Write(argv[2]);
    return 0;
  }
  return duet::Check(argv[2]);
}
