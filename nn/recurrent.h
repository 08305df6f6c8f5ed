// Recurrent layers: nn::SimpleRNN, nn::LSTM and nn::GRU over inputs of shape (batch, time,
// features), and nn::Bidirectional, with Keras' formulas, gate order, initializers and weights.
//
//   nn::LSTM lstm{this, "lstm", 128, {.return_sequences = true}};
//   Tensor y = lstm(x);                                   // (batch, time, 128)
//   nn::RNNOutput out = lstm.call_with_state(x, {h0, c0});  // out.output, out.states = {h, c}
//
// Note [Recurrent layers]: the input projection x @ kernel + bias of every step is one matmul
// over the whole sequence, as Keras' fused implementations do; each step then adds h @
// recurrent_kernel and applies the cell. Eagerly the steps are a C++ loop (unstack, step, stack:
// each op on the tape). In a graph (duet::function, GraphScope) the layer is one While over
// TensorLists, as TensorFlow's Keras builds it: the projected steps are read with
// TensorListGetItem and the outputs written with TensorListSetItem, so the trace does not grow
// with the sequence length, the length may be unknown (batch and time dims of -1), and the
// gradient (Note [While gradients], Note [TensorList gradients]) costs linear time and memory.
// The variables live on a child module "cell" (kernel, recurrent_kernel, bias), as Keras' LSTM
// holds them on its LSTMCell, so Keras checkpoints restore into these layers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nn/activation.h"
#include "nn/layer.h"

namespace duet::nn {

struct RNNOptions {
  bool return_sequences = false;  // the output of every step (batch, time, units), or the last
  bool go_backwards = false;      // process the sequence in reverse (outputs in that order)
  bool use_bias = true;
  Activation activation = Activation::kTanh;               // the candidate and output activation
  Activation recurrent_activation = Activation::kSigmoid;  // LSTM and GRU gates
  Initializer kernel_initializer;                          // empty: glorot_uniform
  Initializer recurrent_initializer;                       // empty: orthogonal
  Initializer bias_initializer;                            // empty: zeros
  bool unit_forget_bias = true;  // LSTM: the forget gate's bias starts at 1
  bool reset_after = true;       // GRU: the reset gate applies after the recurrent matmul
};

// What a call with state returns: the output (as return_sequences says) and the final states
// (SimpleRNN and GRU: {h}; LSTM: {h, c}; Bidirectional: the forward's then the backward's).
struct RNNOutput {
  Tensor output;
  std::vector<Tensor> states;
};

// The common part of the recurrent layers; subclasses give the cell.
class RNN : public Layer {
 public:
  int64_t units() const { return units_; }
  const RNNOptions& options() const { return options_; }

  // The output and final states for inputs x (batch, time, features), starting from
  // `initial_state` (one (batch, units) tensor per state) or zeros when it is empty: Keras'
  // return_state=True and initial_state=. operator() returns the output alone.
  RNNOutput call_with_state(const Tensor& x, const std::vector<Tensor>& initial_state = {},
                            bool training = false, OpSite site = {});

  // kernel (features, gates * units), recurrent_kernel (units, gates * units) and bias; defined
  // once built. The variables of the child module "cell".
  const Variable& kernel() const;
  const Variable& recurrent_kernel() const;
  const Variable& bias() const;

  // A new, unbuilt layer of the same kind and options with go_backwards flipped, called `name`
  // (nn::Bidirectional's backward layer).
  virtual std::shared_ptr<RNN> reversed(std::string name) const = 0;

 protected:
  RNN(Module* parent, std::string name, int64_t units, RNNOptions options, int gates,
      int num_states);

  InputSpec input_spec() const override { return {.rank = 3, .fixed_last_dim = true}; }
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training, OpSite site) override;

  // The bias' shape and initial value (GRU's reset_after bias is (2, 3 * units)).
  virtual Shape bias_shape() const;
  virtual Tensor initial_bias(const Shape& shape, DType dtype) const;
  // The bias added to the whole sequence's projection (the input bias).
  virtual Tensor input_bias(const Tensor& bias, OpSite site) const { return bias; }
  // One step: the projected input zx (batch, gates * units) and the states give the new states;
  // the step's output is the first. `recurrent` holds what prepare_recurrent returned.
  virtual std::vector<Tensor> step(const Tensor& zx, const std::vector<Tensor>& states,
                                   const std::vector<Tensor>& recurrent, OpSite site) const = 0;
  // The values the steps read besides their inputs and states (the recurrent kernel, pieces of
  // it, a recurrent bias), made once per call outside the loop.
  virtual std::vector<Tensor> prepare_recurrent(OpSite site) const;

