// summary::FileWriter: event files decoded back with the record framing checked (length and data
// CRCs as TensorFlow writes them), every summary kind, the queue, flush and destruction, errors
// from the writer thread, and summaries inside traced functions.
#include "io/summary/file_writer.h"

#include <png.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "duet.h"
#include "google/protobuf/util/message_differencer.h"
#include "io/crc32c.h"
#include "io/summary/png_image.h"
#include "proto/event.pb.h"
#include "tests/test_util.h"

namespace duet {
namespace {

namespace fs = std::filesystem;

std::string FreshDir(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  fs::path dir = fs::path(root != nullptr ? root : "/tmp") / "summary_test" / name;
  fs::remove_all(dir);
  return dir.string();
}

std::vector<std::string> EventFiles(const std::string& logdir) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(logdir)) files.push_back(entry.path().string());
  return files;
}

uint64_t ReadU64(const std::string& b, size_t at) {
  uint64_t v = 0;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}
uint32_t ReadU32(const std::string& b, size_t at) {
  uint32_t v = 0;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}

// The Events of a TFRecord file, each record's framing checked.
std::vector<tensorflow::Event> ReadEvents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream contents;
  contents << in.rdbuf();
  const std::string bytes = contents.str();
  std::vector<tensorflow::Event> events;
  for (size_t at = 0; at < bytes.size();) {
    REQUIRE(at + 12 <= bytes.size());
    const uint64_t length = ReadU64(bytes, at);
    REQUIRE(io::UnmaskCrc32c(ReadU32(bytes, at + 8)) == io::Crc32c(bytes.data() + at, 8));
    REQUIRE(at + 12 + length + 4 <= bytes.size());
    const std::string data = bytes.substr(at + 12, length);
    REQUIRE(io::UnmaskCrc32c(ReadU32(bytes, at + 12 + length)) ==
            io::Crc32c(data.data(), data.size()));
    tensorflow::Event event;
    REQUIRE(event.ParseFromString(data));
    events.push_back(std::move(event));
    at += 12 + length + 4;
  }
  return events;
}

std::vector<tensorflow::Event> ReadOnlyFile(const std::string& logdir) {
  std::vector<std::string> files = EventFiles(logdir);
  REQUIRE(files.size() == 1);
  return ReadEvents(files[0]);
}

// The summary values with `tag`, with their steps.
std::vector<std::pair<int64_t, tensorflow::Summary::Value>> Values(
    const std::vector<tensorflow::Event>& events, const std::string& tag) {
  std::vector<std::pair<int64_t, tensorflow::Summary::Value>> values;
  for (const tensorflow::Event& event : events) {
    for (const auto& value : event.summary().value()) {
      if (value.tag() == tag) values.emplace_back(event.step(), value);
    }
  }
  return values;
}

std::vector<std::pair<int64_t, float>> Scalars(const std::vector<tensorflow::Event>& events,
                                               const std::string& tag) {
  std::vector<std::pair<int64_t, float>> scalars;
  for (const auto& [step, value] : Values(events, tag)) {
    REQUIRE(value.value_case() == tensorflow::Summary::Value::kSimpleValue);
    scalars.emplace_back(step, value.simple_value());
  }
  return scalars;
}

std::string Hostname() {
  char name[256] = {};
  REQUIRE(gethostname(name, sizeof(name) - 1) == 0);
  return name;
}

summary::FileWriterOptions QueueOnly() {
  summary::FileWriterOptions options;
  options.max_queue = 1000;  // the thread wakes only for flush() and the destructor
  options.flush_secs = 1e6;
  return options;
}

TEST_CASE("the event file has TensorFlow's name and starts with the file version") {
  const std::string logdir = FreshDir("name") + "/nested/run1";
  const double before = static_cast<double>(time(nullptr));
  summary::FileWriter writer(logdir, QueueOnly());
  const double after = static_cast<double>(time(nullptr)) + 1;
  const std::string name = fs::path(writer.path()).filename().string();
  std::smatch match;
  REQUIRE(std::regex_match(name, match, std::regex(R"(events\.out\.tfevents\.(\d{10})\.(.+))")));
  CHECK(match[2] == Hostname());
  const double seconds = std::stod(match[1]);
  CHECK(seconds >= before);
  CHECK(seconds <= after);
  CHECK(fs::path(writer.path()).parent_path() == fs::path(logdir));
  // Written and flushed at once, before any flush().
  std::vector<tensorflow::Event> events = ReadOnlyFile(logdir);
  REQUIRE(events.size() == 1);
  CHECK(events[0].file_version() == "brain.Event:2");
  CHECK(events[0].wall_time() >= before);
  CHECK(events[0].wall_time() <= after);
}

