// Eager vs graph for every op: a Session must compute what eager execution computes. The
// differentiable ops are covered by the gradient checker (tests/gradients/, every
// DUET_GRADIENT_TEST also runs its function as a graph); this file covers the others, and fails
// when an op is registered that neither covers.
#include <catch2/catch.hpp>
#include <set>

#include "absl/strings/str_join.h"
#include "duet.h"
#include "ops/gradient.h"
#include "ops/math/fused_elementwise_op.h"
#include "ops/nn/fused_nn_ops.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

struct Case {
  std::string op;
  std::vector<Tensor> inputs;  // fed through placeholders of their dtype and shape
  Fn fn;
};

const Tensor kX = from_vector(std::vector<float>{-1.5f, 0.f, 2.5f, 3.f, -0.5f, 1.f}, {2, 3});
const Tensor kY = from_vector(std::vector<float>{-1.5f, 1.f, 2.f, 4.f, -0.5f, 0.f}, {2, 3});
const Tensor kP = from_vector(std::vector<bool>{true, false, true, false, true, true}, {2, 3});
const Tensor kQ = from_vector(std::vector<bool>{true, true, false, false, true, false}, {2, 3});

Case Binary(const std::string& op, Tensor (*fn)(const Tensor&, const Tensor&, OpSite),
            const Tensor& x, const Tensor& y) {
  return {op, {x, y}, [fn](const std::vector<Tensor>& in) { return fn(in[0], in[1], {}); }};
}

Case Unary(const std::string& op, Tensor (*fn)(const Tensor&, OpSite), const Tensor& x) {
  return {op, {x}, [fn](const std::vector<Tensor>& in) { return fn(in[0], {}); }};
}

Tensor Ints(std::vector<int32_t> v) { return from_vector(v, {static_cast<int64_t>(v.size())}); }

// Reads the variable after the update, so the fetched value shows what the update did.
Case VariableUpdate(const std::string& op, void (*update)(const Tensor&, const Tensor&, OpSite)) {
  return {op, {kX}, [update](const std::vector<Tensor>& in) {
            static int counter = 0;
            Variable v(zeros({2, 3}), "v" + std::to_string(counter++));
            assign_variable_op(v.handle(), constant({{1.f, 1.f, 1.f}, {2.f, 2.f, 2.f}}));
            update(v.handle(), in[0], {});
            return read_variable_op(v.handle(), kFloat32);
          }};
}

// A draw from a fresh generator state (the same in both modes), added to the fed input.
Case StatefulRandom(const std::string& op,
                    Tensor (*draw)(const Tensor&, const Shape&, DType, OpSite)) {
  return {op, {kX}, [draw](const std::vector<Tensor>& in) {
            static int counter = 0;
            Variable state(from_vector(std::vector<int64_t>{0, 0, 3}),
                           "state" + std::to_string(counter++), /*trainable=*/false);
            return draw(state.handle(), {2, 3}, kFloat32, {}) + in[0];
          }};
}

// A fused optimizer update (ops/state/training_ops.h) of a fresh variable of ones and
// `num_slots` slots of positive constants, given their handles (var first) and the fed gradient;
// the fetched value is the variable's after the update.
Case FusedUpdate(const std::string& op, int num_slots,
                 std::function<void(const std::vector<Tensor>&, const Tensor&)> update) {
  return {
      op, {kX}, [op, num_slots, update](const std::vector<Tensor>& in) {
        static int counter = 0;
        const std::string name = op + std::to_string(counter++);
        std::vector<Variable> variables = {Variable(ones({2, 3}), name)};
        std::vector<Tensor> handles = {variables[0].handle()};
        for (int k = 0; k < num_slots; ++k) {
          variables.emplace_back(fill({2, 3}, 0.25f * (k + 1)), name + "/slot" + std::to_string(k));
          handles.push_back(variables.back().handle());
        }
        update(handles, in[0]);
        return variables[0].value();
      }};
}

