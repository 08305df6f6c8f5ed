// The duet command line on a graph written to disk: inspect (text and --dot, also of a graph
// using ops duet lacks), run with .npy inputs and outputs (also of a traced function from
// export_graph), bench, optimize with its options, ops, and their errors.
#include "tools/duet_cli.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/str_split.h"
#include "core/thread_pool.h"
#include "duet.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet {
namespace {

struct CliResult {
  int code;
  std::string out, err;
};

CliResult Cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = RunCli(args, out, err);
  return {code, out.str(), err.str()};
}

// model.pb: y = relu(x · [[1, -1], [2, 0.5]]) with x: float32 [-1, 2].
const char* WriteModel() {
  Graph g;
  {
    GraphScope scope(g);
    relu(matmul(placeholder(kFloat32, {-1, 2}, "x"), constant({{1.f, -1.f}, {2.f, 0.5f}})), "y");
  }
  write_graph(g, "duet_cli_test_model.pb");
  return "duet_cli_test_model.pb";
}

TEST_CASE("inspect lists nodes, ops, dtypes and shapes") {
  const CliResult r = Cli({"inspect", WriteModel()});
  CHECK(r.code == 0);
  CHECK(r.out.find("4 nodes") != std::string::npos);
  CHECK(r.out.find("MatMul x1") != std::string::npos);
  CHECK(r.out.find("y = Relu(MatMul) -> float32 (None, 2)") != std::string::npos);
  CHECK(r.out.find("x = Placeholder(-) -> float32 (None, 2)") != std::string::npos);
  const CliResult dot = Cli({"inspect", WriteModel(), "--dot"});
  CHECK(dot.code == 0);
  CHECK(dot.out.find("digraph") == 0);
  CHECK(dot.out.find("label=\"float32 (None, 2)\"") != std::string::npos);
}

// missing.pb: x -> FrobnicateV9 (twice) -> Relu: a graph duet cannot import.
const char* WriteMissingOpModel() {
  Graph g;
  {
    GraphScope scope(g);
    placeholder(kFloat32, {-1, 2}, "x");
  }
  tensorflow::GraphDef def = g.to_graph_def();
  for (const char* name : {"a", "b"}) {
    tensorflow::NodeDef* node = def.add_node();
    node->set_name(name);
    node->set_op("FrobnicateV9");
    node->add_input("x");
  }
  std::ofstream("duet_cli_test_missing.pb", std::ios::binary) << def.SerializeAsString();
  return "duet_cli_test_missing.pb";
}

TEST_CASE("inspect lists the ops of a graph it cannot import, marking the missing ones") {
  const char* model = WriteMissingOpModel();
  CliResult r = Cli({"inspect", model});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("3 nodes, not imported") != std::string::npos);
  CHECK(r.out.find("FrobnicateV9 x2 (missing)") != std::string::npos);
  CHECK(r.out.find("Placeholder x1\n") != std::string::npos);
  CHECK(r.out.find("Placeholder x1 (missing)") == std::string::npos);
  CHECK(r.out.find("the graph uses 1 op duet does not have: FrobnicateV9 (nodes a, b)") !=
        std::string::npos);
  r = Cli({"inspect", model, "--dot"});
  CHECK(r.code == 1);
  CHECK(r.err.find("FrobnicateV9 (nodes a, b)") != std::string::npos);
  // run and bench fail with the same one error.
  REQUIRE(WriteNpy(constant({{1.f, 2.f}}), "duet_cli_test_x.npy").ok());
  for (const char* command : {"run", "bench"}) {
    r = Cli({command, model, "--input", "x=duet_cli_test_x.npy", "--output", "a"});
    CHECK(r.code == 1);
    CHECK(r.err.find("duet_cli_test_missing.pb: the graph uses 1 op duet does not have: "
                     "FrobnicateV9 (nodes a, b)") != std::string::npos);
  }
  std::remove("duet_cli_test_x.npy");
  std::remove(model);
}

