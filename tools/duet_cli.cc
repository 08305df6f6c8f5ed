#include "tools/duet_cli.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/npy.h"
#include "core/tensor_format.h"
#include "core/tensor_proto.h"
#include "core/thread_pool.h"
#include "google/protobuf/text_format.h"
#include "graph/graph_def.h"
#include "graph/passes/optimize.h"
#include "graph/session.h"
#include "io/saved_model/loader.h"
#include "ops/op_def_proto.h"
#include "ops/op_registry.h"
#include "tools/launch.h"

namespace duet {
namespace {

constexpr char kUsage[] =
    "usage: duet inspect MODEL.pb|SAVED_MODEL_DIR [--dot]\n"
    "       duet run MODEL.pb|SAVED_MODEL_DIR --input NAME=FILE.npy ... --output NAME ...\n"
    "                [--out FILE.npy ...] [--signature KEY]\n"
    "       duet bench MODEL.pb --input NAME=FILE.npy ... --output NAME ... [--runs N]\n"
    "                  [--threads T]\n"
    "       duet optimize IN.pb OUT.pb [--passes=A,B,...] [--disable=A,...] [--keep=NODE,...]\n"
    "                     [--report] [--verify]\n"
    "       duet ops [--opdefs]\n"
    "       duet launch --nproc N [--nnodes M --node-rank K --rendezvous-dir DIR]\n"
    "                   [--timeout SECONDS] -- PROGRAM [ARGS...]\n";

std::string OutputsString(const Node& node) {
  std::vector<std::string> parts;
  for (int i = 0; i < node.num_outputs(); ++i) {
    parts.push_back(absl::StrCat(DTypeName(node.output_dtype(i)), " ", node.output_shape(i).str()));
  }
  return parts.empty() ? "-" : absl::StrJoin(parts, ", ");
}

std::string InputsString(const Node& node) {
  std::vector<std::string> parts;
  for (const NodeOutput& in : node.inputs()) parts.push_back(Node::EdgeName(in));
  for (const Node* in : node.control_inputs()) parts.push_back(absl::StrCat("^", in->name()));
  return parts.empty() ? "-" : absl::StrJoin(parts, ", ");
}

void PrintNodes(const Graph& graph, std::ostream& out) {
  for (const Node* node : graph.nodes()) {
    out << node->name() << " = " << node->op().name << "(" << InputsString(*node) << ") -> "
        << OutputsString(*node) << "\n";
  }
}

// Graphviz: one box per node (name and op), data edges labelled with dtype and shape, control
// edges dashed.
void PrintDot(const Graph& graph, std::ostream& out) {
  out << "digraph duet {\n  node [shape=box, fontname=\"monospace\"];\n";
  for (const Node* node : graph.nodes()) {
    out << "  n" << node->id() << " [label=\"" << node->name() << "\\n"
        << node->op().name << "\"];\n";
  }
  for (const Node* node : graph.nodes()) {
    for (const NodeOutput& in : node->inputs()) {
      out << "  n" << in.node->id() << " -> n" << node->id() << " [label=\""
          << DTypeName(in.node->output_dtype(in.index)) << " "
          << in.node->output_shape(in.index).str() << "\"];\n";
    }
    for (const Node* in : node->control_inputs()) {
      out << "  n" << in->id() << " -> n" << node->id() << " [style=dashed];\n";
    }
  }
  out << "}\n";
}

// "ops: A x2 B x1 (missing) ...": the ops of the GraphDef's nodes and its library functions'
// bodies, with their counts; those duet does not register are marked.
void PrintOpCounts(const tensorflow::GraphDef& def, std::ostream& out) {
  std::map<std::string, int> counts;
  for (const tensorflow::NodeDef& node : def.node()) ++counts[node.op()];
  for (const tensorflow::FunctionDef& function : def.library().function()) {
    for (const tensorflow::NodeDef& node : function.node_def()) ++counts[node.op()];
  }
  out << "ops:";
  for (const auto& [op, count] : counts) {
    out << " " << op << " x" << count;
    if (OpRegistry::Global().Find(op) == nullptr) out << " (missing)";
  }
  out << "\n";
}

std::string TensorInfoString(const std::string& name, const tensorflow::TensorInfo& info) {
  const absl::StatusOr<DType> dtype = FromProtoDataType(info.dtype());
  const absl::StatusOr<Shape> shape = ShapeFromProto(info.tensor_shape());
  return absl::StrCat(name, ": ", dtype.ok() ? DTypeName(*dtype) : "?", " ",
                      shape.ok() ? shape->str() : "?", " (", info.name(), ")");
}

// duet inspect on a SavedModel directory: its signatures, then the graph they need, as imported.
int InspectSavedModel(const std::string& dir, bool dot, std::ostream& out, std::ostream& err) {
  std::optional<saved_model::LoadedModel> loaded;
  try {
    loaded = saved_model::load(dir);
  } catch (const Error& e) {
    err << "duet inspect: " << e.what() << "\n";
    return 1;
  }
  if (dot) {
    PrintDot(loaded->graph(), out);
    return 0;
  }
  out << dir << ": SavedModel, " << loaded->graph().num_nodes() << " nodes\n";
  for (const std::string& key : loaded->signatures()) {
    const tensorflow::SignatureDef& signature = loaded->signature_def(key);
    out << "signature '" << key << "':\n";
    for (const auto& [name, info] : signature.inputs()) {
      out << "  input  " << TensorInfoString(name, info) << "\n";
    }
    for (const auto& [name, info] : signature.outputs()) {
      out << "  output " << TensorInfoString(name, info) << "\n";
    }
  }
  out << "\n";
  PrintNodes(loaded->graph(), out);
  return 0;
}

// duet inspect: reads the GraphDef itself first, so a graph with ops duet lacks still lists its
// ops, the missing ones marked, before the import that would fail.
int Inspect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args.size() > 2 || (args.size() == 2 && args[1] != "--dot")) {
    err << kUsage;
    return 2;
  }
  const bool dot = args.size() == 2;
  if (saved_model::is_saved_model(args[0])) return InspectSavedModel(args[0], dot, out, err);
  absl::StatusOr<tensorflow::GraphDef> def = TryReadGraphDef(args[0]);
  if (!def.ok()) {
    err << "duet inspect: " << def.status().message() << "\n";
    return 1;
  }
  if (const std::vector<MissingOp> missing = MissingOps(*def); !missing.empty()) {
    if (dot) {
      err << "duet inspect: " << args[0] << ": " << MissingOpsMessage(missing) << "\n";
      return 1;
    }
    out << args[0] << ": " << def->node_size() << " nodes, not imported\n";
    PrintOpCounts(*def, out);
    out << MissingOpsMessage(missing) << "\n";
    return 0;
  }
  absl::StatusOr<Graph> graph = GraphFromGraphDef(*def);
  if (!graph.ok()) {
    err << "duet inspect: " << args[0] << ": " << graph.status().message() << "\n";
    return 1;
  }
  if (dot) {
    PrintDot(*graph, out);
    return 0;
  }
  out << args[0] << ": " << graph->num_nodes() << " nodes\n";
  PrintOpCounts(*def, out);
  out << "\n";
  PrintNodes(*graph, out);
  return 0;
}