std::vector<Case> Cases() {
  const Tensor half = constant(0.5f), beta1 = constant(0.9f), beta2 = constant(0.999f),
               epsilon = constant(1e-7f);
  return {
      {"Const", {}, [](const std::vector<Tensor>&) { return const_op(kX); }},
      {"NoOp",
       {kX},
       [](const std::vector<Tensor>& in) {
         no_op();
         return in[0];
       }},
      {"Placeholder", {kX}, [](const std::vector<Tensor>& in) { return in[0]; }},
      {"DuetHostFunction",
       {kX},
       [](const std::vector<Tensor>& in) {
         auto twice = [](const std::vector<Tensor>& a) { return std::vector<Tensor>{a[0] * 2.f}; };
         return host_function(twice, {in[0]}, {kFloat32})[0];
       }},
      Unary("StopGradient", &stop_gradient, kX),
      {"BroadcastGradientArgs",
       {from_vector(std::vector<int32_t>{2, 1, 3}), from_vector(std::vector<int32_t>{4, 1})},
       [](const std::vector<Tensor>& in) { return broadcast_gradient_args(in[0], in[1]).second; }},
      {"Shape", {kX}, [](const std::vector<Tensor>& in) { return shape_of(in[0], kInt64); }},
      {"Size", {kX}, [](const std::vector<Tensor>& in) { return size(in[0]); }},
      {"Rank", {kX}, [](const std::vector<Tensor>& in) { return rank(in[0]); }},
      Unary("ZerosLike", &zeros_like, kX),
      Unary("OnesLike", &ones_like, kP),
      // Fed scalars: the graph knows the length only when it runs.
      {"Range",
       {constant(2), constant(11), constant(3)},
       [](const std::vector<Tensor>& in) { return range(in[0], in[1], in[2]); }},
      {"Range",
       {constant(1.5), constant(-1.0), constant(-0.5)},
       [](const std::vector<Tensor>& in) { return range(in[0], in[1], in[2]); }},
      // The number of true elements is known only when the graph runs.
      Unary("Where", &where_indices, kP),
      Unary("Where", &where_indices, kX),
      {"DenseBincount",
       {from_vector(std::vector<int32_t>{1, 2, 2, 0, 5, 1}, {2, 3})},
       [](const std::vector<Tensor>& in) {
         return dense_bincount(in[0], 4, constant({{1.f, 2.f, 3.f}, {.5f, .5f, 7.f}}));
       }},
      {"Bucketize",
       {kX},
       [](const std::vector<Tensor>& in) {
         return bucketize(in[0], {-1.f, 0.5f, 2.5f});
       }},
      {"OneHot",
       {from_vector(std::vector<int64_t>{2, 0, -1, 1})},
       [](const std::vector<Tensor>& in) { return one_hot(in[0], 3, 5, -1, 0, kFloat64); }},
      Unary("Sign", &sign, kX),
      Unary("Floor", &floor, kX),
      Unary("Ceil", &ceil, kX),
      Unary("Round", &round, kX),
      Unary("Rint", &rint, kX),
      Binary("FloorDiv", &floor_div, kX, kY),
      Binary("TruncateDiv", &truncate_div, kX, kY),
      Binary("Equal", &equal, kX, kY),
      Binary("NotEqual", &not_equal, kX, kY),
      Binary("Less", &less, kX, kY),
      Binary("LessEqual", &less_equal, kX, kY),
      Binary("Greater", &greater, kX, kY),
      Binary("GreaterEqual", &greater_equal, kX, kY),
      Binary("LogicalAnd", &logical_and, kP, kQ),
      Binary("LogicalOr", &logical_or, kP, kQ),
      Unary("LogicalNot", &logical_not, kP),
      Unary("IsNan", &is_nan, divide(kX, kY)),  // 0/0 is NaN, 2.5/0 is inf
      Unary("IsInf", &is_inf, divide(kX, kY)),
      Unary("IsFinite", &is_finite, divide(kX, kY)),
      {"StatelessRandomNormal",
       {from_vector(std::vector<int32_t>{3, 2}), from_vector(std::vector<int64_t>{7, 1})},
       [](const std::vector<Tensor>& in) { return stateless_random_normal(in[0], in[1]); }},
      {"StatelessRandomUniform",
       {from_vector(std::vector<int32_t>{4}), from_vector(std::vector<int64_t>{7, 2})},
       [](const std::vector<Tensor>& in) {
         return stateless_random_uniform(in[0], in[1], kFloat64);
       }},
      {"_StatelessRandomNormalScaled",
       {},
       [](const std::vector<Tensor>&) {
         return random_normal({2, 2}, 3, kFloat32, 1, 2);
       }},
      {"_StatelessRandomUniformScaled",
       {},
       [](const std::vector<Tensor>&) { return random_uniform({5}, 3, kFloat64, -2, 2); }},
      {"VarHandleOp",
       {},
       [](const std::vector<Tensor>&) {
         const Tensor handle = var_handle_op(kFloat32, {2}, "fresh");
         assign_variable_op(handle, constant({1.f, 2.f}));
         return read_variable_op(handle, kFloat32);
       }},
      VariableUpdate("AssignVariableOp", &assign_variable_op),
      StatefulRandom("StatefulStandardNormalV2", &stateful_standard_normal),
      StatefulRandom("StatefulUniform", &stateful_uniform),
      VariableUpdate("ResourceStridedSliceAssign",
                     [](const Tensor& ref, const Tensor& value, OpSite site) {
                       // ref[1:, ::2] = value[:1, 1:]
                       resource_strided_slice_assign(
                           ref, Ints({1, 0}), Ints({0, 0}), Ints({1, 2}),
                           strided_slice(value, {0, 1}, {1, 0}, {1, 1}, {.end_mask = 0b10}),
                           {.end_mask = 0b11}, site);
                     }),
      VariableUpdate("AssignAddVariableOp", &assign_add_variable_op),
      VariableUpdate("AssignSubVariableOp", &assign_sub_variable_op),
      {"ResourceApplyGradientDescent",
       {kX},
       [](const std::vector<Tensor>& in) {
         static int counter = 0;
         Variable v(ones({2, 3}), "sgd" + std::to_string(counter++));
         resource_apply_gradient_descent(v.handle(), constant(0.5f), in[0]);
         return v.value();
       }},
      FusedUpdate("ResourceApplyKerasMomentum", 1,
                  [=](const std::vector<Tensor>& h, const Tensor& grad) {
                    resource_apply_keras_momentum(h[0], h[1], half, grad, beta1, true);
                  }),
      FusedUpdate("ResourceApplyAdam", 2,
                  [=](const std::vector<Tensor>& h, const Tensor& grad) {
                    resource_apply_adam(h[0], h[1], h[2], beta1, beta2, half, beta1, beta2, epsilon,
                                        grad, true);
                  }),
      FusedUpdate("ResourceApplyAdamWithAmsgrad", 3,
                  [=](const std::vector<Tensor>& h, const Tensor& grad) {
                    resource_apply_adam_with_amsgrad(h[0], h[1], h[2], h[3], beta1, beta2, half,
                                                     beta1, beta2, epsilon, grad);
                  }),
      FusedUpdate("ResourceApplyRMSProp", 2,
                  [=](const std::vector<Tensor>& h, const Tensor& grad) {
                    resource_apply_rms_prop(h[0], h[1], h[2], half, beta1, half, epsilon, grad);
                  }),
      FusedUpdate("ResourceApplyCenteredRMSProp", 3,
                  [=](const std::vector<Tensor>& h, const Tensor& grad) {
                    resource_apply_centered_rms_prop(h[0], h[1], h[2], h[3], half, beta1, half,
                                                     epsilon, grad);
                  }),
      FusedUpdate("ResourceApplyAdagradV2", 1,
                  [=](const std::vector<Tensor>& h, const Tensor& grad) {
                    resource_apply_adagrad_v2(h[0], h[1], half, epsilon, grad);
                  }),
      {"_ResourceApplyMatMulGradientDescent",
       {kX, kY},
       [](const std::vector<Tensor>& in) {
         static int counter = 0;
         Variable v(ones({3, 3}), "matmul_sgd" + std::to_string(counter++));
         resource_apply_matmul_gradient_descent(v.handle(), constant(0.5f), in[0], in[1],
                                                /*transpose_a=*/true);
         return v.value();
       }},
      {"ArgMax", {kX}, [](const std::vector<Tensor>& in) { return argmax(in[0], 1); }},
      {"All", {kP}, [](const std::vector<Tensor>& in) { return reduce_all(in[0], 1); }},
      {"Any", {kQ}, [](const std::vector<Tensor>& in) { return reduce_any(in[0], 0, true); }},
      {"ArgMin", {kX}, [](const std::vector<Tensor>& in) { return argmin(in[0], 0, kInt32); }},
      {"_FusedMatMul",
       {kX, kY, constant({0.5f, -1.f})},
       [](const std::vector<Tensor>& in) {
         return fused_matmul(in[0], in[1], {in[2]}, {"BiasAdd", "Relu"}, false, true);
       }},
      {"_FusedElementwise",
       {kX, kY, constant(0.5f)},
       [](const std::vector<Tensor>& in) {
         return fused_elementwise({in[0], in[1], in[2]}, {"Mul", "AddV2", "Tanh"}, {0, 2, 3, 1, 4});
       }},
      // TensorLists (kX's rows as elements), each case fetching a value tensor.
      {"TensorListReserve",
       {kY},
       [](const std::vector<Tensor>& in) {
         const Tensor list = tensor_list_reserve(Ints({2, 3}), constant(3), kFloat32);
         return tensor_list_stack(tensor_list_set_item(list, constant(1), in[0]), Ints({2, 3}),
                                  kFloat32);
       }},
      {"TensorListFromTensor",
       {kX},
       [](const std::vector<Tensor>& in) {
         return tensor_list_stack(tensor_list_from_tensor(in[0], Ints({3})), Ints({3}), kFloat32);
       }},
      {"TensorListSetItem",
       {kX, constant({7.f, 8.f, 9.f})},
       [](const std::vector<Tensor>& in) {
         const Tensor list = tensor_list_from_tensor(in[0], Ints({-1}));
         return tensor_list_stack(tensor_list_set_item(list, constant(0), in[1]), Ints({3}),
                                  kFloat32, 2);
       }},
      {"TensorListGetItem",
       {kX},
       [](const std::vector<Tensor>& in) {
         return tensor_list_get_item(tensor_list_from_tensor(in[0], Ints({3})), constant(1),
                                     Ints({3}), kFloat32);
       }},
      {"TensorListStack",
       {kP},
       [](const std::vector<Tensor>& in) {
         return tensor_list_stack(tensor_list_from_tensor(in[0], Ints({3})), constant(-1), kBool);
       }},
      {"EmptyTensorList",
       {kY},
       [](const std::vector<Tensor>& in) {
         const Tensor list = empty_tensor_list(Ints({-1, 3}), constant(-1), kFloat32);
         return tensor_list_stack(tensor_list_push_back(list, in[0]), Ints({2, 3}), kFloat32);
       }},
      {"TensorListPushBack",
       {kX, constant({7.f, 8.f, 9.f})},
       [](const std::vector<Tensor>& in) {
         const Tensor list = tensor_list_from_tensor(in[0], Ints({3}));
         return tensor_list_stack(tensor_list_push_back(list, in[1]), Ints({3}), kFloat32, 3);
       }},
      {"TensorListPopBack",
       {kX},
       [](const std::vector<Tensor>& in) {
         return tensor_list_pop_back(tensor_list_from_tensor(in[0], Ints({3})), Ints({3}), kFloat32)
             .second;
       }},
      {"TensorListLength",
       {kX},
       [](const std::vector<Tensor>& in) {
         return tensor_list_length(tensor_list_from_tensor(in[0], Ints({3})));
       }},
      {"TensorListElementShape",
       {kX},
       [](const std::vector<Tensor>& in) {
         return tensor_list_element_shape(tensor_list_from_tensor(in[0], Ints({-1})), kInt64);
       }},
      {"_FusedConv2D",
       {reshape(kX, {1, 3, 2, 1}), reshape(kY, {1, 2, 1, 3}), constant({0.5f, -1.f, 2.f})},
       [](const std::vector<Tensor>& in) {
         return fused_conv2d(in[0], in[1], {in[2]}, {"BiasAdd", "Tanh"}, {1}, "SAME");
       }},
      {"_FusedDepthwiseConv2dNative",
       {reshape(kX, {1, 2, 1, 3}), reshape(kY, {1, 2, 3, 1}), constant({0.5f, -1.f, 2.f})},
       [](const std::vector<Tensor>& in) {
         return fused_depthwise_conv2d(in[0], in[1], {in[2]}, {"BiasAdd", "Relu6"}, {1}, "SAME");
       }},
  };
}

