// The expression program a _FusedElementwise node evaluates: its encoding in two plain attrs, and
// the decoded form that the shape function checks and the kernels run.
//
// Note [Elementwise programs]
// A _FusedElementwise node with inputs x_0 .. x_{N-1} computes a straight-line program:
//
//   ops:      list(string), one op name per instruction, e.g. ["Mul", "AddV2", "Tanh"]
//   operands: list(int), the operands of all instructions in order, as many per instruction as its
//             op takes (1 or 2): value index i < N is input x_i, N + k is the result of
//             instruction k, which must come before the instruction reading it.
//
// The result of the last instruction is the output. Note [Extra outputs]: `results` (list(int),
// optional) names instructions whose values are outputs too, output 1 + j for results[j], each of
// the output's shape: the values of a fused region that nodes outside it read (a loop body's
// intermediates that its gradient saves). Note [Concatenated output]: `concat` (list(int),
// optional) makes output 0 the values of the instructions it names side by side along the last
// axis, as ConcatV2 would join them: the program's shape (that of its inputs and extra outputs)
// is then output 0's with the last dim divided by the list's length, and `results` may name any
// instruction. An LSTM cell's gradient writes its four gates' gradients into one tensor so.
// Note [Input parts]: `input_parts` (list(int), optional: two per input) says input i is part
// input_parts[2i] of input_parts[2i + 1] equal parts of the tensor fed, along its last axis, as
// Split(num_split = input_parts[2i + 1]) would make it, and [0, 1] that it is read whole; shapes
// above speak of the parts. An LSTM cell reads its four gates from one tensor so, with no Split.
// tanh(x * y + 1) with inputs [x, y, 1] is
// ops ["Mul", "AddV2", "Tanh"], operands [0, 1, 3, 2, 4]. Every input is either a single element
// (a scalar that broadcasts) or of the output's full shape; nothing else broadcasts. Each
// instruction computes exactly what its op computes as a node of its own (the same math, the same
// rounding, scalars broadcast the same way), so the fused node's values equal the unfused graph's
// bit for bit. Plain strings and ints keep the attrs TensorFlow-serializable: a GraphDef with
// fused nodes round-trips through export and import like any other.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/shape.h"

namespace duet {

// The ops a program may name (TensorFlow's op names in comments where they differ).
enum class ElementwiseOpcode : uint8_t {
  // Binary.
  kAddV2,
  kSub,
  kMul,
  kRealDiv,
  kDiv,  // on floats, the same as RealDiv
  kMaximum,
  kMinimum,
  kPow,
  kFloorMod,
  kReluGrad,  // (gradients, features) -> gradients where features > 0, else 0
  // Unary.
  kNeg,
  kAbs,
  kSquare,
  kSign,
  kRelu,
  kRelu6,
  kFloor,
  kCeil,
  kSqrt,
  kRsqrt,
  kExp,
  kLog,
  kLog1p,
  kTanh,
  kSigmoid,
  kElu,
  kSoftplus,
};
inline constexpr int kNumElementwiseOpcodes = static_cast<int>(ElementwiseOpcode::kSoftplus) + 1;

// The opcode of the op named `op_name`, or nullopt when programs cannot hold it.
std::optional<ElementwiseOpcode> ElementwiseOpcodeOf(absl::string_view op_name);
// The op's registry name ("AddV2").
absl::string_view ElementwiseOpName(ElementwiseOpcode op);
// How many operands the op takes: 1 or 2.
int ElementwiseArity(ElementwiseOpcode op);

// One instruction: the op and the value indices of its operands (operands[1] unused for unary).
struct ElementwiseInstruction {
  ElementwiseOpcode op;
  int32_t operands[2] = {0, 0};
};

// A decoded program (see the Note): value i < num_inputs is input i, num_inputs + k instruction k.
struct ElementwiseProgram {
  int num_inputs = 0;
  std::vector<ElementwiseInstruction> instructions;
  std::vector<int>
      results;  // instructions whose values are outputs 1, 2, ... (Note [Extra outputs])
  std::vector<int> concat;  // instructions joined into output 0 (Note [Concatenated output])
  // Per input, which of how many parts along the last axis it reads (Note [Input parts]); empty
  // when every input is read whole.
  struct Part {
    int index = 0;
    int count = 1;
  };
  std::vector<Part> input_parts;

  int num_values() const { return num_inputs + static_cast<int>(instructions.size()); }
};

// Decodes and checks the attrs of a node with `num_inputs` inputs. InvalidArgument, naming the
// instruction and the attr, for an empty program, an op programs cannot hold, a wrong number of
// operands, an operand index that is not an input or an earlier instruction, a result that is
// not an instruction before the last (any instruction with `concat`) or is named twice, a
// `concat` entry that is not an instruction, or `input_parts` of another length than 0 or two per
// input, or naming a part that does not exist.
absl::StatusOr<ElementwiseProgram> DecodeElementwiseProgram(
    absl::Span<const std::string> ops, absl::Span<const int64_t> operands, int num_inputs,
    absl::Span<const int64_t> results = {}, absl::Span<const int64_t> concat = {},
    absl::Span<const int64_t> input_parts = {});

// The shape of the part of a tensor of shape `fed` that input `input` reads (Note [Input parts]):
// `fed` when read whole, else `fed` with its last dim divided by part.count (unknown dims stay
// unknown). InvalidArgument, naming the input and its shape, when the parts cannot be equal.
absl::StatusOr<Shape> InputPartShape(const Shape& fed, ElementwiseProgram::Part part, int input);

}  // namespace duet
