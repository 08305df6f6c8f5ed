// _FusedElementwise's CPU kernel against the unfused ops, bit for bit: every op a program may hold,
// with full and scalar operands, in float32 and float64, on sizes that end mid-vector, span tiles
// and split across threads; multi-instruction programs with shared values; GraphDefs with fused
// nodes, well-formed (round trip) and malformed (a clear error naming the node).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>

#include "duet.h"
#include "google/protobuf/text_format.h"
#include "ops/math/elementwise_program.h"
#include "ops/math/fused_elementwise_op.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Values where the ops' edge cases live (signed zeros, NaN, infinities, 0 and 6 for Relu6, tiny
// and huge magnitudes), then a spread of ordinary ones.
std::vector<double> Values(int64_t n, int64_t shift) {
  static const std::vector<double> kEdges = {-kInf, -1e30,  -100, -6.5, -6,    -2.5, -1,
                                             -0.5,  -1e-30, -0.0, 0.0,  1e-30, 0.5,  1,
                                             2.5,   6,      6.5,  100,  1e30,  kInf, kNan};
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = i + shift;
    v[i] = k % 3 == 0 ? kEdges[(k / 3) % kEdges.size()] : std::sin(0.37 * k) * (1 + k % 11);
  }
  return v;
}

// Equal bits, except that any NaN matches any NaN (payloads may differ with operand order).
void ExpectSameBits(const Tensor& actual, const Tensor& expected) {
  REQUIRE(actual.dtype() == expected.dtype());
  REQUIRE(actual.shape() == expected.shape());
  const std::vector<double> a = testing::ToDoubles(actual), e = testing::ToDoubles(expected);
  int mismatches = 0;
  for (size_t i = 0; i < a.size() && mismatches < 5; ++i) {
    const bool same =
        (std::isnan(a[i]) && std::isnan(e[i])) || std::memcmp(&a[i], &e[i], sizeof(double)) == 0;
    if (!same) {
      ++mismatches;
      FAIL_CHECK("element " << i << ": fused " << a[i] << ", unfused " << e[i]);
    }
  }
}

// The op as a node of its own.
Tensor Unfused(ElementwiseOpcode op, const std::vector<Tensor>& inputs) {
  OpCall call(OpRegistry::Global().Find(ElementwiseOpName(op)),
              TensorList(inputs.begin(), inputs.end()), OpSite());
  return RunSingleOutputOp(call);
}

std::vector<ElementwiseOpcode> AllOpcodes() {
  std::vector<ElementwiseOpcode> ops;
  for (int i = 0; i < kNumElementwiseOpcodes; ++i) ops.push_back(static_cast<ElementwiseOpcode>(i));
  return ops;
}

TEST_CASE("every op of a one-instruction program equals the op's own kernel, bit for bit") {
  for (DType dtype : {kFloat32, kFloat64}) {
    // 37: ends mid-vector; 5000: several tiles; 70001: split across the pool for every op.
    for (int64_t n : {int64_t{37}, int64_t{5000}, int64_t{70001}}) {
      const Tensor x = testing::MakeTensor(dtype, {n}, Values(n, 0));
      const Tensor y = testing::MakeTensor(dtype, {n}, Values(n, 7));
      for (ElementwiseOpcode op : AllOpcodes()) {
        const std::string name(ElementwiseOpName(op));
        INFO(name << " " << DTypeName(dtype) << " n=" << n);
        if (ElementwiseArity(op) == 1) {
          ExpectSameBits(fused_elementwise({x}, {name}, {0}), Unfused(op, {x}));
          continue;
        }
        ExpectSameBits(fused_elementwise({x, y}, {name}, {0, 1}), Unfused(op, {x, y}));
        ExpectSameBits(fused_elementwise({x}, {name}, {0, 0}), Unfused(op, {x, x}));
        if (op == ElementwiseOpcode::kReluGrad) continue;  // ReluGrad does not broadcast
        for (double s : {-2.5, -0.0, 0.0, 6.0, kNan, kInf}) {
          INFO("scalar " << s);
          const Tensor scalar = testing::MakeTensor(dtype, {}, {s});
          ExpectSameBits(fused_elementwise({x, scalar}, {name}, {0, 1}), Unfused(op, {x, scalar}));
          ExpectSameBits(fused_elementwise({scalar, y}, {name}, {0, 1}), Unfused(op, {scalar, y}));
        }
      }
    }
  }
}

