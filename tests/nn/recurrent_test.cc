// Recurrent layers against Keras 3 (tests/nn/testdata/gen_recurrent_expected.py), the same
// eagerly, traced (one While) and in a Session; their gradients against float64 finite
// differences, eager against traced; Bidirectional; errors.
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/gradients/gradient_checker.h"
#include "tests/nn/keras_formulas.h"
#include "tests/nn/three_modes.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectError;
using testing::ExpectTensor;
using testing::ExpectTensorNear;
using testing::KerasX;

// simple_rnn_sequences: shape [2, 5, 4]
const std::vector<double> kSimpleRnnSequences = {
    0.571669996,  0.481549829,   -0.244918659, 0.537049532, -0.591807127, -0.427592307,
    0.644439042,  -0.061295636,  -0.512252748, 0.337835491, 0.560470641,  -0.424386859,
    -0.270877779, -0.0593908243, 0.355191678,  -0.23121959, -0.898210824, -0.0631524026,
    0.922955155,  -0.783411205,  -0.809301078, -0.3583574,  0.874053359,  -0.677782118,
    -0.798687518, 0.140377656,   0.869400084,  -0.81416285, -0.658176482, -0.211943284,
    0.803445935,  -0.721230209,  -0.337304503, 0.899219215, 0.421219558,  -0.108203337,
    0.289066434,  0.320040435,   0.0938803032, 0.618476093};
// lstm_last: shape [2, 3]
const std::vector<double> kLstmLast = {-0.110303059, 0.165212139,  -0.220819965,
                                       0.165434062,  0.0757005289, 0.153895721};
// lstm_sequences_state[0]: shape [2, 5, 2]
const std::vector<double> kLstmSequencesState0 = {
    0.0392099805, -0.226668686, 0.0434162878, 0.0455125682, 0.0464346558, 0.152781621, 0.0269407779,
    0.191494375,  0.097170651,  -0.127390966, 0.0799406543, -0.139430508, 0.118847609, -0.140126944,
    0.111233719,  -0.110484518, 0.149081141,  -0.381972015, 0.166337028,  -0.4007155};
// lstm_sequences_state[1]: shape [2, 2]
const std::vector<double> kLstmSequencesState1 = {0.097170651, -0.127390966, 0.166337028,
                                                  -0.4007155};
// lstm_sequences_state[2]: shape [2, 2]
const std::vector<double> kLstmSequencesState2 = {0.202314779, -0.168039918, 0.339396179,
                                                  -0.74704349};
// lstm_backwards: shape [2, 5, 3]
const std::vector<double> kLstmBackwards = {
    -0.0439530537, 0.144027039,  -0.13967298,  -0.0983761027, 0.18053484,    -0.211891711,
    -0.102036081,  0.147873163,  -0.269908071, -0.0795713514, 0.169691816,   -0.31793496,
    0.0389565229,  0.0164288692, 0.0572889261, 0.145807445,   0.00810287707, 0.126705572,
    0.219741955,   0.0278728195, 0.108585015,  0.00268166047, 0.16279757,    -0.108820967,
    -0.123673156,  0.219200402,  -0.154607385, -0.143123537,  0.235213444,   -0.177964792};
// gru_sequences: shape [2, 5, 3]
const std::vector<double> kGruSequences = {
    0.341346949,  -0.123674326, 0.358617395,   0.277949601,  0.309315383,  0.150376067,
    0.425613433,  0.409364551,  0.0603327081,  0.507861316,  0.441701829,  0.0763028115,
    0.0470816642, 0.673966289,  -0.104322895,  -0.177635267, 0.55721575,   -0.178580508,
    -0.177186757, 0.62443769,   -0.2824651,    -0.13808316,  0.619200766,  -0.291816384,
    0.217906281,  0.310057104,  -0.0547294617, 0.472003937,  0.0942874625, 0.100564413};
