// GraphDef export and import: TensorFlow's layout on the way out, full validation on the way in
// (every malformed graph is a clear error naming the node), files in binary and text form.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "duet.h"
#include "google/protobuf/text_format.h"
#include "tests/test_util.h"

namespace duet {
namespace {

tensorflow::GraphDef ParseText(const std::string& text) {
  tensorflow::GraphDef def;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &def));
  return def;
}

// A placeholder x: float32 [-1, 2] and nodes in text format after it.
tensorflow::GraphDef WithInput(const std::string& nodes) {
  return ParseText(R"(
    node { name: "x" op: "Placeholder"
           attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
  )" + nodes);
}

void ExpectImportError(const tensorflow::GraphDef& def, const std::vector<std::string>& words) {
  testing::ExpectError([&] { Graph::from_graph_def(def); }, words);
}

TEST_CASE("export writes TensorFlow's ops, inputs and non-default attrs") {
  Graph g;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kFloat32, {-1, 2}, "x");
    const Tensor w = constant({{1.f, 2.f}, {3.f, 4.f}});
    const Tensor y = matmul(x, w, /*transpose_a=*/false, /*transpose_b=*/true, "y");
    ControlDependencies deps({y});
    relu(y, "act");
  }
  const tensorflow::GraphDef def = g.to_graph_def();
  CHECK(def.versions().producer() > 21);
  REQUIRE(def.node_size() == 4);
  const tensorflow::NodeDef& y = def.node(2);
  CHECK(y.name() == "y");
  CHECK(y.op() == "MatMul");
  REQUIRE(y.input_size() == 2);
  CHECK(y.input(0) == "x");
  CHECK(y.input(1) == "Const");
  CHECK(y.attr().at("T").type() == tensorflow::DT_FLOAT);
  CHECK(y.attr().at("transpose_b").b());
  CHECK(y.attr().count("transpose_a") == 0);  // default false: left for TensorFlow to fill in
  const tensorflow::NodeDef& act = def.node(3);
  REQUIRE(act.input_size() == 2);
  CHECK(act.input(1) == "^y");
  const tensorflow::NodeDef& w = def.node(1);
  CHECK(w.op() == "Const");
  CHECK(w.attr().at("value").tensor().tensor_shape().dim_size() == 2);
}

TEST_CASE("a graph survives export and import and runs the same") {
  const Tensor w1 = random_normal({4, 8}, 1), b1 = random_normal({8}, 2);
  Graph g;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kFloat32, {-1, 4}, "x");
    const Tensor h = relu(bias_add(matmul(x, w1), b1));
    reduce_mean(softmax(h), {1}, /*keep_dims=*/false, "y");
  }
  Graph back = Graph::from_graph_def(g.to_graph_def());
  CHECK(back.num_nodes() == g.num_nodes());
  CHECK(back.FindNode("y")->output_shape(0) == Shape({-1}));
  const Tensor batch = random_normal({3, 4}, 3);
  Session a(g), b(back);
  testing::ExpectTensorNear(b.run({{"x", batch}}, {"y"})[0], a.run({{"x", batch}}, {"y"})[0], 0);
}

TEST_CASE("write_graph and read_graph, binary and text") {
  Graph g;
  {
    GraphScope scope(g);
    add(placeholder(kFloat32, {2}, "x"), constant({1.f, 2.f}), "y");
  }
  for (const std::string path : {"graph_def_test.pb", "graph_def_test.pbtxt"}) {
    INFO(path);
    write_graph(g, path);
    Graph back = read_graph(path);
    Session sess(back);
    testing::ExpectTensor(sess.run({{"x", constant({10.f, 20.f})}}, {"y"})[0], kFloat32, {2},
                          {11, 22});
    std::remove(path.c_str());
  }
  std::ifstream text("graph_def_test.pbtxt");
  CHECK_FALSE(text.good());
}

TEST_CASE("reading a missing file or bytes that are not a GraphDef is a clear error") {
  testing::ExpectError([] { read_graph("no/such/graph.pb"); }, {"cannot open", "no/such/graph.pb"});
  {
    std::ofstream junk("graph_def_test_junk.pb", std::ios::binary);
    junk << "\xff\xff\xff garbage";
  }
  testing::ExpectError([] { read_graph("graph_def_test_junk.pb"); }, {"not a GraphDef"});
  std::remove("graph_def_test_junk.pb");
}

TEST_CASE("import accepts any node order and fills attr defaults") {
  const tensorflow::GraphDef def = ParseText(R"(
    node { name: "y" op: "MatMul" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "transpose_b" value { b: true } } }
    node { name: "x" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 }
                  dim { size: 2 } } float_val: 1 float_val: 2 } } } }
  )");
  Graph g = Graph::from_graph_def(def);
  Session sess(g);
  testing::ExpectTensor(sess.run({}, {"y"})[0], kFloat32, {1, 1}, {5});
}