// tanh(x * s + y), its max with x * s (a shared value), (t - m)^2 by Mul(d, d), sigmoid of that
// divided by y, minus exp(t) (a value of scalars only), with an unused Neg in the middle.
TEST_CASE("a program with shared values, repeated operands and scalar subexpressions") {
  for (DType dtype : {kFloat32, kFloat64}) {
    INFO(DTypeName(dtype));
    const int64_t n = 3001;
    const Tensor x = testing::MakeTensor(dtype, {n}, Values(n, 1));
    const Tensor y = testing::MakeTensor(dtype, {n}, Values(n, 4));
    const Tensor s = testing::MakeTensor(dtype, {}, {0.75});
    const Tensor t = testing::MakeTensor(dtype, {1}, {-2.0});
    // values: 0 x, 1 y, 2 s, 3 t, then the instructions from 4 on.
    const Tensor fused = fused_elementwise(
        {x, y, s, t},
        {"Mul", "AddV2", "Tanh", "Maximum", "Neg", "Sub", "Mul", "Sigmoid", "RealDiv", "Exp",
         "Sub"},
        {0, 2, /*5*/ 4, 1, /*6*/ 5, /*7*/ 6, 4, /*8*/ 7, /*9*/ 3, 7, /*10*/ 9, 9, /*11*/ 10,
         /*12*/ 11, 1, /*13*/ 3, /*14*/ 12, 13});
    const Tensor xs = x * s;
    const Tensor m = maximum(tanh(xs + y), xs);
    const Tensor d = t - m;
    const Tensor expected = sigmoid(d * d) / y - exp(t);
    ExpectSameBits(fused, expected);
  }
}

TEST_CASE("a long chain reuses two scratch tiles and stays exact") {
  const int64_t n = 4099;
  const Tensor x = testing::MakeTensor(kFloat64, {64, n / 64 + 1}, Values(64 * (n / 64 + 1), 2));
  const Tensor c = constant(0.97);
  std::vector<std::string> ops;
  std::vector<int64_t> operands;
  Tensor expected = x;
  int64_t last = 0;
  for (int k = 0; k < 60; ++k) {
    const int64_t value = 2 + k;
    if (k % 3 == 0) {
      ops.push_back("Mul");
      operands.insert(operands.end(), {last, 1});
      expected = expected * c;
    } else if (k % 3 == 1) {
      ops.push_back("AddV2");
      operands.insert(operands.end(), {last, 0});
      expected = expected + x;
    } else {
      ops.push_back("Tanh");
      operands.push_back(last);
      expected = tanh(expected);
    }
    last = value;
  }
  ExpectSameBits(fused_elementwise({x, c}, ops, operands), expected);
}

TEST_CASE("single-element inputs broadcast; programs of scalars give one element") {
  const Tensor x = testing::MakeTensor(kFloat32, {2, 3}, {1, -2, 3, -4, 5, -6});
  const Tensor one = testing::MakeTensor(kFloat32, {1, 1}, {0.5});
  const Tensor fused = fused_elementwise({x, one}, {"Mul", "Relu"}, {0, 1, 2});
  ExpectSameBits(fused, relu(x * one));
  const Tensor a = testing::MakeTensor(kFloat64, {1}, {0.3});
  const Tensor b = testing::MakeTensor(kFloat64, {1, 1}, {-1.5});
  const Tensor scalar = fused_elementwise({a, b}, {"AddV2", "Tanh"}, {0, 1, 2});
  CHECK(scalar.shape() == Shape({1, 1}));
  ExpectSameBits(scalar, tanh(a + b));
  const Tensor empty = testing::MakeTensor(kFloat32, {0, 3}, {});
  CHECK(fused_elementwise({empty, constant(2.f)}, {"Mul"}, {0, 1}).shape() == Shape({0, 3}));
}

