// Runs a batch of one-op GraphDefs in duet for the differential test against TensorFlow
// (op_diff.py): one process for thousands of cases, each as `duet run` would run it (import, a
// Session with its default optimizations, feeds, fetches).
//
//   run_op_cases DIR
//
// DIR/manifest.tsv has one case a line: ID, the GraphDef file, the feeds (NAME=FILE, comma
// separated; may be empty) and the fetches (comma separated), tab separated; files are relative
// to DIR, and tensors are serialized TensorProtos (every dtype, bfloat16 and strings included).
// Each fetch k is written to DIR/ID.out.K.pb. DIR/results.tsv gets "ID\tstart" before a case and
// "ID\tok" or "ID\terror\tMESSAGE" (on one line) after it, flushed, so that a case that kills the
// process is the one started last.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "core/tensor_proto.h"
#include "duet.h"
#include "graph/graph_def.h"
#include "proto/tensor.pb.h"

namespace duet {
namespace {

absl::StatusOr<Tensor> ReadTensor(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  tensorflow::TensorProto proto;
  if (!in || !proto.ParseFromIstream(&in)) {
    return absl::NotFoundError("cannot read a TensorProto from " + path);
  }
  return TensorFromProto(proto);
}

absl::Status WriteTensor(const Tensor& t, const std::string& path) {
  tensorflow::TensorProto proto;
  // A tensor on another device (none here, but a case may place ops) is written from the host.
  DUET_RETURN_IF_ERROR(TensorToProto(t.device().is_host() ? t : t.cpu(), &proto));
  std::ofstream out(path, std::ios::binary);
  if (!out || !proto.SerializeToOstream(&out)) {
    return absl::UnavailableError("cannot write " + path);
  }
  return absl::OkStatus();
}

// Runs one manifest line's case; outputs go next to the manifest.
absl::Status RunCase(const std::string& dir, const std::vector<std::string>& fields) {
  if (fields.size() != 4) {
    return absl::InvalidArgumentError("a manifest line needs 4 tab-separated fields");
  }
  DUET_ASSIGN_OR_RETURN(Graph graph, TryReadGraph(dir + "/" + fields[1]));
  FeedList feeds;
  for (absl::string_view feed : absl::StrSplit(fields[2], ',', absl::SkipEmpty())) {
    const std::vector<std::string> name_file = absl::StrSplit(feed, '=');
    DUET_ASSIGN_OR_RETURN(Tensor value, ReadTensor(dir + "/" + name_file.at(1)));
    feeds.emplace_back(name_file[0], std::move(value));
  }
  std::vector<GraphTensor> fetches;
  for (absl::string_view fetch : absl::StrSplit(fields[3], ',', absl::SkipEmpty())) {
    fetches.emplace_back(std::string(fetch));
  }
  std::vector<Tensor> outputs;
  try {
    Session session(graph);
    outputs = session.run(feeds, fetches);
  } catch (const Error& e) {
    return e.status();
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    DUET_RETURN_IF_ERROR(
        WriteTensor(outputs[k], absl::StrCat(dir, "/", fields[0], ".out.", k, ".pb")));
  }
  return absl::OkStatus();
}

int Main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: run_op_cases DIR (DIR/manifest.tsv lists the cases)\n";
    return 2;
  }
  const std::string dir = argv[1];
  std::ifstream manifest(dir + "/manifest.tsv");
  if (!manifest) {
    std::cerr << "run_op_cases: cannot read " << dir << "/manifest.tsv\n";
    return 1;
  }
  std::ofstream results(dir + "/results.tsv", std::ios::app);
  std::string line;
  while (std::getline(manifest, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> fields = absl::StrSplit(line, '\t');
    results << fields[0] << "\tstart\n" << std::flush;
    const absl::Status status = RunCase(dir, fields);
    if (status.ok()) {
      results << fields[0] << "\tok\n" << std::flush;
    } else {
      results << fields[0] << "\terror\t"
              << absl::StrReplaceAll(status.message(), {{"\n", " "}, {"\t", " "}}) << "\n"
              << std::flush;
    }
  }
  return 0;
}

}  // namespace
}  // namespace duet

int main(int argc, char** argv) { return duet::Main(argc, argv); }
