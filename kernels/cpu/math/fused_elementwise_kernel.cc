// _FusedElementwise on the CPU: decodes and compiles the program (once per thread, Note [Compiled
// program cache]), binds it to the inputs and runs it tile by tile (Note [Tiled program
// evaluation]), split across the intra-op pool like the unfused ops.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "kernels/cpu/math/elementwise.h"
#include "kernels/cpu/math/elementwise_program_runner.h"
#include "kernels/kernel_registry.h"
#include "ops/math/elementwise_program.h"
#include "ops/math/math_attrs.h"

namespace duet {
namespace {

// The data an input's pointer reads from and whether it is a single element: the input's own,
// or of the part it reads (Note [Input parts]). The shape function checked the shapes as far as
// graph shapes were known; a graph with unknown dims may still bring a mismatch here.
template <typename T>
absl::Status ReadInput(const KernelContext& ctx, int i, const Shape& program_shape, const T** data,
                       bool* single) {
  const Tensor& in = ctx.input(i);
  const std::vector<int64_t>& parts = ctx.attr(FusedElementwiseAttrs::kInputParts);
  const ElementwiseProgram::Part part =
      parts.empty() ? ElementwiseProgram::Part{}
                    : ElementwiseProgram::Part{static_cast<int>(parts[2 * i]),
                                               static_cast<int>(parts[2 * i + 1])};
  DUET_ASSIGN_OR_RETURN(const Shape read, InputPartShape(in.shape(), part, i));
  if (ElementCount(read) != 1 && read != program_shape) {
    return absl::InvalidArgumentError(
        absl::StrCat("input ", i, part.count > 1 ? " (the part it reads)" : "", " has shape ",
                     read.str(), ", but every input must hold a single element or have the ",
                     "program's shape ", program_shape.str()));
  }
  *data = in.data<T>() + (part.count > 1 ? part.index * read.dims().back() : 0);
  *single = ElementCount(read) == 1;
  return absl::OkStatus();
}

// Note [Compiled program cache]
// Decoding a program and compiling it for its inputs costs tens of nanoseconds per instruction,
// as much as running it on a small tensor, and a session's node brings the same attrs on every
// run. So each thread keeps the runners of the last few programs it ran, found again by comparing
// the attrs (a few nanoseconds per instruction) and which inputs are single elements.
template <typename T>
class RunnerCache {
 public:
  absl::StatusOr<const ElementwiseProgramRunner<T>*> Get(const std::vector<std::string>& ops,
                                                         const std::vector<int64_t>& operands,
                                                         const std::vector<int64_t>& results,
                                                         const std::vector<int64_t>& concat,
                                                         const std::vector<int64_t>& parts,
                                                         absl::Span<const bool> single) {
    for (const Entry& entry : entries_) {
      if (entry.runner != nullptr && entry.operands == operands &&
          absl::MakeConstSpan(entry.single) == single && entry.results == results &&
          entry.concat == concat && entry.parts == parts && entry.ops == ops) {
        return entry.runner.get();
      }
    }
    DUET_ASSIGN_OR_RETURN(const ElementwiseProgram program,
                          DecodeElementwiseProgram(ops, operands, static_cast<int>(single.size()),
                                                   results, concat, parts));
    Entry& entry = entries_[next_];
    next_ = (next_ + 1) % kEntries;
    entry.ops = ops;
    entry.operands = operands;
    entry.results = results;
    entry.concat = concat;
    entry.parts = parts;
    entry.single.assign(single.begin(), single.end());
    entry.runner = std::make_unique<ElementwiseProgramRunner<T>>(program, single);
    return entry.runner.get();
  }

  // This thread's cache. A runner stays valid while its caller runs it: only this thread evicts.
  static RunnerCache& ForThread() {
    thread_local RunnerCache cache;
    return cache;
  }

 private:
  static constexpr int kEntries = 8;
  struct Entry {
    std::vector<std::string> ops;
    std::vector<int64_t> operands;
    std::vector<int64_t> results;
    std::vector<int64_t> concat;
    std::vector<int64_t> parts;
    absl::InlinedVector<bool, 8> single;
    std::unique_ptr<ElementwiseProgramRunner<T>> runner;
  };
  std::array<Entry, kEntries> entries_;
  int next_ = 0;
};

// The shape of the program's values: output 0's, but for the last dim when output 0 joins several
// values (Note [Concatenated output]).
Shape ProgramShape(const Shape& out, int64_t joined) {
  if (joined == 0) return out;
  std::vector<int64_t> dims(out.dims().begin(), out.dims().end());
  dims.back() /= joined;
  return Shape(dims);
}

template <typename T>
absl::Status FusedElementwiseKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  const std::vector<int64_t>& concat = ctx.attr(FusedElementwiseAttrs::kConcat);
  const Shape shape = ProgramShape(out.shape(), static_cast<int64_t>(concat.size()));
  absl::InlinedVector<const T*, 8> inputs(ctx.num_inputs());
  absl::InlinedVector<bool, 8> single(ctx.num_inputs());
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    bool one = false;
    DUET_RETURN_IF_ERROR(ReadInput(ctx, i, shape, &inputs[i], &one));
    single[i] = one;
  }
  DUET_ASSIGN_OR_RETURN(
      const ElementwiseProgramRunner<T>* runner,
      RunnerCache<T>::ForThread().Get(ctx.attr(FusedElementwiseAttrs::kOps),
                                      ctx.attr(FusedElementwiseAttrs::kOperands),
                                      ctx.attr(FusedElementwiseAttrs::kResults), concat,
                                      ctx.attr(FusedElementwiseAttrs::kInputParts), single));
  const typename ElementwiseProgramRunner<T>::Binding binding =
      runner->Bind(inputs, shape.rank() > 0 ? shape.dims().back() : 0);
  T* z = out.mutable_data<T>();
  absl::InlinedVector<T*, 8> extras;  // Note [Extra outputs]
  for (int j = 1; j < ctx.num_outputs(); ++j) extras.push_back(ctx.output(j).mutable_data<T>());
  ParallelElements(ctx, ElementCount(shape), runner->cost(), [&](int64_t begin, int64_t end) {
    runner->Run(binding, z, extras, begin, end);
  });
  return absl::OkStatus();
}

const KernelRegistrar kFusedElementwiseFloat("_FusedElementwise", DeviceType::kCpu, {kFloat32},
                                             {&FusedElementwiseKernel<float>});
const KernelRegistrar kFusedElementwiseDouble("_FusedElementwise", DeviceType::kCpu, {kFloat64},
                                              {&FusedElementwiseKernel<double>});

}  // namespace
}  // namespace duet
