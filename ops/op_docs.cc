#include "ops/op_docs.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "ops/op_registry.h"

namespace duet {
namespace {

std::string ArgString(const ArgDef& arg) {
  std::string type = arg.type_attr.empty() ? std::string(DTypeName(arg.fixed_type)) : arg.type_attr;
  if (!arg.number_attr.empty()) type = absl::StrCat(arg.number_attr, " * ", type);
  if (!arg.type_list_attr.empty()) type = arg.type_list_attr;
  return absl::StrCat(arg.name, ": ", type);
}

std::string ArgsString(const std::vector<ArgDef>& args) {
  std::vector<std::string> parts;
  for (const ArgDef& a : args) parts.push_back(ArgString(a));
  return parts.empty() ? "—" : absl::StrJoin(parts, ", ");
}

std::string AttrString(const AttrDef& attr) {
  std::string s = absl::StrCat("`", attr.name, "`: ", AttrTypeName(attr.type));
  if (!attr.allowed_types.empty()) {
    std::vector<std::string> names;
    for (DType d : attr.allowed_types) names.emplace_back(DTypeName(d));
    absl::StrAppend(&s, " in {", absl::StrJoin(names, ", "), "}");
  }
  if (!attr.allowed_values.empty()) {
    absl::StrAppend(&s, " in {", absl::StrJoin(attr.allowed_values, ", "), "}");
  }
  if (attr.minimum) absl::StrAppend(&s, " >= ", *attr.minimum);
  if (attr.default_value) absl::StrAppend(&s, " = ", AttrValueString(*attr.default_value));
  return s;
}

std::string AttrsString(const OpDef& op) {
  std::vector<std::string> parts;
  for (const AttrDef& a : op.attrs) parts.push_back(AttrString(a));
  return parts.empty() ? "—" : absl::StrJoin(parts, "; ");
}

std::string FlagsString(const OpDef& op) {
  std::vector<std::string> flags;
  if (op.stateful) flags.push_back("stateful");
  if (op.commutative) flags.push_back("commutative");
  return absl::StrJoin(flags, ", ");
}

// Table cells cannot contain a raw '|'.
std::string Cell(absl::string_view text) { return absl::StrReplaceAll(text, {{"|", "\\|"}}); }

}  // namespace

std::string RegisteredOpsMarkdown() {
  const std::vector<const OpDef*> ops = OpRegistry::Global().All();
  std::string out = absl::StrCat(
      "# duet ops\n\n"
      "Generated from the op registry by `bazel run //tools:gen_ops_doc > docs/ops.md`; do not "
      "edit by hand (a test checks that this file is current).\n\n",
      ops.size(), " ops. Op and attr names follow TensorFlow wherever TensorFlow has the op.\n\n",
      "| op | inputs | outputs | attrs | flags | summary |\n"
      "|---|---|---|---|---|---|\n");
  for (const OpDef* op : ops) {
    absl::StrAppend(&out, "| `", op->name, "` | ", ArgsString(op->inputs), " | ",
                    ArgsString(op->outputs), " | ", AttrsString(*op), " | ", FlagsString(*op),
                    " | ", Cell(op->doc), " |\n");
  }
  absl::StrAppend(
      &out,
      "\n## Differences from TensorFlow\n\n"
      "Where an op's results differ from TensorFlow's CPU kernels on purpose (each op's "
      "`TfDifference` in its declaration). `tests/interop/tf_op_diff_test.sh` compares every op "
      "both registries have with TensorFlow, case by case; the TensorFlow-side behaviours it "
      "does not count as failures (flushed subnormals, unspecified results) are listed in "
      "`tests/interop/op_diff_rules.py`. Differences of the CUDA kernels are in docs/cuda.md.\n\n"
      "| op | difference |\n|---|---|\n");
  for (const OpDef* op : ops) {
    if (op->tf_difference.empty()) continue;
    absl::StrAppend(&out, "| `", op->name, "` | ", Cell(op->tf_difference), " |\n");
  }
  return out;
}

}  // namespace duet