TEST_CASE("two writers in the same directory write two files") {
  const std::string logdir = FreshDir("two");
  summary::FileWriter a(logdir), b(logdir);
  CHECK(a.path() != b.path());
  CHECK(EventFiles(logdir).size() == 2);
}

TEST_CASE("scalars from numbers and tensors read back with their steps") {
  const std::string logdir = FreshDir("scalars");
  {
    summary::FileWriter writer(logdir);
    writer.scalar("loss", 0.5f, 1);
    writer.scalar("loss", 0.25, int64_t{2});
    writer.scalar("loss", constant(0.125f), 3);
    writer.scalar("loss", constant(std::vector<double>{4.0}, Shape({1, 1})), constant(int64_t{4}));
    writer.scalar("count", constant(int32_t{7}), constant(int32_t{5}));
  }
  std::vector<tensorflow::Event> events = ReadOnlyFile(logdir);
  CHECK(Scalars(events, "loss") ==
        std::vector<std::pair<int64_t, float>>{{1, 0.5f}, {2, 0.25f}, {3, 0.125f}, {4, 4.0f}});
  CHECK(Scalars(events, "count") == std::vector<std::pair<int64_t, float>>{{5, 7.0f}});
  for (size_t i = 1; i < events.size(); ++i) CHECK(events[i].wall_time() >= events[0].wall_time());
}

TEST_CASE("a histogram of a variable has TensorFlow's buckets") {
  const std::string logdir = FreshDir("histogram");
  Variable kernel(constant({{1.0f, 2.0f, 3.0f}}));
  {
    summary::FileWriter writer(logdir);
    writer.histogram("d1/kernel", kernel, 10);
  }
  auto values = Values(ReadOnlyFile(logdir), "d1/kernel");
  REQUIRE(values.size() == 1);
  CHECK(values[0].first == 10);
  const tensorflow::HistogramProto& h = values[0].second.histo();
  CHECK(h.num() == 3);
  CHECK(h.sum() == 6);
  CHECK(h.sum_squares() == 14);
  // TensorFlow's HistogramSummary of [1, 2, 3] (histogram_test.cc has the whole proto).
  CHECK(std::vector<double>(h.bucket().begin(), h.bucket().end()) ==
        std::vector<double>{0, 1, 0, 1, 0, 1, 0});
  CHECK(h.bucket_limit(1) == 1.0089710279437536);
}

// Decodes a PNG with libpng into its own format.
std::vector<uint8_t> DecodePng(const std::string& png, int* height, int* width, int* channels) {
  png_image image;
  std::memset(&image, 0, sizeof(image));
  image.version = PNG_IMAGE_VERSION;
  REQUIRE(png_image_begin_read_from_memory(&image, png.data(), png.size()) != 0);
  *height = static_cast<int>(image.height);
  *width = static_cast<int>(image.width);
  *channels = static_cast<int>(PNG_IMAGE_PIXEL_CHANNELS(image.format));
  std::vector<uint8_t> pixels(PNG_IMAGE_SIZE(image));
  REQUIRE(png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr) != 0);
  return pixels;
}