// The kernel keeps compiled programs per thread (Note [Compiled program cache]): programs that
// differ only in an op, an operand or which inputs are single elements must not be confused, and
// more programs than the cache holds must come back right.
TEST_CASE("compiled programs are told apart by op, operand and input shape") {
  const Tensor x = testing::MakeTensor(kFloat64, {9}, Values(9, 3));
  const Tensor y = testing::MakeTensor(kFloat64, {9}, Values(9, 5));
  const Tensor s = testing::MakeTensor(kFloat64, {}, {1.25});
  const std::vector<std::string> binary = {"AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum"};
  for (int round = 0; round < 2; ++round) {
    for (const std::string& op : binary) {
      INFO(op << " round " << round);
      const ElementwiseOpcode code = *ElementwiseOpcodeOf(op);
      ExpectSameBits(fused_elementwise({x, y}, {op, "Neg"}, {0, 1, 2}),
                     negative(Unfused(code, {x, y})));
      ExpectSameBits(fused_elementwise({x, y}, {op, "Neg"}, {1, 0, 2}),
                     negative(Unfused(code, {y, x})));
      ExpectSameBits(fused_elementwise({x, s}, {op, "Neg"}, {0, 1, 2}),
                     negative(Unfused(code, {x, s})));
      ExpectSameBits(fused_elementwise({s, x}, {op, "Neg"}, {0, 1, 2}),
                     negative(Unfused(code, {s, x})));
    }
  }
}

TEST_CASE("a GraphDef with a fused node round-trips and runs") {
  Graph g;
  Tensor x, out;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {2, 3}, "x");
    out = fused_elementwise({x, constant(2.f)}, {"Mul", "Tanh"}, {0, 1, 2}, OpSite("out"));
  }
  Graph back = Graph::from_graph_def(g.to_graph_def());
  const Tensor input = testing::MakeTensor(kFloat32, {2, 3}, {1, -2, 3, -4, 5, -6});
  Session session(back, SessionOptions{.optimize = false});
  ExpectSameBits(session.run({{"x", input}}, {"out"})[0], tanh(input * 2.f));
}

// A fused node read from a file, with `ops` and `operands` as given.
tensorflow::GraphDef FusedGraphDef(const std::string& ops, const std::string& operands) {
  tensorflow::GraphDef def;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(
      R"(
    node { name: "x" op: "Placeholder"
           attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: 3 } } } } }
    node { name: "fused" op: "_FusedElementwise" input: "x" input: "x"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "N" value { i: 2 } }
           attr { key: "ops" value { list { )" +
          ops + R"( } } }
           attr { key: "operands" value { list { )" +
          operands + R"( } } } }
  )",
      &def));
  return def;
}

TEST_CASE("malformed programs in a GraphDef are errors naming the node, never crashes") {
  CHECK_NOTHROW(Graph::from_graph_def(FusedGraphDef(R"(s: "Mul" s: "Neg")", "i: 0 i: 1 i: 2")));
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> cases = {
      {{R"(s: "Mul")", "i: 0 i: 7"}, {"instruction 0 (Mul) reads value 7"}},
      {{R"(s: "Mul")", "i: 0 i: -1"}, {"reads value -1"}},
      {{R"(s: "Neg" s: "Neg")", "i: 3 i: 0"}, {"instruction 0 (Neg) reads value 3"}},
      {{R"(s: "Frobnicate")", "i: 0"}, {"instruction 0 names op 'Frobnicate'", "AddV2"}},
      {{R"(s: "Mul")", "i: 0"}, {"too few for instruction 0 (Mul, 2 operands)"}},
      {{R"(s: "Neg")", "i: 0 i: 1"}, {"operands has 2 entries", "take 1"}},
      {{"", ""}, {"the program (attr ops) is empty"}},
  };
  for (const auto& [attrs, words] : cases) {
    INFO(attrs[0] << " / " << attrs[1]);
    std::vector<std::string> expected = words;
    expected.push_back("'fused'");
    expected.push_back("_FusedElementwise");
    testing::ExpectError([&] { Graph::from_graph_def(FusedGraphDef(attrs[0], attrs[1])); },
                         expected);
  }
}

TEST_CASE("inputs that only a run shows to broadcast otherwise are an error") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, Shape::UnknownRank(), "x");
    Tensor y = placeholder(kFloat32, Shape::UnknownRank(), "y");
    fused_elementwise({x, y}, {"AddV2"}, {0, 1}, OpSite("sum"));
  }
  Session session(g, SessionOptions{.optimize = false});
  testing::ExpectError(
      [&] {
        session.run({{"x", testing::MakeTensor(kFloat32, {2, 2}, {1, 2, 3, 4})},
                     {"y", testing::MakeTensor(kFloat32, {2}, {1, 2})}},
                    {"sum"});
      },
      {"_FusedElementwise", "every input must hold a single element or have the output's shape"});
}

}  // namespace
}  // namespace duet