TEST_CASE("run feeds .npy inputs and writes or prints the outputs") {
  const char* model = WriteModel();
  REQUIRE(WriteNpy(constant({{1.f, 2.f}, {-3.f, 1.f}}), "duet_cli_test_x.npy").ok());
  CliResult r = Cli({"run", model, "--input", "x=duet_cli_test_x.npy", "--output", "y", "--out",
                     "duet_cli_test_y.npy"});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  absl::StatusOr<Tensor> y = ReadNpy("duet_cli_test_y.npy");
  REQUIRE(y.ok());
  testing::ExpectTensor(*y, kFloat32, {2, 2}, {5, 0, 0, 3.5});
  r = Cli({"run", model, "--input", "x=duet_cli_test_x.npy", "--output", "y:0"});
  CHECK(r.code == 0);
  CHECK(r.out.find("y:0 = ") == 0);
  CHECK(r.out.find("3.5") != std::string::npos);
  std::remove("duet_cli_test_x.npy");
  std::remove("duet_cli_test_y.npy");
}

TEST_CASE("run runs a traced function written by export_graph, variables frozen in") {
  Variable w(random_normal({3, 2}, 1), "w"), b(random_normal({2}, 2), "b");
  auto f = duet::function([&](const Tensor& x) { return relu(matmul(x, w) + b); });
  const Tensor x = random_normal({4, 3}, 3);
  f.export_graph("duet_cli_test_traced.pb", x);
  REQUIRE(WriteNpy(x, "duet_cli_test_traced_x.npy").ok());
  const CliResult r =
      Cli({"run", "duet_cli_test_traced.pb", "--input", "arg0=duet_cli_test_traced_x.npy",
           "--output", "output_0", "--out", "duet_cli_test_traced_y.npy"});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  absl::StatusOr<Tensor> y = ReadNpy("duet_cli_test_traced_y.npy");
  REQUIRE(y.ok());
  testing::ExpectTensorNear(*y, f(x), 1e-6);
  testing::ExpectError([&] { f.export_graph("no_such_dir/f.pb", x); }, {"no_such_dir/f.pb"});
}

