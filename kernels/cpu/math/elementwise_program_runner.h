// ElementwiseProgramRunner: evaluates a _FusedElementwise program (Note [Elementwise programs] in
// ops/math/elementwise_program.h) over bound inputs, in tiles.
//
// Note [Tiled program evaluation]
// The runner interprets the program one tile (a few KiB of elements) at a time: for each tile it
// runs every instruction as a vectorized loop over the tile, reading inputs straight from their
// tensors and writing intermediates to per-thread scratch tiles that stay in L1, and the last
// instruction straight into the output. Memory is thus touched once (inputs read, output
// written), and the interpretation cost (one indirect call per instruction per tile) is spread over
// a tile's worth of elements. Scratch tiles are assigned by liveness, so a chain of any length
// needs two. Instructions whose operands are all scalars are evaluated once per call (Bind). Each
// instruction uses the vector code of its op's own kernel (functors.h) or the same IEEE operations
// lane by lane, so results equal the unfused ops' bit for bit; a vector that runs past the end of
// a range is computed from zero-padded lanes, like simd::Map, so an element's value never depends
// on where a tile or a thread's chunk ends. docs/benchmarks.md compares tile sizes, and the runner
// with a hand-written loop for one expression.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "ops/math/elementwise_program.h"

namespace duet {

template <typename T>
class ElementwiseProgramRunner {
 public:
  // Elements per tile: 4 KiB, so the input tiles, two scratch tiles and the output tile of a
  // typical program sit in a 32 KiB L1 together (tile sizes: docs/benchmarks.md).
  static constexpr int64_t kDefaultTile = 4096 / sizeof(T);

  // Compiles `program` (decoded, so its operands are valid) for inputs of which those with
  // single[i] hold one element, whose value broadcasts; the others all have the output's size.
  explicit ElementwiseProgramRunner(const ElementwiseProgram& program,
                                    absl::Span<const bool> single, int64_t tile = kDefaultTile);

  // What one call reads: the inputs' data (of an input read in parts, the first element of its
  // part) and the values of the scalars (inputs and instructions of scalars only), and the last
  // dim of the program's values when inputs are read in parts or output 0 joins values.
  struct Binding {
    absl::InlinedVector<const T*, 8> inputs;
    absl::InlinedVector<T, 16> scalars;
    int64_t row = 0;
  };
  // Binds the inputs (as many as the program has) and evaluates the instructions of scalars.
  // `row` is the last dim of the program's values, used when output 0 joins several of them or
  // inputs are read in parts (Notes [Concatenated output], [Input parts] in
  // ops/math/elementwise_program.h).
  Binding Bind(absl::Span<const T* const> inputs, int64_t row = 0) const;

  // The cost of one element in simple arithmetic ops (elementwise.h's kCost), for threading.
  int cost() const { return cost_; }
  // Writes the program's values at elements [begin, end) to out[begin, end), and those of its
  // extra outputs (Note [Extra outputs]) to extras[j][begin, end). Thread-safe. With a
  // concatenated output, element i of the j-th joined value goes to out at row i / row, column
  // j * row + i % row.
  void Run(const Binding& binding, T* out, int64_t begin, int64_t end) const {
    Run(binding, out, {}, begin, end);
  }
  void Run(const Binding& binding, T* out, absl::Span<T* const> extras, int64_t begin,
           int64_t end) const;

  // One instruction over n elements: z = op(a, b) (b unused for unary ops). A scalar operand
  // points at its single value.
  using StepFn = void (*)(const T* a, const T* b, T* z, int64_t n);

 private:
  // How an instruction gets an operand: from an input tensor, a scratch tile or a scalar slot.
  struct Operand {
    enum Kind : uint8_t { kInput, kScratch, kScalar, kExtra };  // kExtra: an extra output
    Kind kind = kScalar;
    int32_t index = 0;
  };
  struct Step {
    StepFn fn;
    Operand a, b;
    int32_t
        scratch;  // where the result goes: a scratch tile, -1 for the output, -2 - j for extra j
  };
  // An instruction of scalars: slot z = fn(slot a, slot b), evaluated by Bind.
  struct ScalarStep {
    StepFn fn;
    int32_t a, b, z;
  };

  const T* Resolve(const Operand& operand, const Binding& binding, absl::Span<T* const> extras,
                   int64_t begin, T* scratch) const;
  // Copies elements [start, start + n) of the inputs read in parts into their scratch tiles.
  void Gather(const Binding& binding, int64_t start, int64_t n, T* scratch) const;
  // Copies the joined values' elements [start, start + n) into their places in out.
  void Scatter(const Binding& binding, T* out, absl::Span<T* const> extras, int64_t start,
               int64_t n, T* scratch) const;

  std::vector<int32_t> scalar_inputs_;  // input of each scalar slot filled from an input
  std::vector<ScalarStep> scalar_steps_;
  int num_scalars_ = 0;
  std::vector<Step> steps_;           // empty when the result is a scalar
  int32_t result_slot_ = -1;          // the result's scalar slot then
  std::vector<int32_t> extra_slots_;  // per extra output, its scalar slot, or -1 (tile steps)
  std::vector<Operand> joined_;       // where each value joined into output 0 lives, if any
  // An input read in parts (Note [Input parts]): its elements are copied into a scratch tile of
  // their own before a tile's steps run. Its pointer is already at the part's first element.
  struct PartInput {
    int32_t input;
    int32_t count;    // the parts of a row of the tensor fed
    int32_t scratch;  // the tile it is copied into
  };
  std::vector<PartInput> part_inputs_;
  int num_scratch_ = 0;
  int64_t tile_;
  int cost_ = 1;
};

extern template class ElementwiseProgramRunner<float>;
extern template class ElementwiseProgramRunner<double>;

}  // namespace duet
