#include "tools/duet_cli.h"

#include <algorithm>
#include <map>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/npy.h"
#include "core/tensor_format.h"
#include "graph/graph_def.h"
#include "graph/passes/optimize.h"
#include "graph/session.h"

namespace duet {
namespace {

constexpr char kUsage[] =
    "usage: duet inspect MODEL.pb [--dot]\n"
    "       duet run MODEL.pb --input NAME=FILE.npy ... --output NAME ... [--out FILE.npy ...]\n"
    "       duet optimize IN.pb OUT.pb [--passes=A,B,...] [--disable=A,...] [--keep=NODE,...]\n"
    "                     [--report] [--verify]\n";

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

void PrintSummary(const Graph& graph, const std::string& path, std::ostream& out) {
  out << path << ": " << graph.num_nodes() << " nodes\n";
  std::map<std::string, int> counts;
  for (const Node* node : graph.nodes()) ++counts[node->op().name];
  out << "ops:";
  for (const auto& [op, count] : counts) out << " " << op << " x" << count;
  out << "\n\n";
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

int Inspect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args.size() > 2 || (args.size() == 2 && args[1] != "--dot")) {
    err << kUsage;
    return 2;
  }
  absl::StatusOr<Graph> graph = TryReadGraph(args[0]);
  if (!graph.ok()) {
    err << "duet inspect: " << graph.status().message() << "\n";
    return 1;
  }
  if (args.size() == 2) {
    PrintDot(*graph, out);
  } else {
    PrintSummary(*graph, args[0], out);
  }
  return 0;
}

int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << kUsage;
    return 2;
  }
  std::vector<std::pair<std::string, std::string>> inputs;  // name, file
  std::vector<std::string> outputs, files;
  for (size_t i = 1; i < args.size(); i += 2) {
    if (i + 1 >= args.size()) {
      err << "duet run: " << args[i] << " needs a value\n" << kUsage;
      return 2;
    }
    const std::string& value = args[i + 1];
    if (args[i] == "--input") {
      const size_t eq = value.find('=');
      if (eq == std::string::npos) {
        err << "duet run: --input takes NAME=FILE.npy, got '" << value << "'\n";
        return 2;
      }
      inputs.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else if (args[i] == "--output") {
      outputs.push_back(value);
    } else if (args[i] == "--out") {
      files.push_back(value);
    } else {
      err << "duet run: unknown option " << args[i] << "\n" << kUsage;
      return 2;
    }
  }
  if (outputs.empty() || (!files.empty() && files.size() != outputs.size())) {
    err << "duet run: give at least one --output, and one --out per --output or none\n";
    return 2;
  }
  absl::StatusOr<Graph> graph = TryReadGraph(args[0]);
  if (!graph.ok()) {
    err << "duet run: " << graph.status().message() << "\n";
    return 1;
  }
  FeedList feeds;
  for (const auto& [name, file] : inputs) {
    absl::StatusOr<Tensor> value = ReadNpy(file);
    if (!value.ok()) {
      err << "duet run: " << value.status().message() << "\n";
      return 1;
    }
    feeds.emplace_back(name, *std::move(value));
  }
  std::vector<Tensor> results;
  try {
    Session session(*graph);
    results = session.run(feeds, {outputs.begin(), outputs.end()});
  } catch (const Error& e) {
    err << "duet run: " << e.what() << "\n";
    return 1;
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (files.empty()) {
      out << outputs[i] << " = " << FormatTensor(results[i]) << "\n";
      continue;
    }
    const absl::Status written = WriteNpy(results[i], files[i]);
    if (!written.ok()) {
      err << "duet run: " << written.message() << "\n";
      return 1;
    }
  }
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
  if (args[0] == "optimize") return OptimizeCommand(rest, out, err);
  err << "duet: unknown command '" << args[0] << "'\n" << kUsage;
  return 2;
}

}  // namespace duet
