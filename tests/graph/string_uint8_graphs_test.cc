// uint8 and string tensors in graphs: the ops that move them give the same values eagerly, inside
// duet::function and in a Session; string Consts and Placeholders round trip through GraphDef;
// ops without string kernels fail with a clear error.
#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "duet.h"
#include "google/protobuf/util/message_differencer.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using TensorFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// fn run eagerly, traced by duet::function and in a GraphScope graph run by a Session.
std::vector<std::vector<Tensor>> RunThreeWays(const TensorFn& fn,
                                              const std::vector<Tensor>& inputs) {
  std::vector<std::vector<Tensor>> results;
  results.push_back(fn(inputs));
  auto traced = duet::function([&](std::vector<Tensor> in) { return fn(in); });
  results.push_back(traced(inputs));
  Graph g;
  std::vector<Tensor> placeholders, outputs;
  {
    GraphScope scope(g);
    for (const Tensor& x : inputs) placeholders.push_back(placeholder(x.dtype(), x.shape()));
    outputs = fn(placeholders);
  }
  Session session(g);
  FeedList feeds;
  for (size_t i = 0; i < inputs.size(); ++i) feeds.push_back({placeholders[i], inputs[i]});
  results.push_back(session.run(feeds, std::vector<GraphTensor>(outputs.begin(), outputs.end())));
  return results;
}

// Every way of running fn gives `expected` (strings, compared element by element).
void ExpectStrings(const TensorFn& fn, const std::vector<Tensor>& inputs,
                   const std::vector<std::pair<Shape, std::vector<std::string>>>& expected) {
  const char* modes[] = {"eager", "traced", "session"};
  const auto results = RunThreeWays(fn, inputs);
  for (size_t m = 0; m < results.size(); ++m) {
    INFO(modes[m]);
    REQUIRE(results[m].size() == expected.size());
    for (size_t k = 0; k < expected.size(); ++k) {
      INFO("output " << k);
      CHECK(results[m][k].dtype() == kString);
      CHECK(results[m][k].shape() == expected[k].first);
      CHECK(results[m][k].to_vector<std::string>() == expected[k].second);
    }
  }
}

const std::string kNuls("\0a\0", 3);
const std::string kBig((1 << 20) + 3, 'B');  // over 1 MiB

Tensor Strings() { return from_vector<std::string>({"", kNuls, kBig, "d", "e", "f"}, {2, 3}); }

TEST_CASE("Identity, Reshape, Gather, Concat and Stack move strings in every mode") {
  ExpectStrings([](const std::vector<Tensor>& in) { return std::vector<Tensor>{identity(in[0])}; },
                {Strings()}, {{{2, 3}, {"", kNuls, kBig, "d", "e", "f"}}});
  ExpectStrings(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{reshape(in[0], {3, 2}), expand_dims(in[0], 0)};
      },
      {Strings()},
      {{{3, 2}, {"", kNuls, kBig, "d", "e", "f"}}, {{1, 2, 3}, {"", kNuls, kBig, "d", "e", "f"}}});
  // np.take(x, [2, 0, 2], axis=1) and np.take(x, [1], axis=0)
  ExpectStrings(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{gather(in[0], constant({2, 0, 2}), 1),
                                   gather(in[0], constant<int64_t>({1}), 0)};
      },
      {Strings()}, {{{2, 3}, {kBig, "", kBig, "f", "d", "f"}}, {{1, 3}, {"d", "e", "f"}}});
  // np.concatenate along both axes, np.stack
  const Tensor other = from_vector<std::string>({"x", "y"}, {2, 1});
  ExpectStrings(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{concat({in[0], in[1]}, 1), concat({in[0], in[0]}, 0),
                                   stack({in[1], in[1]}, 0)};
      },
      {Strings(), other},
      {{{2, 4}, {"", kNuls, kBig, "x", "d", "e", "f", "y"}},
       {{4, 3}, {"", kNuls, kBig, "d", "e", "f", "", kNuls, kBig, "d", "e", "f"}},
       {{2, 2, 1}, {"x", "y", "x", "y"}}});
}

