// Freezing variables into constants: same results without the variables, clear errors otherwise.
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

TEST_CASE("a frozen graph computes the same with constants instead of variables") {
  Variable w(constant({{1.f, 2.f}, {3.f, 4.f}}), "w"), b(constant({0.5f, -0.5f}), "b");
  Graph g;
  {
    GraphScope scope(g);
    relu(matmul(placeholder(kFloat32, {-1, 2}, "x"), w) + b, "y");
  }
  Graph frozen = freeze_variables(g);
  int variable_ops = 0;
  for (const Node* node : frozen.nodes()) {
    variable_ops += node->op().name == "VarHandleOp" || node->op().name == "ReadVariableOp";
  }
  CHECK(variable_ops == 0);
  REQUIRE(frozen.FindNode("ReadVariableOp") != nullptr);  // the read's name, now a Const
  CHECK(frozen.FindNode("ReadVariableOp")->op().name == "Const");
  const Tensor x = constant({{1.f, 1.f}});
  testing::ExpectTensor(Session(frozen).run({{"x", x}}, {"y"})[0], kFloat32, {1, 2}, {4.5, 5.5});
  // The value at freezing time: later assignments change the variable, not the frozen graph.
  w.assign(zeros({2, 2}));
  testing::ExpectTensor(Session(frozen).run({{"x", x}}, {"y"})[0], kFloat32, {1, 2}, {4.5, 5.5});
  testing::ExpectTensor(Session(g).run({{"x", x}}, {"y"})[0], kFloat32, {1, 2}, {0.5, 0});
}

TEST_CASE("a graph that assigns a variable cannot be frozen") {
  Variable v(constant(1.f), "v");
  Graph g;
  {
    GraphScope scope(g);
    v.assign_add(constant(1.f));
  }
  testing::ExpectError([&] { freeze_variables(g); },
                       {"cannot freeze", "AssignAddVariableOp", "'v'"});
}

}  // namespace
}  // namespace duet
