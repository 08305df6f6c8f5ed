#include "examples/revnet/revnet.h"

#include <string>
#include <utility>

namespace duet::revnet {
namespace {

nn::ConvOptions SameConv(int64_t strides = 1) {
  // No bias: every conv here is followed by a batch norm (whose beta is the bias) or added to a
  // residual stream that one normalizes next.
  return {.strides = strides, .padding = "same", .use_bias = false};
}

[[noreturn]] void Fail(const std::string& what) {
  throw Error(absl::InvalidArgumentError("revnet: " + what));
}

std::vector<GradientSource> Sources(std::vector<GradientSource> first,
                                    const std::vector<Variable>& variables) {
  first.insert(first.end(), variables.begin(), variables.end());
  return first;
}

void Append(std::vector<Tensor>& to, std::vector<Tensor>::const_iterator begin,
            std::vector<Tensor>::const_iterator end) {
  to.insert(to.end(), begin, end);
}

std::vector<Tensor> With(std::vector<Tensor> v, const Tensor& t) {
  v.push_back(t);
  return v;
}

Tensor Loss(const Tensor& labels, const Tensor& logits) {
  return losses::sparse_categorical_crossentropy(labels, logits, /*from_logits=*/true);
}

// A unit's output on `x`, recomputed under its own tape, with the gradients of
// <unit(x), upstream> with respect to x and then the unit's trainable variables.
struct UnitPass {
  Tensor out;
  std::vector<Tensor> grads;
};

// x was made before the tape (rebuilt from a block's outputs), so it is a leaf: the tape does not
// follow its history back through the forward pass, traced or eager (Note [Tapes in graphs]).
UnitPass Differentiate(ResidualUnit& unit, const Tensor& x, const Tensor& upstream) {
  GradientTape tape;
  tape.watch(x);
  const Tensor out = unit(x, Phase::kRecompute);
  return {out, tape.gradient(out, Sources({x}, unit.trainable_variables()), {upstream})};
}

// a - b, run after `after` (Note [Reversible backward in graphs]).
Tensor SubtractAfter(const Tensor& a, const Tensor& b, const std::vector<Tensor>& after) {
  std::vector<Tensor> wait;
  for (const Tensor& t : after) {
    if (t.defined()) wait.push_back(t);
  }
  ControlDependencies in_order(wait);
  return a - b;
}

}  // namespace

ResidualUnit::ResidualUnit(nn::Module* parent, std::string name, int64_t channels,
                           double bn_momentum)
    : nn::Module(parent, std::move(name)),
      bn1_(this, "bn1", bn_momentum),
      conv1_(this, "conv1", channels, 3, SameConv()),
      bn2_(this, "bn2", bn_momentum),
      conv2_(this, "conv2", channels, 3, SameConv()) {}

Tensor ResidualUnit::operator()(const Tensor& x, Phase phase) {
  const Tensor h = conv1_(relu(Normalize(bn1_, x, phase)));
  return conv2_(relu(Normalize(bn2_, h, phase)));
}

// Note [Batch norm in reversible blocks]: the backward pass runs F and G a second time, and the
// rebuilt inputs are right only if that run computes what the forward pass did, so it must
// normalize with the batch's statistics as training does. Running nn::BatchNorm in training mode
// again would also update the moving statistics a second time per step (the article's code does
// this: its compute_gradients "silently updates the running averages"), which decays them
// faster than the momentum says and makes reversible and ordinary training differ. So the
// forward pass updates them, once, through the layer, and the recompute runs the layer's op
// (FusedBatchNormV3, is_training) on the layer's variables without the assignments: the same op
// on the same input gives the same output. The opposite split (update only in the recompute)
// would leave a forward pass without a backward one, such as evaluating the training loss,
// updating nothing.
Tensor ResidualUnit::Normalize(nn::BatchNorm& bn, const Tensor& x, Phase phase) {
  if (phase != Phase::kRecompute) return bn(x, phase == Phase::kTraining);
  if (!bn.built()) Fail("layer '" + bn.path() + "' recomputed before any forward pass");
  const float epsilon = static_cast<float>(nn::NormOptions{}.epsilon);  // the layer's default
  return fused_batch_norm(x, bn.gamma().value(), bn.beta().value(), bn.moving_mean().value(),
                          bn.moving_variance().value(), epsilon, /*is_training=*/true)
      .y;
}

RevBlock::RevBlock(nn::Module* parent, std::string name, int64_t half_channels, double bn_momentum)
    : nn::Module(parent, std::move(name)),
      f_(this, "f", half_channels, bn_momentum),
      g_(this, "g", half_channels, bn_momentum) {}

Halves RevBlock::operator()(const Halves& x, Phase phase) {
  const Tensor y1 = x.h1 + f_(x.h2, phase);
  return {y1, x.h2 + g_(y1, phase)};
}

// Note [Reversible backward]: Algorithm 1 of the paper runs G and F once to rebuild the inputs
// and again under tapes to differentiate them. As the article does, each runs once here, under
// its tape, and the inputs are rebuilt from those same outputs: x2 = y2 - G(y1) with the G(y1)
// whose tape gives y1's and G's gradients, then x1 = y1 - F(x2) likewise. A tape holds one
// unit's activations, only until its gradient() call, so the memory for the backward pass is one
// block's worth whatever the depth; the price is one more forward run of F and G per block. The
// gradients: x1 reaches the loss only through y1, so dx1 = dy1 + (dG/dy1)^T dy2, and
// dx2 = dy2 + (dF/dx2)^T dx1.
//
// Note [Reversible backward in graphs]: rebuilding the inputs needs only the recomputed F and G,
// not the gradients, so in a traced step the rebuilding of every block could run ahead of the
// gradient computations, and a plan that does so (duet's orders ready nodes first in, first out)
// keeps every block's recomputed activations until the gradients reach them: memory grows with
// depth again. As the article does with tf.control_dependencies, each subtraction waits for the
// gradients of the unit it undoes. Eagerly ops run in program order and this changes nothing.
BlockGradients RevBlock::backward_grads(const Halves& y, const Halves& dy) {
  const UnitPass g = Differentiate(g_, y.h1, dy.h2);
  const Tensor dx1 = dy.h1 + g.grads[0];
  const Tensor x2 = SubtractAfter(y.h2, g.out, With(g.grads, dx1));
  const UnitPass f = Differentiate(f_, x2, dx1);
  const Tensor dx2 = dy.h2 + f.grads[0];
  const Tensor x1 = SubtractAfter(y.h1, f.out, With(f.grads, dx2));
  BlockGradients out{.x = {x1, x2}, .dx = {dx1, dx2}, .grads = {}};
  Append(out.grads, f.grads.begin() + 1, f.grads.end());  // trainable_variables(): F's, then G's
  Append(out.grads, g.grads.begin() + 1, g.grads.end());
  return out;
}

// BN-ReLU, global average pooling, dense: the article's final block, on both halves joined.
class RevNet::Head : public nn::Module {
 public:
  Head(nn::Module* parent, int64_t classes, double bn_momentum)
      : nn::Module(parent, "head"), bn_(this, "bn", bn_momentum), dense_(this, "dense", classes) {}
  Tensor operator()(const Halves& h, bool training) {
    return dense_(pool_(relu(bn_(concat({h.h1, h.h2}, 3), training))));
  }

