#include "kernels/cpu/math/elementwise_program_runner.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "absl/container/inlined_vector.h"
#include "kernels/cpu/math/elementwise.h"
#include "kernels/cpu/math/functors.h"
#include "kernels/cpu/math/simd.h"

namespace duet {
namespace {

// ---- The ops over AVX2 vectors ------------------------------------------------------------------
// Each computes exactly what the op's scalar functor (functors.h) computes, lane by lane: the same
// IEEE operation, or the same comparisons and selections (NaN and -0 included).

struct AddOp {
  template <typename V>
  static V Vec(V x, V y) {
    return x + y;
  }
};
struct SubOp {
  template <typename V>
  static V Vec(V x, V y) {
    return x - y;
  }
};
struct MulOp {
  template <typename V>
  static V Vec(V x, V y) {
    return x * y;
  }
};
struct DivOp {
  template <typename V>
  static V Vec(V x, V y) {
    return x / y;
  }
};
// MaximumFn: (x > y || x != x) ? x : y.
struct MaximumOp {
  template <typename V>
  static V Vec(V x, V y) {
    return simd::Select(simd::Or(simd::Greater(x, y), simd::IsNan(x)), x, y);
  }
};
// MinimumFn: (x < y || x != x) ? x : y.
struct MinimumOp {
  template <typename V>
  static V Vec(V x, V y) {
    return simd::Select(simd::Or(simd::Greater(y, x), simd::IsNan(x)), x, y);
  }
};
// ReluGradFn: f > 0 ? g : 0.
struct ReluGradOp {
  template <typename V>
  static V Vec(V g, V f) {
    const V zero = simd::Set1<V>(0.0);
    return simd::Select(simd::Greater(f, zero), g, zero);
  }
};
struct NegOp {
  template <typename V>
  static V Vec(V x) {
    return -x;
  }
};
struct AbsOp {
  template <typename V>
  static V Vec(V x) {
    return simd::Abs(x);
  }
};
struct SquareOp {
  template <typename V>
  static V Vec(V x) {
    return x * x;
  }
};
// SignFn: x > 0 ? 1 : (x < 0 ? -1 : x).
struct SignOp {
  template <typename V>
  static V Vec(V x) {
    const V zero = simd::Set1<V>(0.0);
    const V negative = simd::Select(simd::Greater(zero, x), simd::Set1<V>(-1.0), x);
    return simd::Select(simd::Greater(x, zero), simd::Set1<V>(1.0), negative);
  }
};
// ReluFn: x < 0 ? 0 : x.
struct ReluOp {
  template <typename V>
  static V Vec(V x) {
    const V zero = simd::Set1<V>(0.0);
    return simd::Select(simd::Greater(zero, x), zero, x);
  }
};
// Relu6Fn: x < 0 ? 0 : (x > 6 ? 6 : x).
struct Relu6Op {
  template <typename V>
  static V Vec(V x) {
    const V zero = simd::Set1<V>(0.0), six = simd::Set1<V>(6.0);
    return simd::Select(simd::Greater(zero, x), zero, simd::Select(simd::Greater(x, six), six, x));
  }
};

// ---- Steps: one instruction over n elements
// ------------------------------------------------------

// A scalar operand's value in every lane, or a vector operand's elements at i: all of a vector, or
// the first n of them (the tail of a range) with zeros in the other lanes.
template <typename T, bool kScalar>
simd::VecT<T> Operand(const T* p, int64_t i) {
  if constexpr (kScalar) {
    return simd::Set1<simd::VecT<T>>(static_cast<double>(p[0]));
  } else {
    return simd::Load(p + i);
  }
}
template <typename T, bool kScalar>
simd::VecT<T> TailOperand(const T* p, int64_t i, int64_t n) {
  if constexpr (kScalar) {
    return simd::Set1<simd::VecT<T>>(static_cast<double>(p[0]));
  } else {
    return simd::LoadPartial(p + i, n);
  }
}

// z = Op(a, b), a or b repeating its one value when kAScalar / kBScalar. The tail computes whole
// vectors from zero-padded lanes, as simd::Map does, so lanes never depend on where a range ends.
template <typename T, typename Op, bool kAScalar, bool kBScalar>
void BinaryStep(const T* a, const T* b, T* z, int64_t n) {
  constexpr int64_t kLanes = simd::Vec<T>::kLanes;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    simd::Store(z + i, Op::Vec(Operand<T, kAScalar>(a, i), Operand<T, kBScalar>(b, i)));
  }
  if (i < n) {
    simd::StorePartial(
        z + i,
        Op::Vec(TailOperand<T, kAScalar>(a, i, n - i), TailOperand<T, kBScalar>(b, i, n - i)),
        n - i);
  }
}

// z = Fn(a, b) element by element, for ops without vector code (Pow, FloorMod): the functor the
// unfused kernel loops over.
template <typename T, typename Fn, bool kAScalar, bool kBScalar>
void ScalarBinaryStep(const T* a, const T* b, T* z, int64_t n) {
  const Fn fn;
  for (int64_t i = 0; i < n; ++i) z[i] = fn(kAScalar ? a[0] : a[i], kBScalar ? b[0] : b[i]);
}

template <typename T, typename Op>
void UnaryStep(const T* a, const T*, T* z, int64_t n) {
  constexpr int64_t kLanes = simd::Vec<T>::kLanes;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) simd::Store(z + i, Op::Vec(simd::Load(a + i)));
  if (i < n) simd::StorePartial(z + i, Op::Vec(simd::LoadPartial(a + i, n - i)), n - i);
}

