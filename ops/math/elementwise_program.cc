#include "ops/math/elementwise_program.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/error.h"

namespace duet {
namespace {

struct OpInfo {
  absl::string_view name;
  int arity;
};

// Indexed by ElementwiseOpcode.
constexpr std::array<OpInfo, kNumElementwiseOpcodes> kOps = {{
    {"AddV2", 2},   {"Sub", 2},   {"Mul", 2},      {"RealDiv", 2},  {"Div", 2},   {"Maximum", 2},
    {"Minimum", 2}, {"Pow", 2},   {"FloorMod", 2}, {"ReluGrad", 2}, {"Neg", 1},   {"Abs", 1},
    {"Square", 1},  {"Sign", 1},  {"Relu", 1},     {"Relu6", 1},    {"Floor", 1}, {"Ceil", 1},
    {"Sqrt", 1},    {"Rsqrt", 1}, {"Exp", 1},      {"Log", 1},      {"Log1p", 1}, {"Tanh", 1},
    {"Sigmoid", 1}, {"Elu", 1},   {"Softplus", 1},
}};

// Op names by a hash of their length and first and last characters: decoding looks up every
// instruction of every kernel call, so this is a few compares rather than hashing whole strings.
class OpcodeTable {
 public:
  OpcodeTable() {
    for (auto& bucket : buckets_) bucket.fill(-1);
    for (int i = 0; i < kNumElementwiseOpcodes; ++i) {
      auto& bucket = buckets_[Bucket(kOps[i].name)];
      auto free = std::find(bucket.begin(), bucket.end(), -1);
      if (free == bucket.end()) {  // a programming error, caught at startup
        std::fprintf(stderr, "elementwise_program.cc: grow OpcodeTable's buckets for %s\n",
                     std::string(kOps[i].name).c_str());
        std::abort();
      }
      *free = static_cast<int8_t>(i);
    }
  }

  std::optional<ElementwiseOpcode> Find(absl::string_view name) const {
    if (name.empty()) return std::nullopt;
    for (int8_t i : buckets_[Bucket(name)]) {
      if (i >= 0 && kOps[i].name == name) return static_cast<ElementwiseOpcode>(i);
    }
    return std::nullopt;
  }

 private:
  static int Bucket(absl::string_view name) {
    return static_cast<int>((name.size() * 31 + static_cast<unsigned char>(name.front()) * 7 +
                             static_cast<unsigned char>(name.back())) &
                            63);
  }

  std::array<std::array<int8_t, 4>, 64> buckets_;
};

std::string SupportedOps() {
  std::vector<absl::string_view> names;
  for (const OpInfo& op : kOps) names.push_back(op.name);
  return absl::StrJoin(names, ", ");
}

// Operand `value` of instruction `k`: an input or an earlier instruction's result.
absl::Status CheckOperand(int64_t value, int k, int num_inputs, absl::string_view op) {
  if (value >= 0 && value < num_inputs + k) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("instruction ", k, " (", op, ") reads value ", value, ", but only values 0..",
                   num_inputs + k - 1, " (", num_inputs, " inputs, then the ", k,
                   " instructions before it) exist there (see operands)"));
}

}  // namespace

std::optional<ElementwiseOpcode> ElementwiseOpcodeOf(absl::string_view op_name) {
  static const OpcodeTable* table = new OpcodeTable;
  return table->Find(op_name);
}

absl::string_view ElementwiseOpName(ElementwiseOpcode op) {
  return kOps[static_cast<int>(op)].name;
}

int ElementwiseArity(ElementwiseOpcode op) { return kOps[static_cast<int>(op)].arity; }