TEST_CASE("TensorFlow's _FusedMatMul imports, runs and exports with its fused_ops") {
  // As TensorFlow's grappler writes it (num_args and epsilon explicit).
  const tensorflow::GraphDef def = WithInput(R"(
    node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 }
                  dim { size: 3 } } float_val: 1 float_val: -2 float_val: 3 float_val: -4
                  float_val: 5 float_val: -6 } } } }
    node { name: "b" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } }
                  float_val: 0.5 float_val: -1 float_val: 2 } } } }
    node { name: "y" op: "_FusedMatMul" input: "x" input: "w" input: "b"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "num_args" value { i: 1 } }
           attr { key: "fused_ops" value { list { s: "BiasAdd" s: "Relu" } } }
           attr { key: "epsilon" value { f: 0 } } }
  )");
  Graph g = Graph::from_graph_def(def);
  Session sess(g);
  // [1, 2] x w = [-7, 8, -9]; + b = [-6.5, 7, -7]; Relu.
  testing::ExpectTensor(sess.run({{"x", constant({{1.f, 2.f}})}}, {"y"})[0], kFloat32, {1, 3},
                        {0, 7, 0});
  const tensorflow::GraphDef back = g.to_graph_def();
  const tensorflow::NodeDef* y = nullptr;
  for (const tensorflow::NodeDef& node : back.node()) {
    if (node.name() == "y") y = &node;
  }
  REQUIRE(y != nullptr);
  CHECK(y->op() == "_FusedMatMul");
  CHECK(y->input_size() == 3);
  CHECK(y->attr().at("num_args").i() == 1);
  const auto& fused_ops = y->attr().at("fused_ops").list().s();
  CHECK(std::vector<std::string>(fused_ops.begin(), fused_ops.end()) ==
        std::vector<std::string>{"BiasAdd", "Relu"});
}

TEST_CASE("import names every op duet lacks, with its nodes, in one error before importing") {
  // Made-up ops (none may ever be registered), one also in a library function; the malformed Relu
  // (no input) is never reached: the scan comes first.
  std::string nodes = R"(
    library { function {
      signature { name: "f" input_arg { name: "a" type: DT_FLOAT }
                  output_arg { name: "o" type: DT_FLOAT } }
      node_def { name: "e" op: "ErfcV9" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "o" value: "e:y:0" } } }
    node { name: "gelu/ErfcV9" op: "ErfcV9" input: "x" }
    node { name: "r" op: "Relu" }
  )";
  for (int i = 0; i < 7; ++i) {
    nodes += absl::StrCat(R"(node { name: "s)", i, R"(" op: "StridedSliceV9" input: "x" })");
  }
  const tensorflow::GraphDef def = WithInput(nodes);
  const std::vector<MissingOp> missing = MissingOps(def);
  REQUIRE(missing.size() == 2);
  CHECK(missing[0].op == "ErfcV9");
  CHECK(missing[0].nodes == std::vector<std::string>{"gelu/ErfcV9", "e (function f)"});
  CHECK(missing[1].op == "StridedSliceV9");
  CHECK(missing[1].nodes.size() == 7);
  ExpectImportError(def,
                    {"the graph uses 2 ops duet does not have: ErfcV9 (nodes gelu/ErfcV9, e "
                     "(function f)), StridedSliceV9 (nodes s0, s1, s2, s3, s4, ... 7 in all)"});
  CHECK(MissingOps(WithInput("")).empty());
  // Reading a file says which file.
  {
    std::ofstream file("graph_def_test_missing.pb", std::ios::binary);
    file << def.SerializeAsString();
  }
  testing::ExpectError([] { read_graph("graph_def_test_missing.pb"); },
                       {"graph_def_test_missing.pb: the graph uses 2 ops"});
  absl::StatusOr<tensorflow::GraphDef> read = TryReadGraphDef("graph_def_test_missing.pb");
  REQUIRE(read.ok());
  CHECK(read->node_size() == def.node_size());
  CHECK(!TryReadGraphDef("no/such/graph.pb").ok());
  std::remove("graph_def_test_missing.pb");
}

