// libFuzzer entry point for GraphDef import: any byte string must either fail to parse, fail
// validation with a Status, or import into a graph that exports again; never crash.
//   CC=clang-16 CXX=clang++-16 bazel --output_base=$HOME/.cache/bazel-ob-fuzz build
//     --config=fuzz //tests:fuzz/graphdef_fuzz     (one command line)
//   bazel-bin/tests/fuzz/graphdef_fuzz -max_total_time=600 tests/fuzz/corpus
// (docs/graph.md, "Fuzzing"). tests/fuzz/graphdef_fuzz_test.cc replays the corpus in every test
// run.
#include <cstddef>
#include <cstdint>

#include "google/protobuf/stubs/logging.h"
#include "graph/graph_def.h"

namespace {
// Malformed strings make protobuf log an error per input; the fuzzer only cares about crashes.
const bool kQuietProtobuf = [] {
  google::protobuf::SetLogHandler(nullptr);
  return true;
}();
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tensorflow::GraphDef def;
  if (!def.ParseFromArray(data, static_cast<int>(size))) return 0;
  absl::StatusOr<duet::Graph> graph = duet::GraphFromGraphDef(def);
  if (!graph.ok()) return 0;
  // What imports must export: every attr has a wire form.
  absl::StatusOr<tensorflow::GraphDef> again = duet::GraphToGraphDef(*graph);
  if (!again.ok()) __builtin_trap();
  return 0;
}
