// The pass manager: runs the pipeline in rounds until a round changes nothing, timing and counting
// each pass, checking the graph after each one in debug builds, and dumping it when asked.
#include <chrono>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/error.h"
#include "graph/passes/graph_dump.h"
#include "graph/passes/optimize.h"
#include "graph/passes/passes.h"
#include "graph/passes/shadow_check.h"

namespace duet {
namespace {

struct Pass {
  const char* name;
  PassFn run;
};

// The order of a round: pruning first, so that later passes do not work on dead nodes.
constexpr Pass kPipeline[] = {
    {"inline_functions", InlineFunctions},  // first: the other passes then see across calls
    {"merge_loop_twins", MergeLoopTwins},
    {"prune", Prune},
    {"constant_folding", FoldConstants},
    {"convert_layout", ConvertLayout},  // before simplify, which cancels its Transposes
    {"simplify", Simplify},
    {"cse", EliminateCommonSubexpressions},
    {"fold_batch_norm", FoldBatchNorm},  // before fuse_bias_activation: it makes a Conv2D + bias
    {"fold_scale_offset", FoldScaleOffset},  // likewise
    {"fuse_bias_activation", FuseBiasActivation},
    // Before fuse_elementwise, which would otherwise take its Log, Mul and Neg into a region.
    {"fuse_softmax_cross_entropy", FuseSoftmaxCrossEntropy},
    // After the bias fusion, which would otherwise find its activations already fused here.
    {"fuse_elementwise", FuseElementwise},
    {"fuse_gradient_update", FuseGradientUpdate},
};

bool Contains(const std::vector<std::string>& names, absl::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Why `pass` cannot join the passes in `all` (OK when it can).
absl::Status CheckCustomPass(const CustomPass& pass, const std::vector<CustomPass>& all) {
  if (pass.name.empty()) return absl::InvalidArgumentError("PassOptions::extra_passes: no name");
  if (!pass.run) {
    return absl::InvalidArgumentError(
        absl::StrCat("PassOptions::extra_passes: pass '", pass.name, "' has no function"));
  }
  for (const CustomPass& other : all) {
    if (other.name == pass.name) {
      return absl::InvalidArgumentError(absl::StrCat(
          "PassOptions::extra_passes: there is a pass named '", pass.name, "' already"));
    }
  }
  return absl::OkStatus();
}

// The pipeline's passes, then the user's.
absl::StatusOr<std::vector<CustomPass>> AllPasses(const PassOptions& options) {
  std::vector<CustomPass> all;
  for (const Pass& pass : kPipeline) all.push_back({pass.name, pass.run});
  for (const CustomPass& pass : options.extra_passes) {
    DUET_RETURN_IF_ERROR(CheckCustomPass(pass, all));
    all.push_back(pass);
  }
  return all;
}

absl::StatusOr<std::vector<CustomPass>> EnabledPasses(const PassOptions& options) {
  DUET_ASSIGN_OR_RETURN(std::vector<CustomPass> all, AllPasses(options));
  const std::vector<std::string> names = AllPassNames(options);
  for (const std::vector<std::string>* list : {&options.passes, &options.disable}) {
    for (const std::string& name : *list) {
      if (!Contains(names, name)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "there is no pass named '", name, "'; the passes are ", absl::StrJoin(names, ", ")));
      }
    }
  }
  std::vector<CustomPass> enabled;
  for (CustomPass& pass : all) {
    if (!options.passes.empty() && !Contains(options.passes, pass.name)) continue;
    if (Contains(options.disable, pass.name)) continue;
    enabled.push_back(std::move(pass));
  }
  return enabled;
}

// Checks what a pass left: edges to live nodes of this graph, valid output indices. Cheap next
// to any pass, so it runs in every build (tests build optimized).
absl::Status VerifyGraph(const Graph& graph, absl::string_view pass) {
  auto live = [&](const Node* n) {
    return n != nullptr && !n->removed() && n->id() < graph.num_nodes() && graph.node(n->id()) == n;
  };
  for (const Node* node : graph.nodes()) {
    for (const NodeOutput& in : node->inputs()) {
      if (!live(in.node) || in.index >= in.node->num_outputs()) {
        return absl::InternalError(absl::StrCat("pass '", pass, "' left node '", node->name(),
                                                "' reading an output that is not in the graph"));
      }
    }
    for (const Node* in : node->control_inputs()) {
      if (!live(in)) {
        return absl::InternalError(absl::StrCat("pass '", pass, "' left node '", node->name(),
                                                "' with a control input not in the graph"));
      }
    }
  }
  return absl::OkStatus();
}

class Dumper {
 public:
  explicit Dumper(const std::string& dir) : dir_(dir) {}