// gru_reset_before: shape [2, 5, 3]
const std::vector<double> kGruResetBefore = {
    0.261813045,  -0.0623792037, 0.323444963,   0.0471248738, 0.24714604,  0.10904704,
    0.140634567,  0.361860663,   0.00761565566, 0.207469046,  0.416019976, 0.0266870055,
    -0.153265685, 0.617117405,   -0.156727403,  -0.278690606, 0.492575496, -0.181759506,
    -0.333845377, 0.613384068,   -0.311049253,  -0.337684125, 0.642575562, -0.332924515,
    0.0114861727, 0.423263133,   -0.0817800611, 0.265849769,  0.255771071, 0.0719025284};
// lstm_initial_state: shape [2, 3]
const std::vector<double> kLstmInitialState = {-0.0995048061, 0.165635228,  -0.221546799,
                                               0.16123943,    0.0699810386, 0.154644817};
// bidirectional_concat: shape [2, 5, 4]
const std::vector<double> kBidirectionalConcat = {
    0.0392099805, -0.226668686,  0.0776678547, -0.028227888,  0.0434162878, 0.0455125682,
    0.158465266,  -0.278196514,  0.0464346558, 0.152781621,   0.106991924,  -0.20518586,
    0.0269407779, 0.191494375,   0.0925506726, -0.167714536,  0.097170651,  -0.127390966,
    0.23170644,   -0.116295554,  0.0799406543, -0.139430508,  0.28786096,   -0.105497994,
    0.118847609,  -0.140126944,  0.241219655,  -0.0567305908, 0.111233719,  -0.110484518,
    0.202662542,  -0.0625642836, 0.149081141,  -0.381972015,  0.279134572,  -0.0520253964,
    0.166337028,  -0.4007155,    0.186919168,  -0.0218005497};
// bidirectional_sum_gru: shape [2, 2]
const std::vector<double> kBidirectionalSumGru = {0.119875669, -0.412460327, 0.65025717,
                                                  -0.273681909};

// Builds `layer` on x, sets the generator's weights, and checks call_with_state's output and
// states against Keras' (`expected`: the output's, then each state's, with their shapes) in the
// three modes.
void CheckRecurrent(nn::Layer& layer, const Tensor& x, const std::vector<Shape>& shapes,
                    const std::vector<const std::vector<double>*>& expected,
                    const std::vector<Tensor>& initial_state = {}) {
  layer(x);
  testing::SetKerasWeights(layer);
  const testing::TensorFn fn = [&](const std::vector<Tensor>& in) {
    const std::vector<Tensor> state(in.begin() + 1, in.end());
    nn::RNNOutput out = dynamic_cast<nn::RNN*>(&layer) != nullptr
                            ? dynamic_cast<nn::RNN&>(layer).call_with_state(in[0], state)
                            : dynamic_cast<nn::Bidirectional&>(layer).call_with_state(in[0], state);
    std::vector<Tensor> results = {out.output};
    results.insert(results.end(), out.states.begin(), out.states.end());
    return results;
  };
  std::vector<Tensor> inputs = {x};
  inputs.insert(inputs.end(), initial_state.begin(), initial_state.end());
  for (const auto& [mode, run] :
       {std::pair{"eager", &testing::RunEagerly}, std::pair{"traced", &testing::RunTraced},
        std::pair{"session", &testing::RunInSession}}) {
    INFO("mode " << mode);
    const std::vector<Tensor> got = run(fn, inputs);
    for (size_t k = 0; k < expected.size(); ++k) {
      INFO("result " << k);
      ExpectTensor(got[k], kFloat32, shapes[k], *expected[k], 1e-5);
    }
  }
}