TEST_CASE("non-differentiable ops give the same results eagerly and in a session") {
  for (const Case& c : Cases()) {
    INFO("op " << c.op);
    const Tensor eager = c.fn(c.inputs);
    Graph graph;
    std::vector<Tensor> placeholders;
    Tensor symbolic;
    {
      GraphScope scope(graph);
      for (const Tensor& in : c.inputs) placeholders.push_back(placeholder(in.dtype(), in.shape()));
      symbolic = c.fn(placeholders);
    }
    bool has_op = false;
    for (const Node* node : graph.nodes()) has_op = has_op || node->op().name == c.op;
    CHECK(has_op);
    CHECK(symbolic.dtype() == eager.dtype());
    CHECK(symbolic.shape().IsCompatibleWith(eager.shape()));
    FeedList feeds;
    for (size_t i = 0; i < c.inputs.size(); ++i) feeds.emplace_back(placeholders[i], c.inputs[i]);
    Session session(graph);
    // Ops with state (variables) ran once eagerly and once here, from the same start.
    testing::ExpectTensorNear(session.run(feeds, {symbolic})[0], eager, 0);
  }
}

TEST_CASE("PlaceholderWithDefault gives its input unless a feed replaces it") {
  Graph graph;
  Tensor y, z;
  {
    GraphScope scope(graph);
    y = placeholder_with_default(constant({{1.f, 2.f}}), {-1, 2});
    z = y * 2.f;
  }
  CHECK(y.shape() == Shape({-1, 2}));
  Session session(graph);
  testing::ExpectTensor(session.run({}, {z})[0], kFloat32, {1, 2}, {2, 4});
  testing::ExpectTensor(session.run({{y, constant({{3.f, 4.f}, {5.f, 6.f}})}}, {z})[0], kFloat32,
                        {2, 2}, {6, 8, 10, 12});
}