TEST_CASE("images are PNGs of the first max_outputs images, tagged as TF1 tags them") {
  const std::string logdir = FreshDir("images");
  // 4 RGB images of 2x3 pixels; image n has every value 0.2 * n (0, 51, 102, 153 as uint8:
  // tf.image.convert_image_dtype scales by 255.5 and truncates; 0.2 -> 51, 0.4 -> 102).
  std::vector<float> values;
  for (int n = 0; n < 4; ++n) values.insert(values.end(), 2 * 3 * 3, 0.2f * n);
  const Tensor batch = constant(values, Shape({4, 2, 3, 3}));
  const Tensor single = constant(std::vector<float>(2 * 2, 1.0f), Shape({2, 2, 1}));
  {
    summary::FileWriter writer(logdir);
    writer.image("x", batch, 7);
    writer.image("one", single, 8, /*max_outputs=*/1);
  }
  std::vector<tensorflow::Event> events = ReadOnlyFile(logdir);
  CHECK(Values(events, "x/image/3").empty());
  for (int n = 0; n < 3; ++n) {
    auto values_n = Values(events, "x/image/" + std::to_string(n));
    REQUIRE(values_n.size() == 1);
    CHECK(values_n[0].first == 7);
    const tensorflow::Summary::Image& image = values_n[0].second.image();
    CHECK(image.height() == 2);
    CHECK(image.width() == 3);
    CHECK(image.colorspace() == 3);
    int height, width, channels;
    std::vector<uint8_t> pixels =
        DecodePng(image.encoded_image_string(), &height, &width, &channels);
    CHECK((height == 2 && width == 3 && channels == 3));
    const uint8_t expected = std::vector<uint8_t>{0, 51, 102}[n];
    CHECK(pixels == std::vector<uint8_t>(18, expected));
  }
  auto one = Values(events, "one/image");
  REQUIRE(one.size() == 1);
  int height, width, channels;
  std::vector<uint8_t> pixels =
      DecodePng(one[0].second.image().encoded_image_string(), &height, &width, &channels);
  CHECK((height == 2 && width == 2 && channels == 1));
  CHECK(pixels == std::vector<uint8_t>(4, 255));
}

TEST_CASE("uint8 images are written pixel for pixel") {
  const std::string logdir = FreshDir("uint8_images");
  std::vector<uint8_t> bytes(2 * 28 * 28);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7);
  {
    summary::FileWriter writer(logdir);
    writer.image("digits", from_vector<uint8_t>(bytes, Shape({2, 28, 28, 1})), 3);
  }
  std::vector<tensorflow::Event> events = ReadOnlyFile(logdir);
  for (int n = 0; n < 2; ++n) {
    auto values_n = Values(events, "digits/image/" + std::to_string(n));
    REQUIRE(values_n.size() == 1);
    int height, width, channels;
    std::vector<uint8_t> pixels =
        DecodePng(values_n[0].second.image().encoded_image_string(), &height, &width, &channels);
    CHECK((height == 28 && width == 28 && channels == 1));
    CHECK(pixels == std::vector<uint8_t>(bytes.begin() + n * 784, bytes.begin() + (n + 1) * 784));
  }
}

TEST_CASE("text is a string tensor for the text plugin") {
  const std::string logdir = FreshDir("text");
  {
    summary::FileWriter writer(logdir);
    writer.text("notes", "learning rate **0.01**", 3);
  }
  auto values = Values(ReadOnlyFile(logdir), "notes");
  REQUIRE(values.size() == 1);
  CHECK(values[0].first == 3);
  const tensorflow::Summary::Value& value = values[0].second;
  CHECK(value.metadata().plugin_data().plugin_name() == "text");
  CHECK(value.tensor().dtype() == tensorflow::DT_STRING);
  CHECK(value.tensor().tensor_shape().dim_size() == 0);
  REQUIRE(value.tensor().string_val_size() == 1);
  CHECK(value.tensor().string_val(0) == "learning rate **0.01**");
}

TEST_CASE("a graph is written as Event.graph_def") {
  const std::string logdir = FreshDir("graph");
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {-1, 2});
    relu(x * 2.0f);
  }
  {
    summary::FileWriter writer(logdir);
    writer.graph(g);
  }
  std::vector<tensorflow::Event> events = ReadOnlyFile(logdir);
  REQUIRE(events.size() == 2);
  REQUIRE(events[1].what_case() == tensorflow::Event::kGraphDef);
  tensorflow::GraphDef read;
  REQUIRE(read.ParseFromString(events[1].graph_def()));
  CHECK(google::protobuf::util::MessageDifferencer::Equals(read, g.to_graph_def()));
  bool has_relu = false;
  for (const auto& node : read.node()) has_relu = has_relu || node.op() == "Relu";
  CHECK(has_relu);
}