  absl::Status Start(const Graph& graph) {
    if (dir_.empty()) return absl::OkStatus();
    std::error_code error;
    std::filesystem::create_directories(dir_, error);
    if (error) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot create dump_dir '", dir_, "': ", error.message()));
    }
    last_ = GraphText::Of(graph);
    return Write("00_input.txt", last_.str());
  }

  absl::Status After(const Graph& graph, const PassRun& run, const std::vector<FusionRecord>& f) {
    if (dir_.empty()) return absl::OkStatus();
    GraphText now = GraphText::Of(graph);
    const std::string base = absl::StrFormat("%02d_round%d_%s", ++count_, run.iteration, run.pass);
    DUET_RETURN_IF_ERROR(Write(base + ".txt", now.str()));
    DUET_RETURN_IF_ERROR(Write(base + ".diff", GraphDiff(last_, now, f)));
    last_ = std::move(now);
    return absl::OkStatus();
  }

 private:
  absl::Status Write(const std::string& file, const std::string& text) {
    const std::filesystem::path path = std::filesystem::path(dir_) / file;
    std::ofstream out(path);
    out << text;
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", path.string()));
    return absl::OkStatus();
  }

  std::string dir_;
  GraphText last_;
  int count_ = 0;
};

// A fused node keeps the source lines of every node it replaced, so that its errors name them.
void KeepSources(Graph& graph, const FusionRecord& fusion) {
  const Node* result = graph.FindNode(fusion.result);
  if (result == nullptr) return;
  for (const ReplacedNode& replaced : fusion.replaced) {
    graph.AddFusedSources(result, {replaced.source});
    graph.AddFusedSources(result, replaced.fused_sources);
  }
}

absl::StatusOr<bool> RunPass(const CustomPass& pass, int iteration, Graph& graph,
                             PassContext& context, PassReport& report, Dumper& dumper) {
  DUET_RETURN_IF_ERROR(graph.SortTopologically());
  PassRun run;
  run.pass = pass.name;
  run.iteration = iteration;
  run.nodes_before = graph.num_nodes();
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<bool> changed = pass.run(graph, context);
  run.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!changed.ok()) {
    return absl::Status(changed.status().code(),
                        absl::StrCat("pass '", pass.name, "': ", changed.status().message()));
  }
  DUET_RETURN_IF_ERROR(VerifyGraph(graph, pass.name));
  run.nodes_after = graph.num_nodes();
  run.changed = *changed;
  run.counters = context.TakeCounters();
  const std::vector<FusionRecord> fusions = context.TakeFusions();
  for (const FusionRecord& fusion : fusions) KeepSources(graph, fusion);
  if (run.changed) DUET_RETURN_IF_ERROR(dumper.After(graph, run, fusions));
  report.runs.push_back(std::move(run));
  return *changed;
}

}  // namespace

const std::vector<std::string>& PassNames() {
  static const auto* names = [] {
    auto* list = new std::vector<std::string>;
    for (const Pass& pass : kPipeline) list->push_back(pass.name);
    return list;
  }();
  return *names;
}

std::vector<std::string> AllPassNames(const PassOptions& options) {
  std::vector<std::string> names = PassNames();
  for (const CustomPass& pass : options.extra_passes) names.push_back(pass.name);
  return names;
}

absl::StatusOr<PassReport> OptimizeKeeping(Graph& graph, const PassOptions& options,
                                           absl::flat_hash_set<const Node*> keep) {
  DUET_ASSIGN_OR_RETURN(const std::vector<CustomPass> passes, EnabledPasses(options));
  for (const std::string& name : options.keep) {
    const Node* node = graph.FindNode(name);
    if (node == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("PassOptions::keep names '", name, "', which is not a node of the graph"));
    }
    keep.insert(node);
  }
  std::optional<Graph> original;
  if (options.verify) original = graph.Copy();
  PassReport report;
  report.nodes_before = graph.num_nodes();
  PassContext context(options, keep);
  Dumper dumper(options.dump_dir);
  DUET_RETURN_IF_ERROR(dumper.Start(graph));
  bool changed = true;
  while (changed && report.iterations < options.max_iterations) {
    changed = false;
    ++report.iterations;
    context.ClearMissed();
    for (const CustomPass& pass : passes) {
      DUET_ASSIGN_OR_RETURN(const bool pass_changed,
                            RunPass(pass, report.iterations, graph, context, report, dumper));
      changed |= pass_changed;
    }
  }
  DUET_RETURN_IF_ERROR(graph.SortTopologically());
  report.nodes_after = graph.num_nodes();
  report.missed = context.missed();
  if (original) {
    std::vector<std::string> kept;
    for (const Node* node : keep) kept.push_back(node->name());
    DUET_ASSIGN_OR_RETURN(report.verify, ShadowCheck(*original, graph, kept, options));
  }
  return report;
}

}  // namespace duet
