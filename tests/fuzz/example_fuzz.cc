// libFuzzer entry point for Example parsing: the input is one serialized Example, parsed by the
// fast parser (io::ParseExamples) and by libprotobuf's generated tensorflow::Example (the
// reference, tests/io/record/reference_example_parser.h) for fixed- and variable-length
// features of every kind. Both must fail, or both give the same values bit for bit; a
// difference aborts, as does a crash, leak or sanitizer report.
// Built with clang-16 and --config=fuzz; docs/records.md, "Fuzzing", has the commands.
// tests/fuzz/example_fuzz_test.cc replays the corpus tests/fuzz/corpus_example/ in every run.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "google/protobuf/stubs/logging.h"
#include "io/record/example_parser.h"
#include "tests/io/record/reference_example_parser.h"

namespace {

// Malformed protos make protobuf log an error per input; the fuzzer only cares about crashes.
const bool kQuietProtobuf = [] {
  google::protobuf::SetLogHandler(nullptr);
  return true;
}();

const std::string kDefaultString = "default";
const float kDefaultFloats[4] = {1, 2, 3, 4};
const int64_t kDefaultInt64 = -1;

const std::vector<duet::io::FeatureRequest>& Requests() {
  using duet::io::FeatureKind;
  static const std::vector<duet::io::FeatureRequest> requests = {
      {"image", FeatureKind::kFloat, false, 4, nullptr},
      {"label", FeatureKind::kInt64, false, 1, &kDefaultInt64},
      {"name", FeatureKind::kBytes, false, 1, &kDefaultString},
      {"tags", FeatureKind::kBytes, true},
      {"weights", FeatureKind::kFloat, true},
      {"ids", FeatureKind::kInt64, true},
      {"", FeatureKind::kFloat, false, 4, kDefaultFloats}};
  return requests;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view example(reinterpret_cast<const char*>(data), size);
  const std::string difference = duet::testing::CompareWithReference({&example, 1}, Requests());
  if (!difference.empty()) {
    std::fprintf(stderr, "the parsers disagree: %s\n", difference.c_str());
    abort();
  }
  return 0;
}
