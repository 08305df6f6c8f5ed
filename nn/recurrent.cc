#include "nn/recurrent.h"

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "graph/control_flow.h"
#include "graph/graph_context.h"
#include "nn/initializers.h"
#include "ops/array/array_ops.h"
#include "ops/execution_context.h"
#include "ops/list/list_ops.h"
#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "ops/nn/nn_ops.h"

namespace duet::nn {
namespace {

// The child that holds a recurrent layer's variables, as Keras' LSTMCell (Note [Recurrent
// layers]).
class RecurrentCell : public Module {
 public:
  using Module::add_variable;
  using Module::Module;
};

// Zeros (batch, units) for inputs x (batch, time, features), the batch dim read at run time
// when the trace does not know it.
Tensor ZeroState(const Tensor& x, int64_t units, DType dtype, OpSite site) {
  const int64_t batch = x.shape().dim(0);
  if (batch >= 0) return zeros(Shape{batch, units}, dtype);
  const Tensor dims =
      concat({slice(shape_of(x, kInt32, site), {0}, {1}, site),
              constant(std::vector<int32_t>{static_cast<int32_t>(units)}, Shape({1}))},
             0, site);
  return fill(dims, zeros(Shape(), dtype), site);
}

// The shape (time, batch, width) for time-major inputs (time, batch, features): static when the
// trace knows time and batch, else read at run time.
Tensor StepsShape(const Tensor& time_major, int64_t width, OpSite site) {
  const Shape& shape = time_major.shape();
  const auto w = static_cast<int32_t>(width);
  if (shape.dim(0) >= 0 && shape.dim(1) >= 0) {
    return constant(std::vector<int32_t>{static_cast<int32_t>(shape.dim(0)),
                                         static_cast<int32_t>(shape.dim(1)), w},
                    Shape({3}));
  }
  return concat({slice(shape_of(time_major, kInt32, site), {0}, {2}, site),
                 constant(std::vector<int32_t>{w}, Shape({1}))},
                0, site);
}

// A copy of `layer`'s kind and options reading the sequence the other way.
template <typename Kind>
std::shared_ptr<RNN> Reversed(const RNN& layer, std::string name) {
  RNNOptions options = layer.options();
  options.go_backwards = !options.go_backwards;
  return std::make_shared<Kind>(nullptr, std::move(name), layer.units(), std::move(options));
}

}  // namespace

RNN::RNN(Module* parent, std::string name, int64_t units, RNNOptions options, int gates,
         int num_states)
    : Layer(parent, std::move(name)),
      units_(units),
      options_(std::move(options)),
      gates_(gates),
      num_states_(num_states),
      cell_(std::make_unique<RecurrentCell>(this, "cell")) {
  if (units_ <= 0) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "recurrent layer '", this->name(), "': units must be positive, not ", units_)));
  }
  if (!options_.kernel_initializer) options_.kernel_initializer = initializers::glorot_uniform();
  if (!options_.recurrent_initializer) {
    options_.recurrent_initializer = initializers::orthogonal();
  }
  if (!options_.bias_initializer) options_.bias_initializer = initializers::zeros();
}

const Variable& RNN::kernel() const { return kernel_; }
const Variable& RNN::recurrent_kernel() const { return recurrent_kernel_; }
const Variable& RNN::bias() const { return bias_; }

Shape RNN::bias_shape() const { return Shape{gates_ * units_}; }

Tensor RNN::initial_bias(const Shape& shape, DType dtype) const {
  return options_.bias_initializer(shape, dtype);
}

void RNN::build(const Shape& input_shape) {
  auto& cell = static_cast<RecurrentCell&>(*cell_);
  const int64_t features = input_shape.dim(2);
  kernel_ = cell.add_variable("kernel", Shape{features, gates_ * units_}, dtype(),
                              options_.kernel_initializer);
  recurrent_kernel_ = cell.add_variable("recurrent_kernel", Shape{units_, gates_ * units_}, dtype(),
                                        options_.recurrent_initializer);
  if (options_.use_bias) {
    bias_ = cell.add_variable(
        "bias", bias_shape(), dtype(),
        [this](const Shape& shape, DType dtype) { return initial_bias(shape, dtype); });
  }
}

