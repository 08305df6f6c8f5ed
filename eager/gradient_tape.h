// GradientTape: records op calls and computes gradients by reverse-mode differentiation.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "core/tensor.h"
#include "eager/variable.h"
#include "ops/gradient.h"

namespace duet {

// What gradients are taken with respect to: a tensor or a variable.
class GradientSource {
 public:
  GradientSource(const Tensor& tensor) : tensor_(tensor) {}                 // NOLINT: {x, w}
  GradientSource(const Variable& variable) : tensor_(variable.handle()) {}  // NOLINT
  const Tensor& tensor() const { return tensor_; }

 private:
  Tensor tensor_;  // a variable's kResource handle
};

class TapeState;
class GradientTape;

namespace tape_internal {
// The ops recorded so far, in order ("custom_gradient" for custom gradients): for tests.
std::vector<std::string> RecordedOpNames(const GradientTape& tape);
}  // namespace tape_internal

// Records, on this thread, every op call with an input the tape watches, from construction until
// gradient() (a non-persistent tape) or stop(). Watched are: tensors and variables passed to
// watch(), trainable variables read while recording (unless watch_accessed_variables is false),
// and every output of a recorded call. Several tapes
// may record at once; a tape also records the gradient computations of tapes created inside it,
// which gives higher-order gradients. Integer and bool tensors never carry gradients.
//
//   GradientTape tape;
//   Tensor loss = w * w * x;                           // w: a trainable Variable
//   std::vector<Tensor> g = tape.gradient(loss, {w});  // {2 * w * x}
class GradientTape {
 public:
  explicit GradientTape(bool persistent = false, bool watch_accessed_variables = true);
  ~GradientTape();
  GradientTape(const GradientTape&) = delete;
  GradientTape& operator=(const GradientTape&) = delete;

  void watch(const Tensor& tensor);
  void watch(const Variable& variable);
  // Stops recording for good; gradient() may still be called.
  void stop();

  // d(sum of targets)/d(source) for each source, each of the source's shape. With
  // output_gradients (one per target, each of its target's shape) the targets' upstream
  // gradients are those instead of ones. A source the targets do not depend on gets an undefined
  // Tensor. A non-persistent tape allows one call and then releases everything it recorded.
  std::vector<Tensor> gradient(const Tensor& target, const std::vector<GradientSource>& sources,
                               const std::vector<Tensor>& output_gradients = {});
  std::vector<Tensor> gradient(const std::vector<Tensor>& targets,
                               const std::vector<GradientSource>& sources,
                               const std::vector<Tensor>& output_gradients = {});
  // Sources from a container of Variables (e.g. a model's trainable_variables()).
  template <typename Variables>
  requires std::same_as<typename Variables::value_type, Variable> std::vector<Tensor> gradient(
      const Tensor& target, const Variables& variables) {
    return gradient(target, std::vector<GradientSource>(variables.begin(), variables.end()));
  }

  bool persistent() const;

 private:
  friend std::vector<std::string> tape_internal::RecordedOpNames(const GradientTape& tape);
  std::unique_ptr<TapeState> state_;
};

// Pauses every tape of this thread for the scope's lifetime (custom_gradient runs the forward
// computation under one).
class StopRecording {
 public:
  StopRecording();
  ~StopRecording();
  StopRecording(const StopRecording&) = delete;
  StopRecording& operator=(const StopRecording&) = delete;

 private:
  std::vector<TapeState*> paused_;
};

namespace tape_internal {
// Tapes recording on this thread: the whole cost of a tape-free op call is reading this.
inline thread_local int recording_tapes = 0;

// Offers an executed call to every recording tape of this thread (the execution context calls
// this when recording_tapes > 0).
void RecordOperation(const OpCall& call, const OutputList& outputs);

}  // namespace tape_internal

}  // namespace duet