absl::StatusOr<ElementwiseProgram> DecodeElementwiseProgram(absl::Span<const std::string> ops,
                                                            absl::Span<const int64_t> operands,
                                                            int num_inputs,
                                                            absl::Span<const int64_t> results,
                                                            absl::Span<const int64_t> concat,
                                                            absl::Span<const int64_t> input_parts) {
  if (ops.empty()) return absl::InvalidArgumentError("the program (attr ops) is empty");
  ElementwiseProgram program;
  program.num_inputs = num_inputs;
  program.instructions.reserve(ops.size());
  size_t next = 0;  // into operands
  for (int k = 0; k < static_cast<int>(ops.size()); ++k) {
    const std::optional<ElementwiseOpcode> op = ElementwiseOpcodeOf(ops[k]);
    if (!op) {
      return absl::InvalidArgumentError(absl::StrCat("instruction ", k, " names op '", ops[k],
                                                     "', which is not one of ", SupportedOps()));
    }
    ElementwiseInstruction instruction{*op};
    const int arity = ElementwiseArity(*op);
    if (operands.size() < next + arity) {
      return absl::InvalidArgumentError(absl::StrCat("operands has ", operands.size(),
                                                     " entries, too few for instruction ", k, " (",
                                                     ops[k], ", ", arity, " operands)"));
    }
    for (int j = 0; j < arity; ++j) {
      const int64_t value = operands[next++];
      DUET_RETURN_IF_ERROR(CheckOperand(value, k, num_inputs, ops[k]));
      instruction.operands[j] = static_cast<int32_t>(value);
    }
    program.instructions.push_back(instruction);
  }
  if (next != operands.size()) {
    return absl::InvalidArgumentError(absl::StrCat("operands has ", operands.size(),
                                                   " entries, but the ", ops.size(),
                                                   " instructions take ", next));
  }
  const auto num_instructions = static_cast<int64_t>(ops.size());
  for (const int64_t c : concat) {
    if (c < 0 || c >= num_instructions) {
      return absl::InvalidArgumentError(absl::StrCat(
          "concat names instruction ", c, ", not one of ", "the program's ", num_instructions));
    }
    program.concat.push_back(static_cast<int>(c));
  }
  for (const int64_t r : results) {
    // Without concat, the last instruction's value is output 0 already.
    const int64_t allowed = concat.empty() ? num_instructions - 1 : num_instructions;
    if (r < 0 || r >= allowed) {
      return absl::InvalidArgumentError(
          concat.empty() ? absl::StrCat("results names instruction ", r, ", not one of the ",
                                        allowed, " before the last (whose value is output 0)")
                         : absl::StrCat("results names instruction ", r, ", not one of the ",
                                        "program's ", allowed));
    }
    if (std::find(program.results.begin(), program.results.end(), r) != program.results.end()) {
      return absl::InvalidArgumentError(absl::StrCat("results names instruction ", r, " twice"));
    }
    program.results.push_back(static_cast<int>(r));
  }
  if (!input_parts.empty()) {  // Note [Input parts]
    if (input_parts.size() != 2 * static_cast<size_t>(num_inputs)) {
      return absl::InvalidArgumentError(absl::StrCat("input_parts has ", input_parts.size(),
                                                     " entries, not two per input (",
                                                     2 * num_inputs, ")"));
    }
    for (int i = 0; i < num_inputs; ++i) {
      const int64_t index = input_parts[2 * i], count = input_parts[2 * i + 1];
      if (count < 1 || index < 0 || index >= count) {
        return absl::InvalidArgumentError(absl::StrCat("input_parts says input ", i, " is part ",
                                                       index, " of ", count,
                                                       ", which does not exist"));
      }
      program.input_parts.push_back({static_cast<int>(index), static_cast<int>(count)});
    }
  }
  return program;
}

absl::StatusOr<Shape> InputPartShape(const Shape& fed, ElementwiseProgram::Part part, int input) {
  if (part.count == 1 || fed.unknown_rank()) return fed;
  if (fed.rank() == 0 || (fed.dims().back() >= 0 && fed.dims().back() % part.count != 0)) {
    return absl::InvalidArgumentError(absl::StrCat("input ", input, " has shape ", fed.str(),
                                                   ", whose last axis does not split into ",
                                                   part.count, " equal parts (input_parts)"));
  }
  std::vector<int64_t> dims(fed.dims().begin(), fed.dims().end());
  if (dims.back() >= 0) dims.back() /= part.count;
  return Shape(dims);
}

}  // namespace duet