std::vector<Tensor> RNN::prepare_recurrent(OpSite site) const {
  return {recurrent_kernel_.value(site)};
}

Tensor RNN::call(const Tensor& x, bool, OpSite site) { return Run(x, {}, site).output; }

RNNOutput RNN::call_with_state(const Tensor& x, const std::vector<Tensor>& initial_state, bool,
                               OpSite site) {
  CheckAndBuild(x, site);
  NameScope scope(name().empty() ? "rnn" : name());
  return Run(x, initial_state, site);
}

RNNOutput RNN::Run(const Tensor& x, std::vector<Tensor> states, OpSite site) {
  if (states.empty()) {
    for (int k = 0; k < num_states_; ++k) states.push_back(ZeroState(x, units_, dtype(), site));
  } else if (static_cast<int>(states.size()) != num_states_) {
    Fail(absl::StrCat("takes ", num_states_, " initial state tensor(s), got ", states.size()),
         site);
  }
  for (const Tensor& s : states) {
    const Shape& shape = s.shape();
    if (shape.unknown_rank() || shape.rank() != 2 ||
        (shape.dim(1) >= 0 && shape.dim(1) != units_)) {
      Fail(absl::StrCat("needs initial states of shape (batch, ", units_, "), got ", shape.str()),
           site);
    }
  }
  if (x.shape().dim(1) == 0)
    Fail("needs at least one time step, got shape " + x.shape().str(), site);
  const Tensor sequence = options_.go_backwards ? reverse(x, {1}, site) : x;
  // Note [Recurrent layers]: every step's input projection at once, time-major: the (small)
  // inputs are transposed, and the projection is one matmul over the (time * batch) rows, bias
  // added, so the gradients are matmuls and a bias gradient with no transposes of the (large)
  // projected values.
  const Tensor time_major = transpose(sequence, {1, 0, 2}, site);
  Tensor projected = matmul(reshape(time_major, Shape{-1, x.shape().dim(2)}, site),
                            kernel_.value(site), false, false, site);
  if (options_.use_bias) projected = bias_add(projected, input_bias(bias_.value(site), site), site);
  projected = reshape(projected, StepsShape(time_major, gates_ * units_, site), site);
  return executing_eagerly() ? RunEagerly(projected, std::move(states), site)
                             : RunAsWhile(projected, std::move(states), site);
}

RNNOutput RNN::RunEagerly(const Tensor& projected, std::vector<Tensor> states, OpSite site) {
  const std::vector<Tensor> recurrent = prepare_recurrent(site);
  std::vector<Tensor> outputs;
  for (const Tensor& zx : unstack(projected, 0, site)) {
    states = step(zx, states, recurrent, site);
    if (options_.return_sequences) outputs.push_back(states[0]);
  }
  Tensor output = options_.return_sequences ? stack(outputs, 1, site) : states[0];
  return {std::move(output), std::move(states)};
}

RNNOutput RNN::RunAsWhile(const Tensor& projected, std::vector<Tensor> states, OpSite site) {
  const std::vector<Tensor> recurrent = prepare_recurrent(site);
  const int64_t steps = projected.shape().dim(0);
  const int64_t batch = projected.shape().dim(1);
  const Tensor num_steps =
      steps >= 0 ? constant(static_cast<int32_t>(steps))
                 : reshape(slice(shape_of(projected, kInt32, site), {0}, {1}, site), Shape(), site);
  const Tensor inputs = tensor_list_from_tensor(
      projected, element_shape_operand(Shape{batch, gates_ * units_}), site);
  const Tensor output_shape = element_shape_operand(Shape{batch, units_});
  const DType dtype = projected.dtype();
  // Loop variables: the step, the states, then the outputs' list.
  std::vector<Tensor> vars = {constant(0)};
  vars.insert(vars.end(), states.begin(), states.end());
  const size_t n = states.size();
  if (options_.return_sequences) {
    vars.push_back(tensor_list_reserve(output_shape, num_steps, dtype, site));
  }
  const std::vector<Tensor> out = while_loop(
      [&](const std::vector<Tensor>& v) { return v[0] < num_steps; },
      [&](const std::vector<Tensor>& v) {
        const Tensor zx = tensor_list_get_item(
            inputs, v[0], element_shape_operand(Shape{batch, gates_ * units_}), dtype, site);
        const std::vector<Tensor> next =
            step(zx, std::vector<Tensor>(v.begin() + 1, v.begin() + 1 + n), recurrent, site);
        std::vector<Tensor> results = {v[0] + 1};
        results.insert(results.end(), next.begin(), next.end());
        if (options_.return_sequences) {
          results.push_back(tensor_list_set_item(v[1 + n], v[0], next[0], site));
        }
        return results;
      },
      std::move(vars), site);
  std::vector<Tensor> final_states(out.begin() + 1, out.begin() + 1 + n);
  Tensor output = final_states[0];
  if (options_.return_sequences) {
    output =
        transpose(tensor_list_stack(out[1 + n], output_shape, dtype, steps, site), {1, 0, 2}, site);
  }
  return {std::move(output), std::move(final_states)};
}