TEST_CASE("EnsureShape checks shapes that only the running graph knows") {
  Graph graph;
  Tensor x, y;
  {
    GraphScope scope(graph);
    x = placeholder(kFloat32, {-1, -1});
    y = ensure_shape(x, {-1, 3});
    testing::ExpectError([&] { ensure_shape(x, {2}); },
                         {"EnsureShape", "(None, None)", "expected shape (2,)"});
  }
  CHECK(y.shape() == Shape({-1, 3}));
  Session session(graph);
  testing::ExpectTensor(session.run({{x, ones({1, 3})}}, {y})[0], kFloat32, {1, 3}, {1, 1, 1});
  testing::ExpectError(
      [&] {
        session.run({{x, ones({2, 2})}}, {y});
      },
      {"EnsureShape", "the input has shape (2, 2)",
       "not compatible with the expected shape (None, 3)"});
}

TEST_CASE("unstack in a graph needs the size of its axis") {
  Graph graph;
  GraphScope scope(graph);
  const Tensor x = placeholder(kFloat32, {-1, 3});
  const std::vector<Tensor> columns = unstack(x, 1);
  REQUIRE(columns.size() == 3);
  CHECK(columns[0].shape() == Shape({-1}));
  testing::ExpectError([&] { unstack(x); },
                       {"Unpack", "needs the size of axis 0", "(None, 3)", "eager_graph_test.cc"});
}

// Ops whose eager-vs-graph check needs several ranks, and where it is.
const char* const kCheckedElsewhere[] = {
    // A broadcast needs a sender and receivers: tests/distribute/collective_ops_test.cc runs it
    // eagerly and traced among 3 ranks.
    "CollectiveBcastSendV2",
    "CollectiveBcastRecvV2",
};

TEST_CASE("every op is checked eager vs graph, here or by the gradient checker") {
  std::set<std::string> covered(std::begin(kCheckedElsewhere), std::end(kCheckedElsewhere));
  for (const Case& c : Cases()) covered.insert(c.op);
  std::vector<std::string> missing;
  for (const OpDef* op : OpRegistry::Global().All()) {
    const GradientDef* gradient = FindGradient(*op);
    const bool differentiable = gradient != nullptr && gradient->fn != nullptr;
    // Differentiable ops: gradient_coverage_test requires a DUET_GRADIENT_TEST, which runs its
    // function as a graph too.
    if (!differentiable && !covered.count(op->name)) missing.push_back(op->name);
  }
  INFO("ops without an eager-vs-graph case: " << absl::StrJoin(missing, ", "));
  CHECK(missing.empty());
}

}  // namespace
}  // namespace duet