TEST_CASE("records wait in the queue until flush(), and the destructor writes the rest") {
  const std::string logdir = FreshDir("queue");
  std::string path;
  {
    summary::FileWriter writer(logdir, QueueOnly());
    path = writer.path();
    for (int step = 0; step < 5; ++step) writer.scalar("a", step, step);
    CHECK(ReadEvents(path).size() == 1);  // the file version only: nothing woke the writer
    writer.flush();
    CHECK(Scalars(ReadEvents(path), "a").size() == 5);
    writer.scalar("a", 5, 5);
    writer.scalar("a", 6, 6);
  }
  std::vector<std::pair<int64_t, float>> scalars = Scalars(ReadEvents(path), "a");
  REQUIRE(scalars.size() == 7);
  for (int step = 0; step < 7; ++step)
    CHECK(scalars[step] == std::make_pair<int64_t, float>(step, step));
}

TEST_CASE("a full queue blocks the caller and loses nothing") {
  const std::string logdir = FreshDir("full");
  summary::FileWriterOptions options;
  options.max_queue = 1;
  options.max_pending = 1;
  {
    summary::FileWriter writer(logdir, options);
    for (int step = 0; step < 2000; ++step) writer.scalar("s", step * 0.5, step);
  }
  std::vector<std::pair<int64_t, float>> scalars = Scalars(ReadOnlyFile(logdir), "s");
  REQUIRE(scalars.size() == 2000);
  for (int step = 0; step < 2000; ++step) REQUIRE(scalars[step].first == step);
}

TEST_CASE("record_every_n_steps and RecordEvery keep steps 0, n, 2n, ...") {
  const std::string logdir = FreshDir("every");
  summary::FileWriterOptions options;
  options.record_every_n_steps = 3;
  {
    summary::FileWriter writer(logdir, options);
    for (int step = 0; step < 10; ++step) writer.scalar("s", step, step);
    writer.graph(Graph());  // graphs have no step: always written
  }
  std::vector<tensorflow::Event> events = ReadOnlyFile(logdir);
  std::vector<int64_t> steps;
  for (const auto& [step, value] : Scalars(events, "s")) steps.push_back(step);
  CHECK(steps == std::vector<int64_t>{0, 3, 6, 9});
  CHECK(events.back().what_case() == tensorflow::Event::kGraphDef);

  summary::RecordEvery every(100);
  CHECK(every(0));
  CHECK_FALSE(every(99));
  CHECK(every(200));
  testing::ExpectError([] { summary::RecordEvery zero(0); }, {"RecordEvery", "positive", "0"});
}

TEST_CASE("bad summaries throw Error naming the call, the tag and the tensor") {
  summary::FileWriter writer(FreshDir("bad"));
  testing::ExpectError(
      [&] {
        writer.scalar("loss", constant({1.0f, 2.0f}), 0);
      },
      {"scalar('loss')", writer.path(), "float32 (2,)"});
  Graph graph;  // a graph's symbolic tensor, passed outside the graph: no value to read
  Tensor symbolic;
  {
    GraphScope scope(graph);
    symbolic = placeholder(kFloat32, {}, "p");
  }
  testing::ExpectError([&] { writer.scalar("loss", symbolic, 0); },
                       {"scalar('loss')", "with a value"});
  testing::ExpectError([&] { writer.scalar("loss", 1.0, constant(1.5f)); },
                       {"scalar('loss')", "step must be an int32 or int64 scalar", "float32"});
  testing::ExpectError(
      [&] {
        writer.image("x", constant(std::vector<float>(8), Shape({2, 2, 2})), 0);
      },
      {"image('x')", "C 1, 3 or 4", "float32 (2, 2, 2)"});
  testing::ExpectError(
      [&] {
        writer.histogram("w", constant({1.0f, std::nanf(""), 3.0f}), 0);
      },
      {"histogram('w')", "finite", "element [1]", "nan"});
  writer.close();
  testing::ExpectError([&] { writer.scalar("loss", 1.0, 1); }, {writer.path(), "is closed"});
}