TEST_CASE("A string op inside duet::function, with a string Const captured") {
  const Tensor table = constant({"zero", "one", "two"});
  auto lookup = duet::function([&](Tensor ids) { return gather(table, ids); });
  CHECK(lookup(constant({2, 0})).to_vector<std::string>() ==
        std::vector<std::string>{"two", "zero"});
  CHECK(lookup(constant({1, 1})).to_vector<std::string>() ==
        std::vector<std::string>{"one", "one"});
  CHECK(lookup.trace_count() == 1);
  CHECK(shape_of(table).to_vector<int32_t>() == std::vector<int32_t>{3});
}

TEST_CASE("A GraphDef with a string Const and a string Placeholder round trips and runs") {
  Graph g;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kString, {-1}, "records");
    const Tensor suffix = constant({std::string("tail\0", 5)});
    concat({x, suffix}, 0, "joined");
  }
  const tensorflow::GraphDef def = g.to_graph_def();
  const Graph h = Graph::from_graph_def(tensorflow::GraphDef(def));
  CHECK(google::protobuf::util::MessageDifferencer::Equals(h.to_graph_def(), def));
  bool found_const = false;
  for (const tensorflow::NodeDef& node : def.node()) {
    if (node.op() == "Placeholder") CHECK(node.attr().at("dtype").type() == tensorflow::DT_STRING);
    if (node.op() == "Const" && node.attr().at("dtype").type() == tensorflow::DT_STRING) {
      found_const = true;
      const tensorflow::TensorProto& value = node.attr().at("value").tensor();
      CHECK(value.dtype() == tensorflow::DT_STRING);
      REQUIRE(value.string_val_size() == 1);
      CHECK(value.string_val(0) == std::string("tail\0", 5));
    }
  }
  CHECK(found_const);
  Session session(h);
  const std::vector<Tensor> out =
      session.run({{"records", constant({"a", ""})}}, {GraphTensor("joined")});
  REQUIRE(out.size() == 1);
  CHECK(out[0].to_vector<std::string>() ==
        std::vector<std::string>{"a", "", std::string("tail\0", 5)});
}

TEST_CASE("Ops without string kernels say so, eagerly and in graphs") {
  const Tensor s = constant({"a", "b"});
  testing::ExpectError([&] { add(s, s); }, {"AddV2", "no kernel for string", "string (2,)"});
  testing::ExpectError([&] { cast(s, kFloat32); }, {"Cast", "no kernel for string"});
  testing::ExpectError([&] { transpose(s); }, {"Transpose", "no kernel for string"});
  testing::ExpectError([&] { s.gpu(); }, {"string"});
  Graph g;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kString, {2}, "x");
    testing::ExpectError([&] { add(x, x); }, {"AddV2", "no kernel for string"});
  }
  // The same op imported from a GraphDef: refused when the graph is read, not run.
  const tensorflow::GraphDef def = [] {
    tensorflow::GraphDef d;
    tensorflow::NodeDef* x = d.add_node();
    x->set_name("x");
    x->set_op("Placeholder");
    (*x->mutable_attr())["dtype"].set_type(tensorflow::DT_STRING);
    tensorflow::NodeDef* y = d.add_node();
    y->set_name("y");
    y->set_op("Neg");
    y->add_input("x");
    (*y->mutable_attr())["T"].set_type(tensorflow::DT_STRING);
    return d;
  }();
  testing::ExpectError([&] { Graph::from_graph_def(def); }, {"Neg", "no kernel for string"});
}

TEST_CASE("Strings and uint8 carry no gradient, as integers do") {
  const Tensor u = from_vector<uint8_t>({1, 2});
  const Tensor s = constant({"a", "b"});
  const Tensor x = constant({1.f, 2.f});
  GradientTape tape(/*persistent=*/true);
  tape.watch(u);
  tape.watch(s);
  tape.watch(x);
  const Tensor y = reduce_sum(x * cast(u, kFloat32));
  const Tensor picked = gather(s, constant({0}));
  const std::vector<Tensor> g = tape.gradient(y, {x, u});
  testing::ExpectTensor(g[0], kFloat32, {2}, {1, 2});
  CHECK_FALSE(g[1].defined());
  CHECK_FALSE(tape.gradient(y, {s})[0].defined());
  CHECK(picked.to_vector<std::string>() == std::vector<std::string>{"a"});
}

