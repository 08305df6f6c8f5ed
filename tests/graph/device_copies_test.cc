// Graph placement and device boundaries (Note [Device boundaries]): nodes built in a DeviceScope
// carry the device, and InsertDeviceCopies copies values where they cross. Building graphs for a
// GPU needs none, so these run everywhere; running them needs one (tests/kernels/cuda/).
#include "graph/device_copies.h"

#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

int CountOp(const Graph& g, absl::string_view op) {
  int n = 0;
  for (const Node* node : g.nodes()) n += node->op().name == op;
  return n;
}

TEST_CASE("nodes made in a DeviceScope carry its device; CPU nodes keep an empty device") {
  Graph g;
  Tensor x, y, z;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {2, 2}, "x");
    {
      DeviceScope on_gpu("/gpu:0");
      y = matmul(x, x, false, false, "y");
    }
    z = relu(y, "z");  // outside the scope: runs where y is
  }
  CHECK(g.FindNode("x")->device().empty());
  CHECK(g.FindNode("y")->device() == "/device:GPU:0");
  CHECK(g.FindNode("z")->device() == "/device:GPU:0");
  CHECK(y.device() == Device::cuda(0));
  CHECK(Graph::from_graph_def(g.to_graph_def()).FindNode("y")->device() == "/device:GPU:0");
  // A copy keeps every node's placement (sessions and functions plan copies of graphs).
  const Graph copy = g.Copy();
  CHECK(copy.FindNode("y")->placement() == Device::cuda(0));
  CHECK(copy.FindNode("z")->placement() == Device::cuda(0));
  CHECK(copy.FindNode("x")->placement() == Device::cpu());
}

TEST_CASE("InsertDeviceCopies copies each crossing value once per device") {
  Graph g;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kFloat32, {2, 2}, "x");
    Tensor y;
    {
      DeviceScope on_gpu("/gpu:0");
      y = reshape(matmul(x, x), {4});  // matmul reads x twice on the GPU
    }
    reduce_sum(y, {0}, false, "total");  // on the GPU with y; its axis is a host input
    DeviceScope on_cpu("cpu:0");
    identity(y, "back");  // reads y on the CPU
  }
  const int before = g.num_nodes();
  REQUIRE(*InsertDeviceCopies(g) == 3);  // x twice (matmul) and y once (back)
  CHECK(g.num_nodes() == before + 2);    // one copy of x, one of y
  CHECK(CountOp(g, "DuetCopyToDevice") == 2);
  for (const Node* node : g.nodes()) {
    if (node->op().name != "DuetCopyToDevice") continue;
    const NodeOutput in = node->inputs()[0];
    if (in.node->name() == "x") {
      CHECK(node->device() == "/device:GPU:0");
    } else {
      CHECK(node->device().empty());  // the copy of y back to the CPU
    }
  }
  // Every edge now stays on one device, but for the copies themselves and host inputs.
  for (const Node* node : g.nodes()) {
    if (node->op().name == "DuetCopyToDevice" || node->name() == "total") continue;
    for (const NodeOutput& in : node->inputs()) {
      if (in.node->op().name == "Const" && node->op().name == "Reshape") continue;
      CHECK(in.node->placement() == node->placement());
    }
  }
  CHECK(*InsertDeviceCopies(g) == 0);  // nothing left to copy
}

TEST_CASE("a constant read on another device gets a twin there, not a copy per run") {
  Graph g;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kFloat32, {2}, "x");
    DeviceScope on_gpu("/gpu:0");
    identity(x, "on_gpu") * constant({2.f, 3.f});  // the constant's node is on the CPU
  }
  REQUIRE(*InsertDeviceCopies(g) == 2);
  CHECK(CountOp(g, "DuetCopyToDevice") == 1);  // x's
  int gpu_constants = 0;
  for (const Node* node : g.nodes()) {
    gpu_constants += node->op().name == "Const" && node->device() == "/device:GPU:0";
  }
  CHECK(gpu_constants == 1);
}

TEST_CASE("a graph placed on an absent GPU fails to run with a clear error") {
  if (num_gpus() > 0) return;  // runs on the GPU instead (tests/kernels/cuda/)
  Graph g;
  Tensor y;
  {
    GraphScope scope(g);
    DeviceScope on_gpu("/gpu:0");
    y = relu(constant({1.f, -1.f}), "r");
  }
  Session sess(g);
  testing::ExpectError([&] { sess.run({}, {y}); }, {"'r'", "/device:GPU:0", "not present"});
}

TEST_CASE("an unknown device string is rejected when a GraphDef is imported") {
  Graph g;
  {
    GraphScope scope(g);
    relu(constant({1.f}), "r");
  }
  tensorflow::GraphDef def = g.to_graph_def();
  for (auto& node : *def.mutable_node()) node.set_device("/device:TPU:0");
  testing::ExpectError([&] { Graph::from_graph_def(def); }, {"unknown device", "TPU"});
  for (auto& node : *def.mutable_node())
    node.set_device("/job:localhost/replica:0/task:0/device:CPU:0");
  CHECK(Graph::from_graph_def(def).FindNode("r")->placement() == Device::cpu());
}

}  // namespace
}  // namespace duet
