#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "duet.h"
#include "kernels/kernel_registry.h"
#include "ops/gradient.h"
#include "ops/op_def_proto.h"
#include "ops/op_docs.h"
#include "ops/op_ref.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet {
namespace {

TEST_CASE("every registered op is complete: shape function, doc, a CPU kernel, a valid OpDef") {
  const auto ops = OpRegistry::Global().All();
  REQUIRE(ops.size() > 50);
  for (const OpDef* op : ops) {
    INFO("op " << op->name);
    CHECK(op->shape_fn != nullptr);
    CHECK(!op->doc.empty());
    bool has_cpu_kernel = false;
    for (int d = 0; d < kNumDTypes; ++d) {
      has_cpu_kernel |= FindKernel(*op, DeviceType::kCpu, static_cast<DType>(d)) != nullptr;
    }
    CHECK(has_cpu_kernel);
    tensorflow::OpDef proto = OpDefToProto(*op);
    CHECK(proto.name() == op->name);
    CHECK(proto.input_arg_size() == static_cast<int>(op->inputs.size()));
    CHECK(proto.attr_size() == static_cast<int>(op->attrs.size()));
  }
}

TEST_CASE("ops carry TensorFlow's names and attrs") {
  const tensorflow::OpDef matmul = OpDefToProto(*OpRegistry::Global().Find("MatMul"));
  REQUIRE(matmul.attr_size() >= 3);
  std::vector<std::string> attrs;
  for (const auto& a : matmul.attr()) attrs.push_back(a.name());
  CHECK(std::find(attrs.begin(), attrs.end(), "transpose_a") != attrs.end());
  CHECK(std::find(attrs.begin(), attrs.end(), "transpose_b") != attrs.end());
  for (const char* name : {"AddV2", "Sub", "Mul", "RealDiv", "Conv2D", "Sum", "Mean", "Reshape",
                           "ConcatV2", "GatherV2", "Softmax", "FusedBatchNormV3", "Cast"}) {
    INFO(name);
    CHECK(OpRegistry::Global().Find(name) != nullptr);
  }
}

TEST_CASE("unknown ops are a clear NotFound") {
  auto op = LookUpOp("NoSuchOp");
  REQUIRE(!op.ok());
  CHECK(op.status().code() == absl::StatusCode::kNotFound);
  CHECK(std::string(op.status().message()).find("NoSuchOp") != std::string::npos);
}

TEST_CASE("docs/ops.md is generated from the current registry") {
  std::ifstream file("docs/ops.md");
  REQUIRE(file.good());
  std::stringstream text;
  text << file.rdbuf();
  INFO("regenerate with: bazel run //tools:gen_ops_doc > docs/ops.md");
  CHECK(text.str() == RegisteredOpsMarkdown());
}

TEST_CASE("attr values round-trip through TensorFlow's AttrValue") {
  const std::vector<std::pair<AttrValue, AttrType>> cases = {
      {int64_t{-3}, AttrType::kInt},
      {2.5f, AttrType::kFloat},
      {true, AttrType::kBool},
      {kFloat64, AttrType::kType},
      {std::string("SAME"), AttrType::kString},
      {Shape{2, -1}, AttrType::kShape},
      {std::vector<int64_t>{1, 2, 2, 1}, AttrType::kListInt},
      {std::vector<float>{0.5f}, AttrType::kListFloat},
      {std::vector<std::string>{"BiasAdd", "Relu"}, AttrType::kListString},
      {std::vector<DType>{kInt32, kBool}, AttrType::kListType},
  };
  for (const auto& [value, type] : cases) {
    INFO(AttrValueString(value));
    auto proto = AttrValueToProto(value);
    REQUIRE(proto.ok());
    auto back = AttrValueFromProto(*proto, type);
    REQUIRE(back.ok());
    CHECK(AttrValueString(*back) == AttrValueString(value));
  }
  tensorflow::AttrValue wrong;
  wrong.set_i(3);
  CHECK(!AttrValueFromProto(wrong, AttrType::kString).ok());
  wrong.set_type(static_cast<tensorflow::DataType>(8));  // DT_COMPLEX64: not supported
  CHECK(!AttrValueFromProto(wrong, AttrType::kType).ok());
}

// Note [Checked op references]: a kernel, gradient or OpRef naming no op would bind to nothing.
TEST_CASE("every kernel, gradient and op reference names a registered op") {
  auto check = [](const std::string& name, const char* what) {
    INFO(what << " registered for '" << name << "', which no op has");
    CHECK(OpRegistry::Global().Find(name) != nullptr);
  };
  const std::vector<std::string> kernels = OpsWithKernels();
  CHECK(kernels.size() > 50);
  for (const std::string& name : kernels) check(name, "a kernel");
  for (const std::string& name : OpsWithGradientDeclarations()) check(name, "a gradient");
  const std::vector<const OpRef*> refs = OpRef::All();
  CHECK(refs.size() > 20);  // graph mode's and the passes' references are linked in
  for (const OpRef* ref : refs) check(ref->name(), "an OpRef");
}

TEST_CASE("an OpRef to no op is an Internal error naming it") {
  const OpRef misspelled("MatMull");
  testing::ExpectError([&] { misspelled.def(); }, {"MatMull"});
}

}  // namespace
}  // namespace duet