// ---- SimpleRNN ----

SimpleRNN::SimpleRNN(Module* parent, std::string name, int64_t units, RNNOptions options)
    : RNN(parent, std::move(name), units, std::move(options), /*gates=*/1, /*num_states=*/1) {}

SimpleRNN::SimpleRNN(int64_t units, RNNOptions options)
    : SimpleRNN(nullptr, "simple_rnn", units, std::move(options)) {}

std::shared_ptr<RNN> SimpleRNN::reversed(std::string name) const {
  return Reversed<SimpleRNN>(*this, std::move(name));
}

std::vector<Tensor> SimpleRNN::step(const Tensor& zx, const std::vector<Tensor>& states,
                                    const std::vector<Tensor>& recurrent, OpSite site) const {
  return {act(zx + matmul(states[0], recurrent[0], false, false, site), site)};
}

// ---- LSTM ----

LSTM::LSTM(Module* parent, std::string name, int64_t units, RNNOptions options)
    : RNN(parent, std::move(name), units, std::move(options), /*gates=*/4, /*num_states=*/2) {}

LSTM::LSTM(int64_t units, RNNOptions options) : LSTM(nullptr, "lstm", units, std::move(options)) {}

std::shared_ptr<RNN> LSTM::reversed(std::string name) const {
  return Reversed<LSTM>(*this, std::move(name));
}

// Keras' unit_forget_bias: the initializer's values for i, then ones for f, then c and o.
Tensor LSTM::initial_bias(const Shape& shape, DType dtype) const {
  if (!options().unit_forget_bias) return RNN::initial_bias(shape, dtype);
  const int64_t u = units();
  return concat({options().bias_initializer(Shape{u}, dtype), ones(Shape{u}, dtype),
                 options().bias_initializer(Shape{2 * u}, dtype)},
                0);
}

std::vector<Tensor> LSTM::step(const Tensor& zx, const std::vector<Tensor>& states,
                               const std::vector<Tensor>& recurrent, OpSite site) const {
  const Tensor z = zx + matmul(states[0], recurrent[0], false, false, site);
  const std::vector<Tensor> g = split(z, 4, 1, site);  // i, f, c, o
  Tensor c = gate(g[1], site) * states[1] + gate(g[0], site) * act(g[2], site);
  Tensor h = gate(g[3], site) * act(c, site);
  return {std::move(h), std::move(c)};
}

// ---- GRU ----

GRU::GRU(Module* parent, std::string name, int64_t units, RNNOptions options)
    : RNN(parent, std::move(name), units, std::move(options), /*gates=*/3, /*num_states=*/1) {}

GRU::GRU(int64_t units, RNNOptions options) : GRU(nullptr, "gru", units, std::move(options)) {}

std::shared_ptr<RNN> GRU::reversed(std::string name) const {
  return Reversed<GRU>(*this, std::move(name));
}

Shape GRU::bias_shape() const {
  return options().reset_after ? Shape{2, 3 * units()} : Shape{3 * units()};
}

Tensor GRU::input_bias(const Tensor& bias, OpSite site) const {
  if (!options().reset_after) return bias;
  return reshape(slice(bias, {0, 0}, {1, -1}, site), Shape{3 * units()}, site);
}