// Lowers the file size limit for its lifetime, so that writes past `bytes` fail with EFBIG
// (SIGXFSZ ignored), as a full disk would make them fail.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    REQUIRE(getrlimit(RLIMIT_FSIZE, &saved_) == 0);
    previous_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    REQUIRE(setrlimit(RLIMIT_FSIZE, &limit) == 0);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, previous_handler_);
  }

 private:
  rlimit saved_;
  void (*previous_handler_)(int);
};

TEST_CASE("a write that fails on the writer thread is thrown by the next call, naming the file") {
  summary::FileWriter writer(FreshDir("error"), QueueOnly());
  const std::string path = writer.path();
  std::string flush_error, scalar_error;
  {
    FileSizeLimit limit(4096);
    writer.text("big", std::string(100000, 'x'), 0);
    try {
      writer.flush();
    } catch (const Error& e) {
      flush_error = e.what();
    }
    try {
      writer.scalar("after", 1.0, 1);  // the error sticks
    } catch (const Error& e) {
      scalar_error = e.what();
    }
  }
  CHECK(flush_error.find(path) != std::string::npos);
  CHECK(flush_error.find("File too large") != std::string::npos);
  CHECK(scalar_error == flush_error);
  CHECK_THROWS_AS(writer.close(), Error);
}

TEST_CASE("a traced step writes its scalar every time it runs") {
  const std::string logdir = FreshDir("traced");
  {
    summary::FileWriter writer(logdir);
    Variable w(constant({1.0f, 2.0f}));
    auto step_fn = duet::function([&](const Tensor& x, const Tensor& step) {
      Tensor loss = reduce_sum(w * x);
      writer.scalar("loss", loss, step);
      writer.histogram("w", w, step);
      return loss;
    });
    for (int64_t step = 0; step < 5; ++step) {
      // loss = 1 * step + 2 * 1
      step_fn(constant({static_cast<float>(step), 1.0f}), constant(step));
    }
    CHECK(step_fn.trace_count() == 1);
    writer.graph(step_fn, constant({0.0f, 1.0f}), constant(int64_t{0}));
  }
  std::vector<tensorflow::Event> events = ReadOnlyFile(logdir);
  CHECK(Scalars(events, "loss") ==
        std::vector<std::pair<int64_t, float>>{{0, 2.f}, {1, 3.f}, {2, 4.f}, {3, 5.f}, {4, 6.f}});
  auto histograms = Values(events, "w");
  REQUIRE(histograms.size() == 5);
  CHECK(histograms[4].first == 4);
  CHECK(histograms[4].second.histo().sum() == 3.0);
  CHECK(events.back().what_case() == tensorflow::Event::kGraphDef);
}

TEST_CASE("a traced step with a C++ step and number writes every run, honoring record_every") {
  const std::string logdir = FreshDir("traced_every");
  summary::FileWriterOptions options;
  options.record_every_n_steps = 2;
  {
    summary::FileWriter writer(logdir, options);
    auto step_fn = duet::function([&](const Tensor& x, const Tensor& step) {
      writer.scalar("x", x, step);
      writer.scalar("fixed", 0.5, 4);  // a number and step fixed at trace time
      writer.text("note", "hello", step);
      return x;
    });
    for (int64_t step = 0; step < 5; ++step) step_fn(constant(step * 1.5f), constant(step));
  }
  std::vector<tensorflow::Event> events = ReadOnlyFile(logdir);
  CHECK(Scalars(events, "x") ==
        std::vector<std::pair<int64_t, float>>{{0, 0.f}, {2, 3.f}, {4, 6.f}});
  CHECK(Scalars(events, "fixed").size() == 5);
  CHECK(Values(events, "note").size() == 3);
}

TEST_CASE("an error inside a traced summary fails the call with the message") {
  summary::FileWriter writer(FreshDir("traced_error"));
  auto step_fn = duet::function([&](const Tensor& x) {
    writer.histogram("h", x, 0);
    return x;
  });
  step_fn(constant({1.0f}));
  testing::ExpectError([&] { step_fn(constant({std::nanf("")})); }, {"histogram('h')", "finite"});
}

}  // namespace
}  // namespace duet