TEST_CASE("import rejects malformed graphs, naming the node") {
  SECTION("unknown op") {
    ExpectImportError(WithInput(R"(node { name: "n" op: "FrobnicateV9" input: "x" })"),
                      {"the graph uses 1 op duet does not have: FrobnicateV9 (node n)"});
  }
  SECTION("missing required attr") {
    ExpectImportError(ParseText(R"(node { name: "p" op: "Placeholder" })"),
                      {"node 'p'", "attr 'dtype' is required"});
  }
  SECTION("ill-typed attr") {
    ExpectImportError(
        WithInput(R"(node { name: "n" op: "Relu" input: "x" attr { key: "T" value { i: 3 } } })"),
        {"node 'n'", "attr 'T'"});
  }
  SECTION("unknown attr (internal _attrs are allowed)") {
    ExpectImportError(WithInput(R"(node { name: "n" op: "Relu" input: "x"
                                          attr { key: "alpha" value { f: 1 } } })"),
                      {"node 'n'", "no attr 'alpha'"});
    Graph::from_graph_def(WithInput(R"(node { name: "n" op: "Relu" input: "x"
                                             attr { key: "_class" value { s: "loc:@x" } } })"));
  }
  SECTION("dangling input, bad output index, malformed reference") {
    ExpectImportError(WithInput(R"(node { name: "n" op: "Relu" input: "nope" })"),
                      {"node 'n'", "'nope' names no node"});
    ExpectImportError(WithInput(R"(node { name: "n" op: "Relu" input: "x:3" })"),
                      {"node 'n'", "x:3", "1 outputs"});
    ExpectImportError(WithInput(R"(node { name: "n" op: "Relu" input: "x:-1" })"),
                      {"node 'n'", "bad output index"});
    ExpectImportError(WithInput(R"(node { name: "n" op: "Relu" input: "" })"),
                      {"node 'n'", "not a node name"});
  }
  SECTION("wrong number of inputs") {
    ExpectImportError(WithInput(R"(node { name: "n" op: "AddV2" input: "x" })"),
                      {"node 'n'", "AddV2", "only 1 inputs"});
  }
  SECTION("duplicate names and invalid names") {
    ExpectImportError(WithInput(R"(node { name: "x" op: "Relu" input: "x" })"),
                      {"node 'x'", "more than one node"});
    ExpectImportError(WithInput(R"(node { name: "_bad" op: "Relu" input: "x" })"),
                      {"invalid name '_bad'"});
  }
  SECTION("cycles") {
    ExpectImportError(WithInput(R"(node { name: "a" op: "AddV2" input: "x" input: "b" }
                                   node { name: "b" op: "Relu" input: "a" })"),
                      {"cycle"});
  }
  SECTION("dtype conflicts") {
    ExpectImportError(WithInput(R"(node { name: "n" op: "Relu" input: "x"
                                          attr { key: "T" value { type: DT_DOUBLE } } })"),
                      {"node 'n'", "attr 'T' is float64", "float32"});
    ExpectImportError(WithInput(R"(node { name: "i" op: "Const"
                                          attr { key: "dtype" value { type: DT_INT32 } }
                                          attr { key: "value" value { tensor { dtype: DT_INT32
                                                 int_val: 1 } } } }
                                   node { name: "n" op: "AddV2" input: "x" input: "i" })"),
                      {"node 'n'", "int32", "float32"});
    ExpectImportError(ParseText(R"(node { name: "c" op: "Const"
                                          attr { key: "dtype" value { type: DT_INT32 } }
                                          attr { key: "value" value { tensor { dtype: DT_FLOAT
                                                 float_val: 1 } } } })"),
                      {"node 'c'", "float32", "int32"});
  }
  SECTION("shape conflicts") {
    ExpectImportError(WithInput(R"(node { name: "w" op: "Const"
                                          attr { key: "dtype" value { type: DT_FLOAT } }
                                          attr { key: "value" value { tensor { dtype: DT_FLOAT
                                                 tensor_shape { dim { size: 3 } dim { size: 1 } }
                                                 float_val: 1 } } } }
                                   node { name: "n" op: "MatMul" input: "x" input: "w" })"),
                      {"node 'n'", "MatMul", "(None, 2)", "(3, 1)"});
  }
  SECTION("a data input after a control input") {
    ExpectImportError(WithInput(R"(node { name: "n" op: "AddV2" input: "^x" input: "x"
                                          input: "x" })"),
                      {"node 'n'", "data input follows a control input"});
  }
  SECTION("custom gradients in the function library") {
    ExpectImportError(
        ParseText(R"(library { gradient { function_name: "f" gradient_func: "g" } })"),
        {"GradientDef"});
  }
  SECTION("a function that calls itself") {
    const std::string if_attrs = R"(
        attr { key: "Tcond" value { type: DT_BOOL } }
        attr { key: "Tin" value { list { type: DT_BOOL } } }
        attr { key: "Tout" value { list { type: DT_BOOL } } }
        attr { key: "then_branch" value { func { name: "f" } } }
        attr { key: "else_branch" value { func { name: "f" } } })";
    ExpectImportError(ParseText(R"(library { function {
                       signature { name: "f" input_arg { name: "a" type: DT_BOOL }
                                   output_arg { name: "o" type: DT_BOOL } }
                       node_def { name: "c" op: "StatelessIf" input: "a" input: "a" )" +
                                if_attrs + R"( }
                       ret { key: "o" value: "c:output:0" } } }
                     node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
                     node { name: "n" op: "StatelessIf" input: "p" input: "p" )" +
                                if_attrs + "}"),
                      {"node 'n'", "function 'f'", "calls itself"});
  }
  SECTION("a call of a function the library does not have") {
    ExpectImportError(
        ParseText(
            R"(node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
                     node { name: "n" op: "StatelessIf" input: "p"
                            attr { key: "Tcond" value { type: DT_BOOL } }
                            attr { key: "Tin" value { list { } } }
                            attr { key: "Tout" value { list { } } }
                            attr { key: "then_branch" value { func { name: "g" } } }
                            attr { key: "else_branch" value { func { name: "g" } } } })"),
        {"node 'n'", "function 'g' is not in the graph's function library"});
  }
}

}  // namespace
}  // namespace duet
