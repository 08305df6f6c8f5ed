// RevNet (Gomez et al. 2017, "The Reversible Residual Network"), as in TensorFlow's eager guide
// article: reversible blocks whose backward pass rebuilds each block's inputs from its outputs,
// so training keeps no activations per block. examples/revnet/README.md has the commands and the
// measured memory and time.
//
//   revnet::RevNet model({.depth = 4, .channels = 32});
//   revnet::StepResult r = model.reversible_gradients(images, labels);   // or regular_gradients
//   optimizer.apply_gradients(r.grads, model.trainable_variables());
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "duet.h"

namespace duet::revnet {

// How a residual unit runs its batch norms.
enum class Phase {
  kInference,  // moving statistics
  kTraining,   // batch statistics, and the moving statistics updated (nn::BatchNorm, training)
  kRecompute,  // batch statistics, nothing updated: the backward pass's second run of a unit
};

// The two halves of a block's input (x1, x2) or output (y1, y2): the channels split in two.
struct Halves {
  Tensor h1, h2;
};

// BN-ReLU-conv3x3 twice (the article's basic residual unit, pre-activation), keeping the channel
// count and the height and width: the F and the G of a reversible block.
class ResidualUnit : public nn::Module {
 public:
  ResidualUnit(nn::Module* parent, std::string name, int64_t channels, double bn_momentum);
  Tensor operator()(const Tensor& x, Phase phase);

 private:
  Tensor Normalize(nn::BatchNorm& bn, const Tensor& x, Phase phase);

  nn::BatchNorm bn1_;
  nn::Conv2D conv1_;
  nn::BatchNorm bn2_;
  nn::Conv2D conv2_;
};

// What backward_grads hands to the block below: the block's inputs, rebuilt from its outputs,
// the loss's gradients with respect to them, and the gradients of the block's own trainable
// variables (in trainable_variables() order: F's, then G's).
struct BlockGradients {
  Halves x, dx;
  std::vector<Tensor> grads;
};

// y1 = x1 + F(x2), y2 = x2 + G(y1): invertible whatever F and G are, x2 = y2 - G(y1) and
// x1 = y1 - F(x2).
class RevBlock : public nn::Module {
 public:
  RevBlock(nn::Module* parent, std::string name, int64_t half_channels, double bn_momentum);

  Halves operator()(const Halves& x, Phase phase);
  // Given the outputs y and the loss's gradients dy with respect to them, rebuilds the inputs
  // and backpropagates through the block (Note [Reversible backward]).
  BlockGradients backward_grads(const Halves& y, const Halves& dy);

 private:
  ResidualUnit f_, g_;
};

struct Config {
  int depth = 4;          // reversible blocks
  int64_t channels = 32;  // after the stem; each half of a block has channels / 2
  int64_t classes = 10;
  // Keras' default is 0.99; 0.9 lets the moving statistics, which inference uses, settle within
  // the first hundred steps of a short run.
  double bn_momentum = 0.9;
};

// What a training step's gradient computation returns.
struct StepResult {
  Tensor loss;                // mean sparse cross-entropy of the batch
  Tensor logits;              // [batch, classes]
  std::vector<Tensor> grads;  // one per trainable_variables(), in that order
  // reversible_gradients only: the first block's input rebuilt by the backward pass (the stem's
  // output, split), for tests.
  Halves rebuilt_input;
};

// Called between the forward and the backward pass, when the memory held for the backward pass
// is at its largest (revnet_measure reads the allocator there). May be empty.
using AfterForward = std::function<void()>;

// A stem conv (3x3, stride 2: 28x28 -> 14x14) to `channels`, `depth` reversible blocks on the
// two halves of those channels, then BN-ReLU, global average pooling and a dense layer to the
// logits. Variables take the images' dtype (float32 or float64).
class RevNet : public nn::Module {
 public:
  explicit RevNet(Config config);
  ~RevNet() override;

  // The logits of NHWC `images`: training mode updates the batch norms' moving statistics.
  Tensor operator()(const Tensor& images, bool training = false);

  // The article's compute_gradients: a forward pass that keeps only the blocks' final output,
  // then a backward pass that rebuilds every block's input on the way down. The moving
  // statistics are updated once, as by a training forward pass.
  StepResult reversible_gradients(const Tensor& images, const Tensor& labels,
                                  const AfterForward& after_forward = {});
  // The reference: one GradientTape over the whole training forward pass (ordinary backprop,
  // which keeps every block's activations).
  StepResult regular_gradients(const Tensor& images, const Tensor& labels,
                               const AfterForward& after_forward = {});

  // The stem's output split into the first block's two halves.
  Halves stem(const Tensor& images);
  const Config& config() const { return config_; }

 private:
  class Head;
  Halves Blocks(Halves h, Phase phase);
  // The head on the blocks' output y under a tape: fills r's loss and logits, and returns the
  // gradients with respect to y (as dx) and the head's variables; x is y as the tape saw it.
  BlockGradients HeadGradients(const Halves& y, const Tensor& labels,
                               const AfterForward& after_forward, StepResult& r);
  // Every block's backward_grads, from the last down: the first block's input and its gradient,
  // and the blocks' variables' gradients in trainable_variables() order.
  BlockGradients BackwardThroughBlocks(Halves y, Halves dy);

  Config config_;
  nn::Conv2D stem_;
  std::vector<std::unique_ptr<RevBlock>> blocks_;
  std::unique_ptr<Head> head_;  // made after the blocks, so its variables come after theirs
};

}  // namespace duet::revnet