template <typename T>
struct StepInfo {
  typename ElementwiseProgramRunner<T>::StepFn fn;
  int cost;
};

// The step of a binary op; both operands scalar only when evaluating a scalar once (n = 1).
template <typename T, typename Op, int kCost = 1>
StepInfo<T> Binary(bool a_scalar, bool b_scalar) {
  if (a_scalar && !b_scalar) return {&BinaryStep<T, Op, true, false>, kCost};
  if (b_scalar && !a_scalar) return {&BinaryStep<T, Op, false, true>, kCost};
  return {&BinaryStep<T, Op, false, false>, kCost};
}

template <typename T, typename Fn>
StepInfo<T> ScalarBinary(bool a_scalar, bool b_scalar) {
  if (a_scalar && !b_scalar) return {&ScalarBinaryStep<T, Fn, true, false>, CostOf<Fn>()};
  if (b_scalar && !a_scalar) return {&ScalarBinaryStep<T, Fn, false, true>, CostOf<Fn>()};
  return {&ScalarBinaryStep<T, Fn, false, false>, CostOf<Fn>()};
}

template <typename T, typename Op, int kCost = CostOf<Op>()>
StepInfo<T> Unary() {
  return {&UnaryStep<T, Op>, kCost};
}

template <typename T>
StepInfo<T> StepFor(ElementwiseOpcode op, bool a_scalar, bool b_scalar) {
  using Op = ElementwiseOpcode;
  switch (op) {
    case Op::kAddV2:
      return Binary<T, AddOp>(a_scalar, b_scalar);
    case Op::kSub:
      return Binary<T, SubOp>(a_scalar, b_scalar);
    case Op::kMul:
      return Binary<T, MulOp>(a_scalar, b_scalar);
    case Op::kRealDiv:
    case Op::kDiv:
      return Binary<T, DivOp, CostOf<DivFn>()>(a_scalar, b_scalar);
    case Op::kMaximum:
      return Binary<T, MaximumOp>(a_scalar, b_scalar);
    case Op::kMinimum:
      return Binary<T, MinimumOp>(a_scalar, b_scalar);
    case Op::kPow:
      return ScalarBinary<T, PowFn>(a_scalar, b_scalar);
    case Op::kFloorMod:
      return ScalarBinary<T, FloorModFn>(a_scalar, b_scalar);
    case Op::kReluGrad:
      return Binary<T, ReluGradOp>(a_scalar, b_scalar);
    case Op::kNeg:
      return Unary<T, NegOp>();
    case Op::kAbs:
      return Unary<T, AbsOp>();
    case Op::kSquare:
      return Unary<T, SquareOp>();
    case Op::kSign:
      return Unary<T, SignOp>();
    case Op::kRelu:
      return Unary<T, ReluOp>();
    case Op::kRelu6:
      return Unary<T, Relu6Op>();
    case Op::kFloor:
      return Unary<T, FloorFn>();
    case Op::kCeil:
      return Unary<T, CeilFn>();
    case Op::kSqrt:
      return Unary<T, SqrtFn>();
    case Op::kRsqrt:
      return Unary<T, RsqrtFn>();
    case Op::kExp:
      return Unary<T, ExpFn>();
    case Op::kLog:
      return Unary<T, LogFn>();
    case Op::kLog1p:
      return Unary<T, Log1pFn>();
    case Op::kTanh:
      return Unary<T, TanhFn>();
    case Op::kSigmoid:
      return Unary<T, SigmoidFn>();
    case Op::kElu:
      return Unary<T, EluFn>();
    case Op::kSoftplus:
      return Unary<T, SoftplusFn>();
  }
  return {nullptr, 0};  // unreachable: the switch covers every opcode
}