// What `duet run` and `duet bench` were asked to do.
struct RunArgs {
  std::string model;
  std::vector<std::pair<std::string, std::string>> inputs;  // name, file
  std::vector<std::string> outputs, files;
  std::string signature = "serving_default";  // a SavedModel's
  int runs = 50;
  int threads = 0;  // 0: the intra-op pool's own size
};

// Parses `args` for `command` ("run" takes --out, "bench" --runs and --threads); on bad usage
// writes why to `err` and returns nullopt.
std::optional<RunArgs> ParseRunArgs(const std::string& command,
                                    const std::vector<std::string>& args, std::ostream& err) {
  if (args.empty()) {
    err << kUsage;
    return std::nullopt;
  }
  RunArgs parsed;
  parsed.model = args[0];
  const bool bench = command == "bench";
  for (size_t i = 1; i < args.size(); i += 2) {
    if (i + 1 >= args.size()) {
      err << "duet " << command << ": " << args[i] << " needs a value\n" << kUsage;
      return std::nullopt;
    }
    const std::string& value = args[i + 1];
    if (args[i] == "--input") {
      const size_t eq = value.find('=');
      if (eq == std::string::npos) {
        err << "duet " << command << ": --input takes NAME=FILE.npy, got '" << value << "'\n";
        return std::nullopt;
      }
      parsed.inputs.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else if (args[i] == "--output") {
      parsed.outputs.push_back(value);
    } else if (args[i] == "--out" && !bench) {
      parsed.files.push_back(value);
    } else if (args[i] == "--signature" && !bench) {
      parsed.signature = value;
    } else if ((args[i] == "--runs" || args[i] == "--threads") && bench) {
      int& number = args[i] == "--runs" ? parsed.runs : parsed.threads;
      if (!absl::SimpleAtoi(value, &number) || number < 1) {
        err << "duet bench: " << args[i] << " takes a positive number, got '" << value << "'\n";
        return std::nullopt;
      }
    } else {
      err << "duet " << command << ": unknown option " << args[i] << "\n" << kUsage;
      return std::nullopt;
    }
  }
  if (parsed.outputs.empty() ||
      (!parsed.files.empty() && parsed.files.size() != parsed.outputs.size())) {
    err << "duet " << command << ": give at least one --output"
        << (bench ? "" : ", and one --out per --output or none") << "\n";
    return std::nullopt;
  }
  return parsed;
}

absl::StatusOr<FeedList> ReadFeeds(const RunArgs& args) {
  FeedList feeds;
  for (const auto& [name, file] : args.inputs) {
    DUET_ASSIGN_OR_RETURN(Tensor value, ReadNpy(file));
    feeds.emplace_back(name, std::move(value));
  }
  return feeds;
}

// A SavedModel's signature: inputs and outputs by the signature's names.
std::vector<Tensor> RunSavedModel(const RunArgs& args, const FeedList& feeds) {
  const saved_model::LoadedModel loaded = saved_model::load(args.model);
  std::map<std::string, Tensor> inputs;
  for (size_t i = 0; i < feeds.size(); ++i) inputs[args.inputs[i].first] = feeds[i].second;
  const std::map<std::string, Tensor> results = loaded.call(args.signature, inputs);
  std::vector<Tensor> out;
  for (const std::string& name : args.outputs) {
    auto it = results.find(name);
    if (it == results.end()) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("signature '", args.signature, "' has no output '", name, "'")));
    }
    out.push_back(it->second);
  }
  return out;
}