TEST_CASE("bench prints load, first-run and latency percentiles as name, value, unit") {
  const char* model = WriteModel();
  REQUIRE(WriteNpy(constant({{1.f, 2.f}, {-3.f, 1.f}}), "duet_cli_test_x.npy").ok());
  CliResult r = Cli({"bench", model, "--input", "x=duet_cli_test_x.npy", "--output", "y", "--runs",
                     "3", "--threads", "1"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  // Only the format: timings are never checked in tests.
  std::vector<std::string> names;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const std::vector<std::string> fields = absl::StrSplit(line, '\t');
    REQUIRE(fields.size() == (fields[0] == "model" ? 2u : 3u));
    names.push_back(fields[0]);
    if (fields.size() == 3)
      CHECK(fields[2] == (fields[0] == "threads" || fields[0] == "runs" ? fields[0] : "ms"));
  }
  CHECK(names == std::vector<std::string>{"model", "threads", "load", "first_run", "runs", "min",
                                          "p50", "p90", "p99", "max", "mean"});
  CHECK(r.out.find("threads\t1\tthreads\n") != std::string::npos);
  CHECK(r.out.find("runs\t3\truns\n") != std::string::npos);
  CHECK(ThreadPool::Intra().num_threads() == ThreadPool::Intra().max_threads());  // restored
  CHECK(Cli({"bench", model, "--input", "x=duet_cli_test_x.npy", "--output", "y"}).code == 0);
  CHECK(Cli({"bench", model, "--output", "y", "--runs", "0"}).code == 2);
  CHECK(Cli({"bench", model, "--output", "y", "--threads", "two"}).code == 2);
  CHECK(Cli({"bench", model, "--output", "y", "--out", "y.npy"}).code == 2);
  CHECK(Cli({"run", model, "--output", "y", "--runs", "3"}).code == 2);
  r = Cli({"bench", model, "--output", "y", "--runs", "2"});
  CHECK(r.code == 1);
  CHECK(r.err.find("must be fed") != std::string::npos);
  std::remove("duet_cli_test_x.npy");
}

TEST_CASE("ops lists the registered ops, --opdefs their OpDefs") {
  CliResult r = Cli({"ops"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("\nMatMul\n") != std::string::npos);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == OpRegistry::Global().size());
  r = Cli({"ops", "--opdefs"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("name: \"MatMul\"") != std::string::npos);
  CHECK(r.out.find("name: \"transpose_a\"") != std::string::npos);
  CHECK(Cli({"ops", "--all"}).code == 2);
}

TEST_CASE("bad usage exits 2, failed commands exit 1 with the reason") {
  CHECK(Cli({}).code == 2);
  CHECK(Cli({"frobnicate"}).code == 2);
  CHECK(Cli({"inspect"}).code == 2);
  CHECK(Cli({"run", WriteModel(), "--input", "x"}).code == 2);
  CHECK(Cli({"run", WriteModel(), "--output"}).code == 2);
  CHECK(Cli({"run", WriteModel()}).code == 2);
  CliResult r = Cli({"inspect", "no_such_model.pb"});
  CHECK(r.code == 1);
  CHECK(r.err.find("cannot open 'no_such_model.pb'") != std::string::npos);
  r = Cli({"run", WriteModel(), "--output", "y"});
  CHECK(r.code == 1);
  CHECK(r.err.find("Placeholder node 'x'") != std::string::npos);
  CHECK(r.err.find("must be fed") != std::string::npos);
  r = Cli({"run", WriteModel(), "--input", "x=missing.npy", "--output", "y"});
  CHECK(r.code == 1);
  CHECK(r.err.find("missing.npy") != std::string::npos);
  std::remove("duet_cli_test_model.pb");
}

// layer.pb: y = relu(x · W + b) * 1 with x: [-1, 3] of `dtype`, and an unused branch.
const char* WriteLayer(DType dtype = kFloat32) {
  const Tensor w = cast(random_normal({3, 2}, 1), dtype), b = cast(random_normal({2}, 2), dtype);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(dtype, {-1, 3}, "x");
    Tensor h = bias_add(matmul(x, w), b, OpSite("h"));
    multiply(relu(h), cast(constant(1.f), dtype), OpSite("y"));
  }
  write_graph(g, "duet_cli_test_layer.pb");
  return "duet_cli_test_layer.pb";
}

Tensor RunLayer(const std::string& path) {
  Graph g = read_graph(path);
  return Session(g).run({{"x", constant({{1.f, 2.f, 3.f}, {-1.f, 0.5f, 2.f}})}}, {"y"})[0];
}

TEST_CASE("optimize writes the optimized graph and prints what each pass did") {
  const char* layer = WriteLayer();
  const CliResult r = Cli({"optimize", layer, "duet_cli_test_opt.pb"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("optimize: ") == 0);
  CHECK(r.out.find("simplify.mul_one = 1") != std::string::npos);
  CHECK(r.out.find("fusion.matmul_bias_relu = 1") != std::string::npos);
  CHECK(r.out.find("wrote duet_cli_test_opt.pb") != std::string::npos);
  const Graph optimized = read_graph("duet_cli_test_opt.pb");
  CHECK(optimized.FindNode("y")->op().name == "Identity");  // y * 1: the output keeps its name
  CHECK(optimized.FindNode("Relu")->op().name == "_FusedMatMul");
  testing::ExpectTensorNear(RunLayer("duet_cli_test_opt.pb"), RunLayer(layer), 1e-6);
  // Text in, text out.
  write_graph(read_graph(layer), "duet_cli_test_layer.pbtxt");
  CHECK(Cli({"optimize", "duet_cli_test_layer.pbtxt", "duet_cli_test_opt.pbtxt"}).code == 0);
  CHECK(read_graph("duet_cli_test_opt.pbtxt").FindNode("Relu")->op().name == "_FusedMatMul");
  for (const char* file :
       {"duet_cli_test_opt.pb", "duet_cli_test_layer.pbtxt", "duet_cli_test_opt.pbtxt"}) {
    std::remove(file);
  }
}

TEST_CASE("optimize --passes, --disable and --keep choose what runs and what stays") {
  const char* layer = WriteLayer();
  CliResult r = Cli({"optimize", layer, "duet_cli_test_opt.pb", "--passes=simplify,prune"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("simplify.mul_one = 1") != std::string::npos);
  CHECK(r.out.find("fusion") == std::string::npos);
  CHECK(read_graph("duet_cli_test_opt.pb").FindNode("y")->op().name == "Identity");
  r = Cli({"optimize", layer, "duet_cli_test_opt.pb", "--disable=fuse_bias_activation"});
  REQUIRE(r.code == 0);
  CHECK(read_graph("duet_cli_test_opt.pb").FindNode("h")->op().name == "BiasAdd");
  r = Cli({"optimize", layer, "duet_cli_test_opt.pb", "--keep=h"});
  REQUIRE(r.code == 0);
  const Graph kept = read_graph("duet_cli_test_opt.pb");
  CHECK(kept.FindNode("h")->op().name == "_FusedMatMul");  // fused up to the kept node
  CHECK(kept.FindNode("Relu")->op().name == "Relu");
  std::remove("duet_cli_test_opt.pb");
}

TEST_CASE("optimize --report lists the fusions that did not fire, --verify runs the check") {
  const char* layer = WriteLayer(kFloat64);
  CliResult r = Cli({"optimize", layer, "duet_cli_test_opt.pb"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("did not fire") == std::string::npos);
  r = Cli({"optimize", layer, "duet_cli_test_opt.pb", "--report", "--verify"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("fusions that did not fire") != std::string::npos);
  CHECK(r.out.find("dtype float64") != std::string::npos);
  CHECK(r.out.find("verify: outputs agree") != std::string::npos);
  r = Cli({"optimize", WriteLayer(), "duet_cli_test_opt.pb", "--report"});
  CHECK(r.out.find("every fusion candidate fused") != std::string::npos);
  std::remove("duet_cli_test_opt.pb");
}

TEST_CASE("optimize: unknown passes and options are usage errors, bad files and nodes fail") {
  const char* layer = WriteLayer();
  CliResult r = Cli({"optimize", layer, "duet_cli_test_opt.pb", "--passes=simplify,nope"});
  CHECK(r.code == 2);
  CHECK(r.err.find("no pass named 'nope'") != std::string::npos);
  CHECK(r.err.find("constant_folding") != std::string::npos);  // the list of passes
  CHECK(Cli({"optimize", layer, "duet_cli_test_opt.pb", "--disable=fold"}).code == 2);
  CHECK(Cli({"optimize", layer, "duet_cli_test_opt.pb", "--passes"}).code == 2);
  CHECK(Cli({"optimize", layer, "duet_cli_test_opt.pb", "--fast"}).code == 2);
  CHECK(Cli({"optimize", layer}).code == 2);
  r = Cli({"optimize", layer, "duet_cli_test_opt.pb", "--keep=nowhere"});
  CHECK(r.code == 1);
  CHECK(r.err.find("--keep names 'nowhere'") != std::string::npos);
  r = Cli({"optimize", "no_such_model.pb", "duet_cli_test_opt.pb"});
  CHECK(r.code == 1);
  CHECK(r.err.find("cannot open 'no_such_model.pb'") != std::string::npos);
  r = Cli({"optimize", layer, "no_such_dir/out.pb"});
  CHECK(r.code == 1);
  CHECK(r.err.find("no_such_dir/out.pb") != std::string::npos);
  std::remove("duet_cli_test_layer.pb");
}

}  // namespace
}  // namespace duet

namespace duet {
namespace {

TEST_CASE("inspect and run take a SavedModel directory (Keras' export)") {
  const std::string dir = "tests/interop/testdata/keras_saved_models/mlp";
  CliResult r = Cli({"inspect", dir + "/model"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out,
             Catch::Contains("SavedModel") && Catch::Contains("signature 'serving_default'") &&
                 Catch::Contains("input  keras_tensor: float32") &&
                 Catch::Contains("output output_0: float32") && Catch::Contains("VarHandleOp"));
  r = Cli({"run", dir + "/model", "--input", "keras_tensor=" + dir + "/x.npy", "--output",
           "output_0", "--out", "duet_cli_test_saved_model_y.npy"});
  REQUIRE(r.code == 0);
  testing::ExpectTensorNear(ValueOrThrow(ReadNpy("duet_cli_test_saved_model_y.npy")),
                            ValueOrThrow(ReadNpy(dir + "/y.npy")), 1e-5);
  r = Cli({"run", dir + "/model", "--input", "x=" + dir + "/x.npy", "--output", "output_0"});
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("no input 'x'") && Catch::Contains("keras_tensor"));
  r = Cli({"run", dir + "/model", "--input", "keras_tensor=" + dir + "/x.npy", "--output",
           "output_0", "--signature", "predict"});
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("no signature 'predict'"));
}

}  // namespace
}  // namespace duet
