#include "graph/passes/graph_dump.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace duet {
namespace {

std::string NodeLine(const Node& node) {
  std::vector<std::string> inputs;
  for (const NodeOutput& in : node.inputs()) inputs.push_back(Node::EdgeName(in));
  for (const Node* in : node.control_inputs()) inputs.push_back(absl::StrCat("^", in->name()));
  std::vector<std::string> attrs;
  for (size_t i = 0; i < node.attrs().size(); ++i) {
    if (std::holds_alternative<std::monostate>(node.attrs()[i])) continue;
    attrs.push_back(absl::StrCat(node.op().attrs[i].name, "=", AttrValueString(node.attrs()[i])));
  }
  std::vector<std::string> outputs;
  for (int i = 0; i < node.num_outputs(); ++i) {
    outputs.push_back(
        absl::StrCat(DTypeName(node.output_dtype(i)), " ", node.output_shape(i).str()));
  }
  std::string line =
      absl::StrCat(node.name(), " = ", node.op().name, "(", absl::StrJoin(inputs, ", "), ")");
  if (!attrs.empty()) absl::StrAppend(&line, " [", absl::StrJoin(attrs, ", "), "]");
  absl::StrAppend(&line, " -> ", outputs.empty() ? "()" : absl::StrJoin(outputs, ", "));
  return line;
}

std::string WithSource(absl::string_view text, absl::string_view source) {
  return source.empty() ? std::string(text) : absl::StrCat(text, "  @ ", source);
}

}  // namespace

GraphText GraphText::Of(const Graph& graph) {
  GraphText text;
  for (const Node* node : graph.nodes()) {
    text.lines.push_back({node->name(), NodeLine(*node), node->op().name, node->source()});
  }
  return text;
}

std::string GraphText::str() const {
  std::string out;
  for (const Line& line : lines) absl::StrAppend(&out, WithSource(line.text, line.source), "\n");
  return out;
}

std::string GraphDiff(const GraphText& before, const GraphText& after,
                      const std::vector<FusionRecord>& fusions) {
  absl::flat_hash_map<absl::string_view, const GraphText::Line*> old_lines, new_lines;
  for (const GraphText::Line& line : before.lines) old_lines[line.name] = &line;
  for (const GraphText::Line& line : after.lines) new_lines[line.name] = &line;
  std::string out;
  for (const GraphText::Line& line : before.lines) {
    if (!new_lines.contains(line.name)) {
      absl::StrAppend(&out, "- ", WithSource(line.text, line.source), "\n");
    }
  }
  for (const GraphText::Line& line : after.lines) {
    auto it = old_lines.find(line.name);
    if (it == old_lines.end()) {
      absl::StrAppend(&out, "+ ", WithSource(line.text, line.source), "\n");
    } else if (it->second->text != line.text) {
      absl::StrAppend(&out, "~ ", WithSource(line.text, line.source), "\n    was ",
                      it->second->text, "\n");
    }
  }
  for (const FusionRecord& fusion : fusions) {
    std::vector<std::string> parts;
    for (const ReplacedNode& r : fusion.replaced) {
      parts.push_back(
          absl::StrCat(r.name, " (", r.op, r.source.empty() ? "" : ", ", r.source, ")"));
    }
    absl::StrAppend(&out, "fused ", fusion.result, " (", fusion.op, ") <- ",
                    absl::StrJoin(parts, ", "), "\n");
  }
  return out;
}

}  // namespace duet