TEST_CASE("SimpleRNN, LSTM and GRU match Keras eagerly, traced and in a Session") {
  const Tensor x = KerasX({2, 5, 3});
  nn::SimpleRNN simple(4, {.return_sequences = true});
  CheckRecurrent(simple, x, {{2, 5, 4}}, {&kSimpleRnnSequences});
  nn::LSTM last(3);
  CheckRecurrent(last, x, {{2, 3}}, {&kLstmLast});
  nn::LSTM with_state(2, {.return_sequences = true});
  CheckRecurrent(with_state, x, {{2, 5, 2}, {2, 2}, {2, 2}},
                 {&kLstmSequencesState0, &kLstmSequencesState1, &kLstmSequencesState2});
  nn::LSTM backwards(3, {.return_sequences = true, .go_backwards = true});
  CheckRecurrent(backwards, x, {{2, 5, 3}}, {&kLstmBackwards});
  nn::GRU gru(3, {.return_sequences = true});
  CheckRecurrent(gru, x, {{2, 5, 3}}, {&kGruSequences});
  nn::GRU reset_before(3, {.return_sequences = true, .reset_after = false});
  CheckRecurrent(reset_before, x, {{2, 5, 3}}, {&kGruResetBefore});
  nn::LSTM initial(3);
  CheckRecurrent(initial, x, {{2, 3}}, {&kLstmInitialState},
                 {KerasX({2, 3}, 0.1), KerasX({2, 3}, -0.2)});
}

TEST_CASE("Bidirectional matches Keras: concat of sequences, sum of last outputs") {
  const Tensor x = KerasX({2, 5, 3});
  nn::Bidirectional concat(std::make_shared<nn::LSTM>(2, nn::RNNOptions{.return_sequences = true}));
  CheckRecurrent(concat, x, {{2, 5, 4}}, {&kBidirectionalConcat});
  nn::Bidirectional sum(std::make_shared<nn::GRU>(2), nn::MergeMode::kSum);
  CheckRecurrent(sum, x, {{2, 2}}, {&kBidirectionalSumGru});
  // Keras' layout of the variables: each direction's cell holds kernel, recurrent_kernel, bias.
  std::vector<std::string> names;
  for (const Variable& v : sum.variables()) names.push_back(v.name());
  CHECK(names == std::vector<std::string>{"bidirectional/forward_layer/cell/kernel",
                                          "bidirectional/forward_layer/cell/recurrent_kernel",
                                          "bidirectional/forward_layer/cell/bias",
                                          "bidirectional/backward_layer/cell/kernel",
                                          "bidirectional/backward_layer/cell/recurrent_kernel",
                                          "bidirectional/backward_layer/cell/bias"});
}

int CountOps(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node* node : g.nodes()) n += node->op().name == op ? 1 : 0;
  return n;
}

TEST_CASE("In a graph a recurrent layer is one While, whatever the sequence length") {
  nn::LSTM lstm(4, {.return_sequences = true});
  std::vector<int> sizes;
  for (int64_t steps : {5, 50, -1}) {
    Graph g;
    {
      GraphScope scope(g);
      lstm(placeholder(kFloat32, Shape{-1, steps, 3}));
    }
    INFO("steps " << steps);
    CHECK(CountOps(g, "While") + CountOps(g, "StatelessWhile") == 1);
    // One matmul projects every step's inputs (Note [Recurrent layers]); the step's is in the body.
    CHECK(CountOps(g, "MatMul") == 1);
    sizes.push_back(g.num_nodes());
  }
  CHECK(sizes[0] == sizes[1]);
  // Unknown batch and time: one Session runs sequences of any length.
  Graph g;
  Tensor in, out;
  {
    GraphScope scope(g);
    in = placeholder(kFloat32, Shape{-1, -1, 3});
    out = lstm(in);
  }
  Session session(g);
  for (int64_t steps : {1, 7}) {
    const Tensor x = KerasX({3, steps, 3});
    const Tensor got = session.run({{in, x}}, {out})[0];
    ExpectTensorNear(got, lstm(x), 1e-6);
  }
}