// Scratch tiles of the calling thread, grown on demand and kept (pool workers reuse theirs).
template <typename T>
T* ThreadScratch(int64_t elements) {
  struct Buffer {
    std::unique_ptr<T[], decltype(&std::free)> data{nullptr, &std::free};
    int64_t size = 0;
  };
  thread_local Buffer buffer;
  if (buffer.size < elements) {
    // 64-byte aligned, so tiles (multiples of a cache line) never split a vector across lines.
    const size_t bytes = (static_cast<size_t>(elements) * sizeof(T) + 63) / 64 * 64;
    buffer.data.reset(static_cast<T*>(std::aligned_alloc(64, bytes)));
    buffer.size = elements;
  }
  return buffer.data.get();
}

// Calls fn(offset, wide, count) for each run of the program's elements [start, start + n) that
// lies in one row of `row` elements: `offset` is the run's first element counted from start,
// `wide` the same element's index in a tensor whose rows hold `parts` such rows side by side, the
// program's as part `part` (Notes [Input parts], [Concatenated output]).
template <typename Fn>
void ForEachRowRun(int64_t start, int64_t n, int64_t row, int64_t parts, int64_t part, Fn&& fn) {
  for (int64_t i = start; i < start + n;) {
    const int64_t column = i % row;
    const int64_t count = std::min(row - column, start + n - i);
    fn(i - start, ((i / row) * parts + part) * row + column, count);
    i += count;
  }
}

}  // namespace

template <typename T>
ElementwiseProgramRunner<T>::ElementwiseProgramRunner(const ElementwiseProgram& program,
                                                      absl::Span<const bool> single, int64_t tile)
    : tile_(std::max<int64_t>(tile, simd::Vec<T>::kLanes)) {
  const int num_inputs = program.num_inputs;
  const int num_instructions = static_cast<int>(program.instructions.size());
  // Where each value lives: scalar slots, input tensors, scratch tiles.
  absl::InlinedVector<Operand, 64> where(program.num_values());
  absl::InlinedVector<int32_t, 64> last_read(program.num_values(), -1);
  for (int k = 0; k < num_instructions; ++k) {
    const ElementwiseInstruction& in = program.instructions[k];
    last_read[in.operands[0]] = k;
    if (ElementwiseArity(in.op) == 2) last_read[in.operands[1]] = k;
  }
  // Note [Concatenated output]: joined values keep their tiles until the tile's end, when they
  // are copied into output 0; no instruction writes it directly.
  const bool joins = !program.concat.empty();
  for (int c : program.concat) last_read[num_inputs + c] = num_instructions;
  for (int i = 0; i < num_inputs; ++i) {
    const int parts = program.input_parts.empty() ? 1 : program.input_parts[i].count;
    if (single[i]) {
      where[i] = {Operand::kScalar, num_scalars_++};
      scalar_inputs_.push_back(i);
    } else if (parts > 1) {  // Note [Input parts]: a tile of its own, never reused
      where[i] = {Operand::kScratch, num_scratch_};
      part_inputs_.push_back({i, parts, num_scratch_++});
      ++cost_;
    } else {
      where[i] = {Operand::kInput, i};
    }
  }
  absl::InlinedVector<int32_t, 8> extra_of(num_instructions, -1);  // Note [Extra outputs]
  for (size_t j = 0; j < program.results.size(); ++j) {
    extra_of[program.results[j]] = static_cast<int32_t>(j);
  }
  extra_slots_.assign(program.results.size(), -1);
  steps_.reserve(num_instructions);
  absl::InlinedVector<int32_t, 8> free_scratch;
  for (int k = 0; k < num_instructions; ++k) {
    const ElementwiseInstruction& in = program.instructions[k];
    const int value = num_inputs + k;
    const bool unary = ElementwiseArity(in.op) == 1;
    const Operand a = where[in.operands[0]];
    const Operand b = unary ? a : where[in.operands[1]];
    const bool a_scalar = a.kind == Operand::kScalar, b_scalar = b.kind == Operand::kScalar;
    const StepInfo<T> info = StepFor<T>(in.op, a_scalar, b_scalar);
    if (a_scalar && b_scalar) {  // once per call, by Bind
      where[value] = {Operand::kScalar, num_scalars_++};
      scalar_steps_.push_back({info.fn, a.index, b.index, where[value].index});
      if (extra_of[k] >= 0) extra_slots_[extra_of[k]] = where[value].index;
      continue;
    }
    cost_ += info.cost;
    int32_t scratch = -1;                  // the last instruction writes the output
    where[value] = {Operand::kInput, -1};  // (read by no instruction)
    if (extra_of[k] >= 0) {  // written straight to its extra output, and read back from there
      scratch = -2 - extra_of[k];
      where[value] = {Operand::kExtra, extra_of[k]};
    } else if (k + 1 < num_instructions || joins) {
      if (free_scratch.empty()) free_scratch.push_back(num_scratch_++);
      scratch = free_scratch.back();
      free_scratch.pop_back();
      where[value] = {Operand::kScratch, scratch};
    }
    steps_.push_back({info.fn, a, b, scratch});
    // Released after the result's tile is taken, so a step never writes a tile it reads.
    auto release = [&](int read) {
      if (where[read].kind == Operand::kScratch && last_read[read] == k) {
        free_scratch.push_back(where[read].index);
      }
    };
    release(in.operands[0]);
    if (!unary && in.operands[1] != in.operands[0]) release(in.operands[1]);
    if (scratch >= 0 && last_read[value] < 0) free_scratch.push_back(scratch);
  }
  for (int c : program.concat) joined_.push_back(where[num_inputs + c]);
  const Operand& result = where[program.num_values() - 1];
  if (!joins && result.kind == Operand::kScalar) {  // a program of scalars only: no tile steps
    result_slot_ = result.index;
    steps_.clear();
  }
}

