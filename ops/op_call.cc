#include "ops/op_call.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/literal.h"
#include "ops/execution_context.h"

namespace duet {
namespace {

// Sets the length (or dtypes) of the one list input from the input count when the op function
// left it unset; with several list inputs the op function must set them.
void InferListLength(OpCall& call) {
  const ArgDef* list = nullptr;
  for (const ArgDef& arg : call.op->inputs) {
    if (!arg.is_list()) continue;
    if (list != nullptr) return;
    list = &arg;
  }
  if (list == nullptr || ArgLength(*list, call.attrs) >= 0) return;
  const int64_t n =
      static_cast<int64_t>(call.inputs.size() + 1) - static_cast<int64_t>(call.op->inputs.size());
  if (n < 0) return;  // too few inputs: BindAttrs reports it
  if (list->number_attr_index >= 0) {
    call.attrs[list->number_attr_index] = n;
    return;
  }
  // The list's position: after the single inputs before it.
  const size_t first = static_cast<size_t>(list - call.op->inputs.data());
  std::vector<DType> dtypes;
  for (int64_t k = 0; k < n; ++k) {
    const Tensor& t = call.inputs[first + k];
    dtypes.push_back(t.defined() ? t.dtype() : kFloat32);
  }
  call.attrs[list->type_list_attr_index] = std::move(dtypes);
}

absl::Status CheckAttr(const OpDef& op, const AttrDef& def, const AttrValue& value) {
  if (std::holds_alternative<std::monostate>(value)) {
    return absl::InvalidArgumentError(absl::StrCat("attr '", def.name, "' is required"));
  }
  if (AttrTypeOf(value) != def.type) {
    return absl::InvalidArgumentError(absl::StrCat("attr '", def.name, "' must be of type ",
                                                   AttrTypeName(def.type), ", got ",
                                                   AttrTypeName(AttrTypeOf(value))));
  }
  if (def.type == AttrType::kType && std::get<DType>(value) == kString &&
      !(def.allowed_type_mask & (1u << static_cast<int>(kString)))) {
    // Ops take strings only where they say so (Note [String tensors] in core/tensor.cc).
    return absl::InvalidArgumentError(absl::StrCat(
        "no kernel for string tensors: the op does not take dtype string (attr ", def.name, ")"));
  }
  if (def.type == AttrType::kType && def.allowed_type_mask != 0) {
    DType d = std::get<DType>(value);
    if (!(def.allowed_type_mask & (1u << static_cast<int>(d)))) {
      return absl::InvalidArgumentError(
          absl::StrCat("dtype ", DTypeName(d), " is not supported (attr ", def.name, " allows ",
                       AttrValueString(def.allowed_types), ")"));
    }
  }
  if (def.type == AttrType::kString && !def.allowed_values.empty()) {
    const auto& s = std::get<std::string>(value);
    if (std::find(def.allowed_values.begin(), def.allowed_values.end(), s) ==
        def.allowed_values.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("attr '", def.name, "' is \"", s,
                       "\"; allowed: ", absl::StrJoin(def.allowed_values, ", ")));
    }
  }
  if (def.type == AttrType::kInt && def.minimum && std::get<int64_t>(value) < *def.minimum) {
    return absl::InvalidArgumentError(absl::StrCat("attr '", def.name, "' is ",
                                                   std::get<int64_t>(value), ", must be at least ",
                                                   *def.minimum));
  }
  return absl::OkStatus();
}

std::string InputsString(const OpCall& call) {
  std::vector<std::string> parts;
  size_t i = 0;
  for (const ArgDef& arg : call.op->inputs) {
    const int64_t n = ArgLength(arg, call.attrs);
    for (int64_t k = 0; k < std::max<int64_t>(n, 1) && i < call.inputs.size(); ++k, ++i) {
      const Tensor& t = call.inputs[i];
      std::string name = arg.is_list() ? absl::StrCat(arg.name, "[", k, "]") : arg.name;
      parts.push_back(t.defined()
                          ? absl::StrCat(name, ": ", DTypeName(t.dtype()), " ", t.shape().str())
                          : absl::StrCat(name, ": <undefined>"));
    }
  }
  for (; i < call.inputs.size(); ++i) parts.push_back("<extra input>");
  return absl::StrJoin(parts, ", ");
}

// A literal takes the dtype its type attr gets from the other inputs (not in type lists, whose
// dtypes are the inputs' own).
bool TakesOthersDType(const Tensor& input, const ArgDef& arg) {
  return input.is_literal() && (arg.type_attr_index >= 0 || !arg.is_list());
}

// BindAttrs' second pass (Note [Literal tensors] in core/literal.cc): converts each literal input
// to its arg's dtype; a type attr that only literals use (not in `inferred`) takes the first
// literal's dtype.
absl::Status ConvertLiterals(OpCall& call, uint64_t inferred) {
  size_t i = 0;
  for (const ArgDef& arg : call.op->inputs) {
    const int64_t n = ArgLength(arg, call.attrs);
    for (int64_t k = 0; k < n; ++k, ++i) {
      Tensor& t = call.inputs[i];
      if (!TakesOthersDType(t, arg)) continue;
      if (arg.type_attr_index >= 0) {
        const uint64_t bit = uint64_t{1} << (arg.type_attr_index & 63);
        if (!(inferred & bit)) {
          inferred |= bit;
          call.attrs[arg.type_attr_index] = t.dtype();
        }
      }
      absl::StatusOr<Tensor> converted = LiteralAs(t, ArgDType(arg, call.attrs, k));
      if (!converted.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("input ", arg.name, ": ", converted.status().message(),
                         "; cast the other inputs or use another literal"));
      }
      t = *std::move(converted);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status BindAttrs(OpCall& call) {
  const OpDef& op = *call.op;
  if (op.has_list_input) InferListLength(call);
  uint64_t inferred = 0;      // type attrs already set from an input in this call
  bool has_literals = false;  // Note [Literal tensors] in core/literal.cc
  size_t i = 0;
  for (const ArgDef& arg : op.inputs) {
    const int64_t n = ArgLength(arg, call.attrs);
    if (n < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attr '", arg.is_list() && arg.number_attr.empty() ? arg.type_list_attr : arg.number_attr,
          "' (length of ", arg.name, ") is not set"));
    }
    for (int64_t k = 0; k < n; ++k, ++i) {
      if (i >= call.inputs.size()) {
        return absl::InvalidArgumentError(absl::StrCat("expected ", arg.name, " as input ", i,
                                                       ", but only ", call.inputs.size(),
                                                       " inputs were given"));
      }
      const Tensor& t = call.inputs[i];
      if (!t.defined()) {
        return absl::InvalidArgumentError(absl::StrCat("input ", arg.name, " is undefined"));
      }
      if (TakesOthersDType(t, arg)) {
        has_literals = true;
        continue;
      }
      if (arg.type_attr_index < 0) {
        const DType expected = ArgDType(arg, call.attrs, k);
        if (t.dtype() != expected) {
          const std::string name = arg.is_list() ? absl::StrCat(arg.name, "[", k, "]") : arg.name;
          return absl::InvalidArgumentError(absl::StrCat(
              "input ", name, " must be ", DTypeName(expected), ", got ", DTypeName(t.dtype())));
        }
        continue;
      }
      // The first input using a type attr sets it (over any default); the others must agree.
      AttrValue& type = call.attrs[arg.type_attr_index];
      const uint64_t bit = uint64_t{1} << (arg.type_attr_index & 63);
      if (!(inferred & bit)) {
        inferred |= bit;
        type = t.dtype();
      } else if (std::get<DType>(type) != t.dtype()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input ", arg.name, " has dtype ", DTypeName(t.dtype()), " but ", arg.type_attr, " is ",
            DTypeName(std::get<DType>(type)), " (inputs sharing ", arg.type_attr,
            " must have the same dtype; cast one of them)"));
      }
    }
  }
  if (i != call.inputs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", i, " inputs, got ", call.inputs.size()));
  }
  if (has_literals) DUET_RETURN_IF_ERROR(ConvertLiterals(call, inferred));
  for (size_t a = 0; a < op.attrs.size(); ++a) {
    DUET_RETURN_IF_ERROR(CheckAttr(op, op.attrs[a], call.attrs[a]));
  }
  return absl::OkStatus();
}

DType DispatchDType(const OpCall& call) {
  return call.op->dispatch_attr < 0 ? kFloat32
                                    : std::get<DType>(call.attrs[call.op->dispatch_attr]);
}

absl::Status AnnotateOpError(const OpCall& call, const absl::Status& status) {
  // Nodes read from a GraphDef have no source line (line 0).
  const std::string at = call.site.location.line() == 0 ? "" : absl::StrCat("at ", call.site.str());
  std::string where;
  if (!call.site.name.empty()) {
    where = absl::StrCat(" (node '", call.site.name, "'", at.empty() ? "" : ", ", at, ")");
  } else if (!at.empty()) {
    where = absl::StrCat(" (", at, ")");
  }
  return absl::Status(status.code(), absl::StrCat(call.op->name, ": ", status.message(), " [",
                                                  InputsString(call), "]", where));
}

OutputList RunOp(OpCall& call) {
  OutputList outputs;
  absl::Status status = ExecutionContext::Current().Execute(call, outputs);
  if (!status.ok()) throw Error(AnnotateOpError(call, status));
  return outputs;
}

Tensor RunSingleOutputOp(OpCall& call) { return std::move(RunOp(call)[0]); }

}  // namespace duet
