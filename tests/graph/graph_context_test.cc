// Graph building: op functions inside a GraphScope add nodes with inferred shapes, names and
// source lines, capture eager tensors and variables, and fail at the user's line.
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

TEST_CASE("op functions add nodes with inferred dtypes and partial shapes") {
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    CHECK_FALSE(executing_eagerly());
    x = placeholder(kFloat32, {-1, 784}, "x");
    y = relu(matmul(x, zeros({784, 10})));
  }
  CHECK(executing_eagerly());
  CHECK_FALSE(x.has_value());
  CHECK(x.shape() == Shape({-1, 784}));
  CHECK(y.dtype() == kFloat32);
  CHECK(y.shape() == Shape({-1, 10}));
  REQUIRE(g.num_nodes() == 4);  // x, Const (the captured zeros), MatMul, Relu
  const Node* relu_node = g.FindNode("Relu");
  REQUIRE(relu_node != nullptr);
  CHECK(relu_node->op().name == "Relu");
  REQUIRE(relu_node->inputs().size() == 1);
  CHECK(relu_node->inputs()[0].node->name() == "MatMul");
  CHECK(relu_node->inputs()[0].node->inputs()[1].node->op().name == "Const");
  CHECK(SymbolicOutput(y)->node == relu_node);
  CHECK(relu_node->source().find("graph_context_test.cc") != std::string::npos);
}

TEST_CASE("default names follow the op and are made unique; names and scopes override") {
  Graph g;
  GraphScope scope(g);
  const Tensor x = placeholder(kFloat32, {2}, "x");
  const Tensor a = reduce_sum(x), b = reduce_sum(x);
  Tensor c;
  {
    NameScope outer("layer");
    NameScope inner("dense");
    c = add(x, x, "out");
  }
  CHECK(SymbolicOutput(a)->node->name() == "Sum");
  CHECK(SymbolicOutput(b)->node->name() == "Sum_1");
  CHECK(SymbolicOutput(c)->node->name() == "layer/dense/out");
  CHECK(SymbolicOutput(add(x, x, "out"))->node->name() == "out");
  CHECK(SymbolicOutput(add(x, x, "out"))->node->name() == "out_1");
}

TEST_CASE("an eager tensor used twice becomes one Const node") {
  Graph g;
  GraphScope scope(g);
  const Tensor w = constant({1.f, 2.f});
  const Tensor x = placeholder(kFloat32, {2});
  add(x, w);
  multiply(x, w);
  int consts = 0;
  for (const Node* node : g.nodes()) consts += node->op().name == "Const";
  CHECK(consts == 1);
}

TEST_CASE("shape functions see constant values: reshape to a constant shape is static") {
  Graph g;
  GraphScope scope(g);
  const Tensor x = placeholder(kFloat32, {2, 6});
  CHECK(reshape(x, {3, 4}).shape() == Shape({3, 4}));
  CHECK(transpose(x, {1, 0}).shape() == Shape({6, 2}));
  // An unknown shape operand leaves the dims unknown.
  const Tensor shape = placeholder(kInt32, {2});
  CHECK(reshape(x, shape).shape() == Shape::Unknown(2));
}

TEST_CASE("shape and dtype errors are raised at the call, naming op, shapes and the line") {
  Graph g;
  GraphScope scope(g);
  const Tensor x = placeholder(kFloat32, {-1, 3}, "x");
  testing::ExpectError(
      [&] {
        matmul(x, placeholder(kFloat32, {4, 5}));
      },
      {"MatMul", "(None, 3)", "(4, 5)", "graph_context_test.cc"});
  testing::ExpectError([&] { add(x, placeholder(kFloat64, {3})); },
                       {"AddV2", "float64", "float32", "graph_context_test.cc"});
}