int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::optional<RunArgs> parsed = ParseRunArgs("run", args, err);
  if (!parsed) return 2;
  absl::StatusOr<FeedList> feeds = ReadFeeds(*parsed);
  if (!feeds.ok()) {
    err << "duet run: " << feeds.status().message() << "\n";
    return 1;
  }
  const std::vector<std::string>& outputs = parsed->outputs;
  std::vector<Tensor> results;
  try {
    if (saved_model::is_saved_model(parsed->model)) {
      results = RunSavedModel(*parsed, *feeds);
    } else {
      absl::StatusOr<Graph> graph = TryReadGraph(parsed->model);
      if (!graph.ok()) {
        err << "duet run: " << graph.status().message() << "\n";
        return 1;
      }
      Session session(*graph);
      results = session.run(*feeds, {outputs.begin(), outputs.end()});
    }
  } catch (const Error& e) {
    err << "duet run: " << e.what() << "\n";
    return 1;
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (parsed->files.empty()) {
      out << outputs[i] << " = " << FormatTensor(results[i]) << "\n";
      continue;
    }
    const absl::Status written = WriteNpy(results[i], parsed->files[i]);
    if (!written.ok()) {
      err << "duet run: " << written.message() << "\n";
      return 1;
    }
  }
  return 0;
}

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The nearest-rank percentile `p` of sorted `values`.
double Percentile(const std::vector<double>& sorted, double p) {
  const size_t rank = static_cast<size_t>(std::ceil(p / 100 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

// duet bench: TensorFlow's benchmark_model for a GraphDef. Times loading (read and import), the
// first run (which optimizes and compiles the plan) and `runs` more runs of one Session, and
// prints them as name<TAB>value<TAB>unit lines (docs/benchmarks.md).
int Bench(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::optional<RunArgs> parsed = ParseRunArgs("bench", args, err);
  if (!parsed) return 2;
  absl::StatusOr<FeedList> feeds = ReadFeeds(*parsed);
  if (!feeds.ok()) {
    err << "duet bench: " << feeds.status().message() << "\n";
    return 1;
  }
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Graph> graph = TryReadGraph(parsed->model);
  if (!graph.ok()) {
    err << "duet bench: " << graph.status().message() << "\n";
    return 1;
  }
  const double load_ms = MillisecondsSince(start);
  ThreadPool& pool = ThreadPool::Intra();
  const int pool_threads = pool.num_threads();
  const int threads = parsed->threads > 0 ? pool.set_num_threads(parsed->threads) : pool_threads;
  const std::vector<GraphTensor> fetches(parsed->outputs.begin(), parsed->outputs.end());
  double first_ms = 0;
  std::vector<double> times;
  try {
    Session session(*graph);
    start = std::chrono::steady_clock::now();
    session.run(*feeds, fetches);
    first_ms = MillisecondsSince(start);
    for (int i = 0; i < parsed->runs; ++i) {
      start = std::chrono::steady_clock::now();
      session.run(*feeds, fetches);
      times.push_back(MillisecondsSince(start));
    }
  } catch (const Error& e) {
    pool.set_num_threads(pool_threads);
    err << "duet bench: " << e.what() << "\n";
    return 1;
  }
  pool.set_num_threads(pool_threads);
  std::sort(times.begin(), times.end());
  double sum = 0;
  for (double t : times) sum += t;
  out << "model\t" << parsed->model << "\n"
      << "threads\t" << threads << "\tthreads\n"
      << "load\t" << load_ms << "\tms\n"
      << "first_run\t" << first_ms << "\tms\n"
      << "runs\t" << times.size() << "\truns\n"
      << "min\t" << times.front() << "\tms\n"
      << "p50\t" << Percentile(times, 50) << "\tms\n"
      << "p90\t" << Percentile(times, 90) << "\tms\n"
      << "p99\t" << Percentile(times, 99) << "\tms\n"
      << "max\t" << times.back() << "\tms\n"
      << "mean\t" << sum / static_cast<double>(times.size()) << "\tms\n";
  return 0;
}

// duet ops: the registered ops' names, one a line; --opdefs: their TensorFlow OpDefs as a text
// OpList (what tests/interop/compare_op_defs.py compares with TensorFlow's).
int Ops(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.size() > 1 || (args.size() == 1 && args[0] != "--opdefs")) {
    err << kUsage;
    return 2;
  }
  if (args.empty()) {
    for (const OpDef* op : OpRegistry::Global().All()) out << op->name << "\n";
    return 0;
  }
  tensorflow::OpList list;
  for (const OpDef* op : OpRegistry::Global().All()) *list.add_op() = OpDefToProto(*op);
  std::string text;
  google::protobuf::TextFormat::PrintToString(list, &text);
  out << text;
  return 0;
}

// What `duet optimize` was asked to do.
struct OptimizeArgs {
  std::string in, out;
  PassOptions options;
  bool report = false;
};

std::vector<std::string> SplitList(absl::string_view list) {
  return absl::StrSplit(list, ',', absl::SkipEmpty());
}

// Parses `args`; on bad usage writes why to `err` and returns nullopt.
std::optional<OptimizeArgs> ParseOptimizeArgs(const std::vector<std::string>& args,
                                              std::ostream& err) {
  OptimizeArgs parsed;
  std::vector<std::string> files;
  const std::map<std::string, std::vector<std::string>*> lists = {
      {"--passes", &parsed.options.passes},
      {"--disable", &parsed.options.disable},
      {"--keep", &parsed.options.keep}};
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    if (auto list = lists.find(arg.substr(0, eq)); list != lists.end()) {
      if (eq == std::string::npos) {
        err << "duet optimize: " << arg << " takes a list: " << arg << "=a,b\n";
        return std::nullopt;
      }
      *list->second = SplitList(absl::string_view(arg).substr(eq + 1));
    } else if (arg == "--report") {
      parsed.report = true;
    } else if (arg == "--verify") {
      parsed.options.verify = true;
    } else if (absl::StartsWith(arg, "--")) {
      err << "duet optimize: unknown option " << arg << "\n" << kUsage;
      return std::nullopt;
    } else {
      files.push_back(arg);
    }
  }
  if (files.size() != 2) {
    err << "duet optimize: give the input and the output file\n" << kUsage;
    return std::nullopt;
  }
  for (const std::vector<std::string>* names : {&parsed.options.passes, &parsed.options.disable}) {
    for (const std::string& name : *names) {
      if (std::find(PassNames().begin(), PassNames().end(), name) != PassNames().end()) continue;
      err << "duet optimize: there is no pass named '" << name << "'; the passes are "
          << absl::StrJoin(PassNames(), ", ") << "\n";
      return std::nullopt;
    }
  }
  parsed.in = files[0];
  parsed.out = files[1];
  return parsed;
}

// duet optimize: reads a graph, runs the pass pipeline on it (keeping the nodes nothing consumes
// and --keep), writes it, and prints what each pass did (and, with --report, what did not fire).
int OptimizeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::optional<OptimizeArgs> parsed = ParseOptimizeArgs(args, err);
  if (!parsed) return 2;
  absl::StatusOr<Graph> graph = TryReadGraph(parsed->in);
  if (!graph.ok()) {
    err << "duet optimize: " << graph.status().message() << "\n";
    return 1;
  }
  for (const std::string& name : parsed->options.keep) {
    if (graph->FindNode(name) != nullptr) continue;
    err << "duet optimize: --keep names '" << name << "', which is not a node of " << parsed->in
        << "\n";
    return 1;
  }
  absl::StatusOr<PassReport> report = TryOptimize(*graph, parsed->options);
  if (!report.ok()) {
    err << "duet optimize: " << report.status().message() << "\n";
    return 1;
  }
  if (const absl::Status written = TryWriteGraph(*graph, parsed->out); !written.ok()) {
    err << "duet optimize: " << written.message() << "\n";
    return 1;
  }
  if (!parsed->report) report->missed.clear();
  out << report->str();
  if (parsed->report && report->missed.empty()) out << "every fusion candidate fused\n";
  out << "wrote " << parsed->out << "\n";
  return 0;
}

}  // namespace

int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << kUsage;
    return 2;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "inspect") return Inspect(rest, out, err);
  if (args[0] == "run") return Run(rest, out, err);
  if (args[0] == "bench") return Bench(rest, out, err);
  if (args[0] == "optimize") return OptimizeCommand(rest, out, err);
  if (args[0] == "ops") return Ops(rest, out, err);
  if (args[0] == "launch") return LaunchCommand(rest, out, err);
  err << "duet: unknown command '" << args[0] << "'\n" << kUsage;
  return 2;
}

}  // namespace duet