 private:
  nn::BatchNorm bn_;
  nn::GlobalAveragePooling2D pool_{this, "pool"};
  nn::Dense dense_;
};

RevNet::RevNet(Config config)
    : config_(config), stem_(this, "stem", config.channels, 3, SameConv(/*strides=*/2)) {
  if (config.depth < 1 || config.channels < 2 || config.channels % 2 != 0) {
    Fail("needs depth >= 1 and an even channel count, got depth " + std::to_string(config.depth) +
         ", channels " + std::to_string(config.channels));
  }
  for (int i = 0; i < config.depth; ++i) {
    blocks_.push_back(std::make_unique<RevBlock>(this, "block" + std::to_string(i),
                                                 config.channels / 2, config.bn_momentum));
  }
  head_ = std::make_unique<Head>(this, config.classes, config.bn_momentum);
}

RevNet::~RevNet() = default;

Halves RevNet::stem(const Tensor& images) {
  const std::vector<Tensor> halves = split(stem_(images), 2, /*axis=*/3);
  return {halves[0], halves[1]};
}

Halves RevNet::Blocks(Halves h, Phase phase) {
  for (const auto& block : blocks_) h = (*block)(h, phase);
  return h;
}

Tensor RevNet::operator()(const Tensor& images, bool training) {
  return (*head_)(Blocks(stem(images), training ? Phase::kTraining : Phase::kInference), training);
}

StepResult RevNet::regular_gradients(const Tensor& images, const Tensor& labels,
                                     const AfterForward& after_forward) {
  GradientTape tape;
  StepResult r;
  r.logits = (*this)(images, /*training=*/true);
  r.loss = Loss(labels, r.logits);
  if (after_forward) after_forward();
  r.grads = tape.gradient(r.loss, trainable_variables());
  return r;
}

StepResult RevNet::reversible_gradients(const Tensor& images, const Tensor& labels,
                                        const AfterForward& after_forward) {
  GradientTape stem_tape;  // keeps the images: the stem's gradient needs its input
  const Halves stem_out = stem(images);
  stem_tape.stop();
  Halves y;
  {
    StopRecording no_tapes;  // Note [Reversible backward]: the blocks keep nothing
    y = Blocks(stem_out, Phase::kTraining);
  }
  StepResult r;
  const BlockGradients head = HeadGradients(y, labels, after_forward, r);
  const BlockGradients blocks = BackwardThroughBlocks(head.x, head.dx);
  r.rebuilt_input = blocks.x;
  // In trainable_variables() order: the stem, the blocks, the head.
  r.grads = stem_tape.gradient({stem_out.h1, stem_out.h2}, Sources({}, stem_.trainable_variables()),
                               {blocks.dx.h1, blocks.dx.h2});
  Append(r.grads, blocks.grads.begin(), blocks.grads.end());
  Append(r.grads, head.grads.begin(), head.grads.end());
  return r;
}

BlockGradients RevNet::HeadGradients(const Halves& y, const Tensor& labels,
                                     const AfterForward& after_forward, StepResult& r) {
  // y comes from the forward pass, before the tape: the head's tape starts from it as leaves.
  GradientTape tape;
  tape.watch(y.h1);
  tape.watch(y.h2);
  r.logits = (*head_)(y, /*training=*/true);
  r.loss = Loss(labels, r.logits);
  if (after_forward) after_forward();
  std::vector<Tensor> grads =
      tape.gradient(r.loss, Sources({y.h1, y.h2}, head_->trainable_variables()));
  const Halves dy{grads[0], grads[1]};
  grads.erase(grads.begin(), grads.begin() + 2);
  return {.x = y, .dx = dy, .grads = std::move(grads)};
}

BlockGradients RevNet::BackwardThroughBlocks(Halves y, Halves dy) {
  std::vector<std::vector<Tensor>> grads(blocks_.size());
  for (size_t i = blocks_.size(); i-- > 0;) {
    BlockGradients b = blocks_[i]->backward_grads(y, dy);
    y = b.x;
    dy = b.dx;
    grads[i] = std::move(b.grads);
  }
  BlockGradients out{.x = y, .dx = dy, .grads = {}};
  for (const std::vector<Tensor>& g : grads) Append(out.grads, g.begin(), g.end());
  return out;
}

}  // namespace duet::revnet