// float64 layers: the gradient with respect to the inputs through the checker (the tape of the
// eager loop, and gradients() of the While in a graph, against finite differences).
TEST_CASE("Recurrent layers' input gradients match float64 finite differences, eager and graph") {
  const Tensor x = testing::RandomInput({2, 4, 3}, 21);
  nn::SimpleRNN simple(3, {.return_sequences = true});
  nn::LSTM lstm(3, {.return_sequences = true});
  nn::GRU gru(2);
  nn::GRU gru_v1(2, {.return_sequences = true, .go_backwards = true, .reset_after = false});
  nn::Bidirectional bi(std::make_shared<nn::LSTM>(2, nn::RNNOptions{.return_sequences = true}));
  for (nn::Layer* layer : std::vector<nn::Layer*>{&simple, &lstm, &gru, &gru_v1, &bi}) {
    INFO("layer " << layer->name());
    testing::CheckGradients(
        "MatMul",
        [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{(*layer)(in[0])}; }, {x},
        {.check_graph = true});
  }
}

// sum(f() * w) for a fixed w.
double Projected(const Tensor& y, const Tensor& w) { return reduce_sum(y * w).item<double>(); }

TEST_CASE("Recurrent layers' weight gradients: eager tape == traced == finite differences") {
  const Tensor x = testing::RandomInput({2, 4, 3}, 22);
  nn::LSTM lstm(3, {.return_sequences = true});
  nn::GRU gru(3);
  nn::SimpleRNN simple(2);
  for (nn::RNN* layer : std::vector<nn::RNN*>{&lstm, &gru, &simple}) {
    INFO("layer " << layer->name());
    const Tensor w = testing::RandomInput((*layer)(x).shape(), 23);
    const std::vector<Variable> vars = layer->trainable_variables();
    auto loss = [&](const Tensor& in) { return reduce_sum((*layer)(in)*w); };
    std::vector<Tensor> eager;
    {
      GradientTape tape;
      eager = tape.gradient(loss(x), vars);
    }
    auto traced_fn = duet::function([&](const Tensor& in) {
      GradientTape tape;
      return tape.gradient(loss(in), vars);
    });
    const std::vector<Tensor> traced = traced_fn(x);
    for (size_t k = 0; k < vars.size(); ++k) {
      INFO("variable " << vars[k].name());
      ExpectTensorNear(traced[k], eager[k], 1e-10);
      // Central differences at every entry.
      const Tensor value = vars[k].value();
      const std::vector<double> v = testing::ToDoubles(value);
      std::vector<double> numeric(v.size());
      constexpr double kDelta = 1e-6;
      for (size_t i = 0; i < v.size(); ++i) {
        std::vector<double> plus = v, minus = v;
        plus[i] += kDelta;
        minus[i] -= kDelta;
        vars[k].assign(from_vector(plus, value.shape()));
        const double up = Projected((*layer)(x), w);
        vars[k].assign(from_vector(minus, value.shape()));
        const double down = Projected((*layer)(x), w);
        numeric[i] = (up - down) / (2 * kDelta);
      }
      vars[k].assign(value);
      ExpectTensorNear(eager[k], from_vector(numeric, value.shape()), 1e-6);
    }
  }
}

TEST_CASE("Recurrent layers reject wrong inputs and states with the layer's name") {
  nn::LSTM lstm(3);
  ExpectError([&] { lstm(KerasX({2, 3})); }, {"expects a rank-3 input"});
  lstm(KerasX({2, 5, 3}));
  ExpectError([&] { lstm(KerasX({2, 5, 4})); }, {"was built for inputs of shape"});
  ExpectError(
      [&] {
        lstm.call_with_state(KerasX({2, 5, 3}), {KerasX({2, 3})});
      },
      {"takes 2 initial state tensor(s), got 1"});
  ExpectError(
      [&] {
        lstm.call_with_state(KerasX({2, 5, 3}), {KerasX({2, 4}), KerasX({2, 4})});
      },
      {"needs initial states of shape (batch, 3)"});
  ExpectError([&] { nn::GRU(0); }, {"units must be positive"});
}

}  // namespace
}  // namespace duet