  Tensor act(const Tensor& x, OpSite site) const { return activate(options_.activation, x, site); }
  Tensor gate(const Tensor& x, OpSite site) const {
    return activate(options_.recurrent_activation, x, site);
  }

 private:
  RNNOutput Run(const Tensor& x, std::vector<Tensor> states, OpSite site);
  RNNOutput RunEagerly(const Tensor& projected, std::vector<Tensor> states, OpSite site);
  RNNOutput RunAsWhile(const Tensor& projected, std::vector<Tensor> states, OpSite site);

  int64_t units_;
  RNNOptions options_;
  int gates_, num_states_;
  std::unique_ptr<Module> cell_;
  Variable kernel_, recurrent_kernel_, bias_;
};

// Keras' SimpleRNN: h = activation(x @ kernel + h @ recurrent_kernel + bias).
class SimpleRNN : public RNN {
 public:
  SimpleRNN(Module* parent, std::string name, int64_t units, RNNOptions options = {});
  explicit SimpleRNN(int64_t units, RNNOptions options = {});
  std::shared_ptr<RNN> reversed(std::string name) const override;

 protected:
  std::vector<Tensor> step(const Tensor& zx, const std::vector<Tensor>& states,
                           const std::vector<Tensor>& recurrent, OpSite site) const override;
};

// Keras' LSTM: gates i, f, c, o in that order along the kernels' last axis;
// c = f * c + i * activation(z_c), h = o * activation(c), gates through recurrent_activation.
class LSTM : public RNN {
 public:
  LSTM(Module* parent, std::string name, int64_t units, RNNOptions options = {});
  explicit LSTM(int64_t units, RNNOptions options = {});
  std::shared_ptr<RNN> reversed(std::string name) const override;

 protected:
  Tensor initial_bias(const Shape& shape, DType dtype) const override;
  std::vector<Tensor> step(const Tensor& zx, const std::vector<Tensor>& states,
                           const std::vector<Tensor>& recurrent, OpSite site) const override;
};

// Keras' GRU: gates z (update), r (reset), h (candidate) in that order;
// h = z * h_prev + (1 - z) * activation(x_h + r * (h_prev @ U_h + b_h)) with reset_after (Keras'
// default, bias (2, 3 * units): input and recurrent biases), else activation(x_h + (r * h_prev) @
// U_h) with one bias (3 * units).
class GRU : public RNN {
 public:
  GRU(Module* parent, std::string name, int64_t units, RNNOptions options = {});
  explicit GRU(int64_t units, RNNOptions options = {});
  std::shared_ptr<RNN> reversed(std::string name) const override;

 protected:
  Shape bias_shape() const override;
  Tensor input_bias(const Tensor& bias, OpSite site) const override;
  std::vector<Tensor> prepare_recurrent(OpSite site) const override;
  std::vector<Tensor> step(const Tensor& zx, const std::vector<Tensor>& states,
                           const std::vector<Tensor>& recurrent, OpSite site) const override;
};

// How nn::Bidirectional combines the two directions' outputs (Keras' merge_mode).
enum class MergeMode { kConcat, kSum, kMul, kAve };

// Keras' Bidirectional: the layer, and a copy of it reading the sequence backwards
// (RNN::reversed), children "forward_layer" and "backward_layer" as Keras names them. With
// return_sequences the backward outputs are reversed again so that step t of both is input t.
class Bidirectional : public Layer {
 public:
  Bidirectional(Module* parent, std::string name, std::shared_ptr<RNN> layer,
                MergeMode merge_mode = MergeMode::kConcat);
  explicit Bidirectional(std::shared_ptr<RNN> layer, MergeMode merge_mode = MergeMode::kConcat);

  RNNOutput call_with_state(const Tensor& x, const std::vector<Tensor>& initial_state = {},
                            bool training = false, OpSite site = {});
  RNN& forward_layer() const { return *forward_; }
  RNN& backward_layer() const { return *backward_; }

 protected:
  InputSpec input_spec() const override { return {.rank = 3, .fixed_last_dim = true}; }
  Tensor call(const Tensor& x, bool training, OpSite site) override;

 private:
  RNNOutput Run(const Tensor& x, const std::vector<Tensor>& initial_state, bool training,
                OpSite site);

  std::shared_ptr<RNN> forward_, backward_;
  MergeMode merge_mode_;
};

}  // namespace duet::nn