// Each op that takes uint8 gives the same values eagerly, traced and in a Session (the byte-based
// data movers, Cast both ways, Equal/NotEqual).
TEST_CASE("uint8 ops agree eagerly, traced and in a Session") {
  const Tensor img = from_vector<uint8_t>({0, 255, 7, 128, 1, 200}, {2, 3});
  const TensorFn fn = [](const std::vector<Tensor>& in) {
    const Tensor x = in[0];
    return std::vector<Tensor>{identity(x),
                               reshape(x, {3, 2}),
                               gather(x, constant({1, 0}), 0),
                               concat({x, x}, 1),
                               slice(x, {0, 1}, {2, 2}),
                               transpose(x),
                               expand_dims(x, 2),
                               squeeze(expand_dims(x, 0)),
                               stack({x, x}),
                               cast(x, kFloat32),
                               cast(cast(x, kInt64), kUInt8),
                               equal(x, from_vector<uint8_t>({255}, {1})),
                               not_equal(x, x)};
  };
  const std::vector<std::vector<double>> expected = {
      {0, 255, 7, 128, 1, 200},
      {0, 255, 7, 128, 1, 200},
      {128, 1, 200, 0, 255, 7},
      {0, 255, 7, 0, 255, 7, 128, 1, 200, 128, 1, 200},
      {255, 7, 1, 200},
      {0, 128, 255, 1, 7, 200},
      {0, 255, 7, 128, 1, 200},
      {0, 255, 7, 128, 1, 200},
      {0, 255, 7, 128, 1, 200, 0, 255, 7, 128, 1, 200},
      {0, 255, 7, 128, 1, 200},
      {0, 255, 7, 128, 1, 200},
      {0, 1, 0, 0, 0, 0},
      {0, 0, 0, 0, 0, 0}};
  const std::vector<Shape> shapes = {{2, 3}, {3, 2},    {2, 3}, {2, 6}, {2, 2}, {3, 2}, {2, 3, 1},
                                     {2, 3}, {2, 2, 3}, {2, 3}, {2, 3}, {2, 3}, {2, 3}};
  const std::vector<DType> dtypes = {kUInt8, kUInt8, kUInt8,   kUInt8, kUInt8, kUInt8, kUInt8,
                                     kUInt8, kUInt8, kFloat32, kUInt8, kBool,  kBool};
  const char* modes[] = {"eager", "traced", "session"};
  const auto results = RunThreeWays(fn, {img});
  for (size_t m = 0; m < results.size(); ++m) {
    INFO(modes[m]);
    REQUIRE(results[m].size() == expected.size());
    for (size_t k = 0; k < expected.size(); ++k) {
      INFO("output " << k);
      testing::ExpectTensor(results[m][k], dtypes[k], shapes[k], expected[k], 0);
    }
  }
}

TEST_CASE("A GraphDef with a uint8 Const and Placeholder round trips and runs") {
  Graph g;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kUInt8, {2}, "pixels");
    concat({x, from_vector<uint8_t>({9, 250})}, 0, "joined");
  }
  const tensorflow::GraphDef def = g.to_graph_def();
  const Graph h = Graph::from_graph_def(tensorflow::GraphDef(def));
  CHECK(google::protobuf::util::MessageDifferencer::Equals(h.to_graph_def(), def));
  Session session(h);
  const std::vector<Tensor> out =
      session.run({{"pixels", from_vector<uint8_t>({255, 0})}}, {GraphTensor("joined")});
  testing::ExpectTensor(out[0], kUInt8, {4}, {255, 0, 9, 250}, 0);
}

}  // namespace
}  // namespace duet
