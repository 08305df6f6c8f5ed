// The duet command line on a graph written to disk: inspect (text and --dot), run with .npy
// inputs and outputs, and its errors.
#include "tools/duet_cli.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <sstream>

#include "duet.h"
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

}  // namespace
}  // namespace duet
