// TFRecord read + Example parse throughput: 10,000 Examples of 784 float32 values ("image")
// and an int64 "label", read with io::RecordReader and parsed with data::parse_example in
// batches of 64, as tf.data.TFRecordDataset(path).batch(64).map(tf.io.parse_example) does
// (tools/bench/record_bench.py times that on the same file).
//
//     bazel build //tools/bench:record_bench
//     bazel-bin/tools/bench/record_bench FILE     # writes FILE first when it does not exist
//
// Prints `name<TAB>value<TAB>unit`: the median seconds of one pass over the file (one thread,
// page cache warm) and the records per second it gives.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/constant.h"
#include "core/error.h"
#include "io/record/example.h"
#include "io/record/record_reader.h"
#include "io/record/record_writer.h"
#include "tools/bench/bench_util.h"

namespace {

constexpr int kRecords = 10000;
constexpr int kPixels = 784;
constexpr int kBatch = 64;

void WriteExamples(const std::string& path) {
  duet::data::TFRecordWriter out(path);
  std::vector<float> image(kPixels);
  for (int i = 0; i < kRecords; ++i) {
    for (int p = 0; p < kPixels; ++p) image[p] = static_cast<float>((i + p) % 256) / 255.f;
    tensorflow::Example example;
    auto& features = *example.mutable_features()->mutable_feature();
    features["image"].mutable_float_list()->mutable_value()->Add(image.begin(), image.end());
    features["label"].mutable_int64_list()->add_value(i % 10);
    out.write(example.SerializeAsString());
  }
  out.close();
}

// One pass: every record read and parsed; returns the sum of the labels (checked, and kept).
int64_t ReadAndParse(const std::string& path, const duet::data::FeatureSpecs& specs) {
  auto reader = duet::ValueOrThrow(duet::io::RecordReader::Open(path));
  std::vector<std::string> batch;
  std::vector<absl::string_view> views;
  int64_t label_sum = 0;
  const auto parse = [&] {
    views.assign(batch.begin(), batch.end());
    const duet::data::ParsedFeatures parsed = duet::data::parse_example(views, specs);
    const int64_t* labels = parsed.at("label").data<int64_t>();
    for (size_t i = 0; i < batch.size(); ++i) label_sum += labels[i];
    batch.clear();
  };
  absl::string_view record;
  absl::Status status;
  while ((status = reader->ReadRecord(&record)).ok()) {
    batch.emplace_back(record);
    if (batch.size() == kBatch) parse();
  }
  if (!absl::IsOutOfRange(status)) throw duet::Error(status);
  if (!batch.empty()) parse();
  return label_sum;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: record_bench FILE\n");
    return 2;
  }
  const std::string path = argv[1];
  if (!std::filesystem::exists(path)) WriteExamples(path);
  const duet::data::FeatureSpecs specs = {
      {"image", duet::data::FixedLen(duet::kFloat32, {kPixels})},
      {"label", duet::data::FixedLen(duet::kInt64, {})}};
  const int64_t expected = int64_t{kRecords / 10} * 45;
  int64_t sum = 0;
  const double seconds = duet_bench::MedianSecondsPerCall([&] { sum = ReadAndParse(path, specs); });
  if (sum != expected) {
    std::fprintf(stderr, "label sum %lld, expected %lld\n", static_cast<long long>(sum),
                 static_cast<long long>(expected));
    return 1;
  }
  std::printf("duet_read_parse_epoch\t%.3f\tms\n", seconds * 1e3);
  std::printf("duet_read_parse\t%.0f\trecords/s\n", kRecords / seconds);
  return 0;
}