template <typename T>
typename ElementwiseProgramRunner<T>::Binding ElementwiseProgramRunner<T>::Bind(
    absl::Span<const T* const> inputs, int64_t row) const {
  Binding binding;
  binding.row = row;
  binding.inputs.assign(inputs.begin(), inputs.end());
  binding.scalars.resize(num_scalars_);
  for (size_t s = 0; s < scalar_inputs_.size(); ++s) {
    binding.scalars[s] = inputs[scalar_inputs_[s]][0];
  }
  T* scalars = binding.scalars.data();
  for (const ScalarStep& step : scalar_steps_) {
    step.fn(scalars + step.a, scalars + step.b, scalars + step.z, 1);
  }
  return binding;
}

template <typename T>
const T* ElementwiseProgramRunner<T>::Resolve(const Operand& operand, const Binding& binding,
                                              absl::Span<T* const> extras, int64_t begin,
                                              T* scratch) const {
  switch (operand.kind) {
    case Operand::kInput:
      return binding.inputs[operand.index] + begin;
    case Operand::kScratch:
      return scratch + operand.index * tile_;
    case Operand::kScalar:
      return &binding.scalars[operand.index];
    case Operand::kExtra:
      return extras[operand.index] + begin;
  }
  return nullptr;
}

template <typename T>
void ElementwiseProgramRunner<T>::Gather(const Binding& binding, int64_t start, int64_t n,
                                         T* scratch) const {
  for (const PartInput& part : part_inputs_) {
    const T* from = binding.inputs[part.input];  // at the part's first element already
    T* to = scratch + part.scratch * tile_;
    ForEachRowRun(start, n, binding.row, part.count, 0,
                  [&](int64_t offset, int64_t wide, int64_t count) {
                    std::memcpy(to + offset, from + wide, static_cast<size_t>(count) * sizeof(T));
                  });
  }
}

template <typename T>
void ElementwiseProgramRunner<T>::Scatter(const Binding& binding, T* out,
                                          absl::Span<T* const> extras, int64_t start, int64_t n,
                                          T* scratch) const {
  const int64_t parts = static_cast<int64_t>(joined_.size());
  for (int64_t j = 0; j < parts; ++j) {
    const bool scalar = joined_[j].kind == Operand::kScalar;
    const T* from = Resolve(joined_[j], binding, extras, start, scratch);
    ForEachRowRun(
        start, n, binding.row, parts, j, [&](int64_t offset, int64_t wide, int64_t count) {
          if (scalar) {
            std::fill(out + wide, out + wide + count, *from);
          } else {
            std::memcpy(out + wide, from + offset, static_cast<size_t>(count) * sizeof(T));
          }
        });
  }
}

template <typename T>
void ElementwiseProgramRunner<T>::Run(const Binding& binding, T* out, absl::Span<T* const> extras,
                                      int64_t begin, int64_t end) const {
  for (size_t j = 0; j < extra_slots_.size(); ++j) {  // extra outputs of scalars only
    if (extra_slots_[j] >= 0) {
      std::fill(extras[j] + begin, extras[j] + end, binding.scalars[extra_slots_[j]]);
    }
  }
  if (result_slot_ >= 0) {
    std::fill(out + begin, out + end, binding.scalars[result_slot_]);
    return;
  }
  T* scratch = ThreadScratch<T>(std::max(num_scratch_, 1) * tile_);
  for (int64_t start = begin; start < end; start += tile_) {
    const int64_t n = std::min(tile_, end - start);
    if (!part_inputs_.empty()) Gather(binding, start, n, scratch);
    for (const Step& step : steps_) {
      T* z = step.scratch == -1  ? out + start
             : step.scratch < -1 ? extras[-2 - step.scratch] + start
                                 : scratch + step.scratch * tile_;
      step.fn(Resolve(step.a, binding, extras, start, scratch),
              Resolve(step.b, binding, extras, start, scratch), z, n);
    }
    if (!joined_.empty()) Scatter(binding, out, extras, start, n, scratch);
  }
}

template class ElementwiseProgramRunner<float>;
template class ElementwiseProgramRunner<double>;

}  // namespace duet