TEST_CASE("reading a symbolic tensor's value says why and points to cond/while_loop") {
  Graph g;
  GraphScope scope(g);
  const Tensor x = placeholder(kFloat32, {2});
  testing::ExpectError([&] { x.to_vector<float>(); },
                       {"symbolic tensor", "Session::run", "cond/while_loop"});
  testing::ExpectError([&] { x.item<float>(); }, {"symbolic tensor"});
}

TEST_CASE("placeholder outside a graph and symbolic tensors in eager ops are clear errors") {
  testing::ExpectError([] { placeholder(kFloat32, {2}); }, {"GraphScope"});
  Graph g;
  Tensor x;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {2});
  }
  testing::ExpectError([&] { add(x, x); }, {"symbolic graph tensor", "eager op"});
}

TEST_CASE("a tensor of another graph is rejected") {
  Graph g1, g2;
  Tensor x;
  {
    GraphScope scope(g1);
    x = placeholder(kFloat32, {2}, "x");
  }
  GraphScope scope(g2);
  testing::ExpectError([&] { relu(x); }, {"Relu", "'x'", "another graph"});
}

TEST_CASE("variables become VarHandleOp + ReadVariableOp nodes on the same state") {
  Variable w(constant({1.f, 2.f}), "w");
  Graph g;
  Tensor y;
  {
    GraphScope scope(g);
    y = w * 2.f;
    y = y + w;  // the handle is captured once
  }
  int handles = 0, reads = 0;
  for (const Node* node : g.nodes()) {
    handles += node->op().name == "VarHandleOp";
    reads += node->op().name == "ReadVariableOp";
  }
  CHECK(handles == 1);
  CHECK(reads == 2);
  REQUIRE(g.FindNode("w") != nullptr);
  CHECK(g.FindNode("w")->op().name == "VarHandleOp");
  CHECK(y.shape() == Shape({2}));
}

TEST_CASE("ControlDependencies add control inputs to the nodes made in scope") {
  Graph g;
  GraphScope scope(g);
  const Tensor x = placeholder(kFloat32, {2}, "x");
  const Tensor first = relu(x);
  Tensor second, third;
  {
    ControlDependencies deps({first});
    second = negative(x);
  }
  third = negative(x);
  const Node* with = SymbolicOutput(second)->node;
  REQUIRE(with->control_inputs().size() == 1);
  CHECK(with->control_inputs()[0] == SymbolicOutput(first)->node);
  CHECK(SymbolicOutput(third)->node->control_inputs().empty());
}

TEST_CASE("name scopes and control dependencies do nothing eagerly") {
  NameScope scope("ignored");
  ControlDependencies deps({});
  testing::ExpectTensor(add(constant(1.f), constant(2.f)), kFloat32, {}, {3});
}

}  // namespace
}  // namespace duet

namespace duet {
namespace {

TEST_CASE("a Variable made inside a GraphScope gets eager state; a symbolic start is an error") {
  Graph g;
  GraphScope scope(g);
  Variable v(constant({1.f, 2.f}), "made_in_scope");
  CHECK(g.num_nodes() == 0);  // nothing was added: the state was made eagerly
  const Tensor doubled = v * 2.f;
  Session sess(g);
  testing::ExpectTensor(sess.run({}, {doubled})[0], kFloat32, {2}, {2, 4});
  testing::ExpectError([] { Variable bad(placeholder(kFloat32, {2}), "bad"); },
                       {"Variable 'bad'", "symbolic graph tensor"});
}

TEST_CASE("stateful ops on one variable are ordered as the program made them") {
  Variable v(constant(0.f), "ordered");
  Graph g;
  Tensor before, after;
  {
    GraphScope scope(g);
    before = v.value();
    v.assign_add(constant(5.f));
    after = v.value();
  }
  Session sess(g);
  const std::vector<Tensor> out = sess.run({}, {before, after});
  CHECK(out[0].item<float>() == 0.f);
  CHECK(out[1].item<float>() == 5.f);
}

}  // namespace
}  // namespace duet