// reset_after: {U, recurrent bias (when used)}; else {U_zr, U_h}.
std::vector<Tensor> GRU::prepare_recurrent(OpSite site) const {
  const Tensor u = recurrent_kernel().value(site);
  const int64_t n = units();
  if (!options().reset_after) {
    return {slice(u, {0, 0}, {n, 2 * n}, site), slice(u, {0, 2 * n}, {n, n}, site)};
  }
  if (!options().use_bias) return {u};
  return {u, reshape(slice(bias().value(site), {1, 0}, {1, -1}, site), Shape{3 * n}, site)};
}

std::vector<Tensor> GRU::step(const Tensor& zx, const std::vector<Tensor>& states,
                              const std::vector<Tensor>& recurrent, OpSite site) const {
  const Tensor& h = states[0];
  const std::vector<Tensor> x = split(zx, 3, 1, site);  // z, r, h
  Tensor candidate;
  Tensor z, r;
  if (options().reset_after) {
    Tensor rec = matmul(h, recurrent[0], false, false, site);
    if (recurrent.size() > 1) rec = rec + recurrent[1];
    const std::vector<Tensor> hr = split(rec, 3, 1, site);
    z = gate(x[0] + hr[0], site);
    r = gate(x[1] + hr[1], site);
    candidate = act(x[2] + r * hr[2], site);
  } else {
    const std::vector<Tensor> hr = split(matmul(h, recurrent[0], false, false, site), 2, 1, site);
    z = gate(x[0] + hr[0], site);
    r = gate(x[1] + hr[1], site);
    candidate = act(x[2] + matmul(r * h, recurrent[1], false, false, site), site);
  }
  return {z * h + (1.0 - z) * candidate};
}

// ---- Bidirectional ----

Bidirectional::Bidirectional(Module* parent, std::string name, std::shared_ptr<RNN> layer,
                             MergeMode merge_mode)
    : Layer(parent, std::move(name)), forward_(std::move(layer)), merge_mode_(merge_mode) {
  if (forward_ == nullptr || forward_->built() || forward_->parent() != nullptr) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "Bidirectional '", this->name(), "' takes a new recurrent layer (not built, no parent)")));
  }
  backward_ = forward_->reversed("backward_" + forward_->name());
  add_module(forward_, "forward_layer");
  add_module(backward_, "backward_layer");
}

Bidirectional::Bidirectional(std::shared_ptr<RNN> layer, MergeMode merge_mode)
    : Bidirectional(nullptr, "bidirectional", std::move(layer), merge_mode) {}

Tensor Bidirectional::call(const Tensor& x, bool training, OpSite site) {
  return Run(x, {}, training, site).output;
}

RNNOutput Bidirectional::call_with_state(const Tensor& x, const std::vector<Tensor>& initial_state,
                                         bool training, OpSite site) {
  CheckAndBuild(x, site);
  NameScope scope(name().empty() ? "bidirectional" : name());
  return Run(x, initial_state, training, site);
}

RNNOutput Bidirectional::Run(const Tensor& x, const std::vector<Tensor>& initial_state,
                             bool training, OpSite site) {
  std::vector<Tensor> forward_state, backward_state;
  if (!initial_state.empty()) {
    const size_t half = initial_state.size() / 2;
    if (initial_state.size() % 2 != 0) {
      Fail(absl::StrCat("takes the forward's then the backward's initial states, an even number, "
                        "got ",
                        initial_state.size()),
           site);
    }
    forward_state.assign(initial_state.begin(), initial_state.begin() + half);
    backward_state.assign(initial_state.begin() + half, initial_state.end());
  }
  RNNOutput forward = forward_->call_with_state(x, forward_state, training, site);
  RNNOutput backward = backward_->call_with_state(x, backward_state, training, site);
  Tensor b = backward.output;
  if (forward_->options().return_sequences) b = reverse(b, {1}, site);
  const Tensor& f = forward.output;
  Tensor output;
  switch (merge_mode_) {
    case MergeMode::kConcat:
      output = concat({f, b}, -1, site);
      break;
    case MergeMode::kSum:
      output = f + b;
      break;
    case MergeMode::kMul:
      output = f * b;
      break;
    case MergeMode::kAve:
      output = (f + b) * 0.5;
      break;
  }
  RNNOutput result{std::move(output), std::move(forward.states)};
  result.states.insert(result.states.end(), backward.states.begin(), backward.states.end());
  return result;
}

}  // namespace duet::nn
