// ElementwiseProgramRunner: evaluates a _FusedElementwise program (Note [Elementwise programs] in
// ops/math/elementwise_program.h) over bound inputs, in tiles.
//
// Note [Tiled program evaluation]
// The runner interprets the program one tile (a few KiB of elements) at a time: for each tile it
// runs every instruction as a vectorized loop over the tile, reading inputs straight from their
// tensors and writing intermediates to per-thread scratch tiles that stay in L1/L2, and the last
// instruction straight into the output. Memory is thus touched once (inputs read, output
// written), and the interpretation cost (one indirect call per instruction per tile) is spread over
// a tile's worth of elements. Scratch tiles are assigned by liveness, so a chain of any length
// needs two. Instructions whose operands are all scalars are evaluated once, when the runner is
// made. Each instruction uses the vector code of its op's own kernel (functors.h) or the same
// IEEE operations lane by lane, so results equal the unfused ops' bit for bit; a vector that runs
// past the end of a range is computed from zero-padded copies, like simd::Map, so an element's
// value never depends on where a tile or a thread's chunk ends. docs/benchmarks.md compares this
// with evaluating the whole program per vector, and tile sizes.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "ops/math/elementwise_program.h"

namespace duet {

template <typename T>
class ElementwiseProgramRunner {
 public:
  // Elements per tile: 1024 floats are 4 KiB, so an input tile, two scratch tiles and the output
  // tile sit in a 32 KiB L1 together (benchmarks: docs/benchmarks.md).
  static constexpr int64_t kDefaultTile = 1024;

  // Binds `program` (decoded, so its operands are valid) to `inputs`: input i is a single element
  // when single[i], else it has `num_elements` elements, as does the output.
  ElementwiseProgramRunner(const ElementwiseProgram& program, absl::Span<const T* const> inputs,
                           absl::Span<const bool> single, int64_t num_elements,
                           int64_t tile = kDefaultTile);

  // The cost of one element in simple arithmetic ops (elementwise.h's kCost), for threading.
  int cost() const { return cost_; }
  // Writes the program's values at elements [begin, end) to out[begin, end).
  void Run(T* out, int64_t begin, int64_t end) const;

  // How one instruction gets an operand in a tile.
  struct Operand {
    enum Kind : uint8_t { kInput, kScratch, kScalar };
    Kind kind = kScalar;
    int32_t index = 0;  // input, scratch tile, or value (for scalars)
  };
  // One instruction over n elements: z = op(a, b) (b unused for unary ops). A scalar operand
  // points at its single value.
  using StepFn = void (*)(const T* a, const T* b, T* z, int64_t n);
  struct Step {
    StepFn fn;
    Operand a, b;
    int32_t scratch;  // where the result goes: a scratch tile, or -1 for the output
  };

 private:
  const T* Resolve(const Operand& operand, int64_t begin, T* scratch) const;

  std::vector<const T*> inputs_;
  std::vector<T> scalars_;  // by value index; meaningful for scalar values only
  std::vector<Step> steps_;
  int num_scratch_ = 0;
  int64_t tile_;
  int cost_ = 1;
  bool scalar_result_ = false;  // the last instruction's operands are all scalars
  T result_ = T(0);             // its value then
};

extern template class ElementwiseProgramRunner<float>;
extern template class ElementwiseProgramRunner<double>;

}  // namespace duet
