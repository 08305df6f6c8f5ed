#include "ops/op_call.h"

#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/common_shape_fns.h"
#include "tests/test_util.h"

namespace duet {
namespace {

// A test-only op to exercise signature checking in BindAttrs.
const OpDef* const kTestPair = OpDefBuilder("TestOnlyPair")
                                   .Input("a", "T")
                                   .Input("b", "T")
                                   .Input("idx", kInt32)
                                   .Output("out", "T")
                                   .TypeAttr("T", {kFloat32, kFloat64})
                                   .StringAttr("mode", "x", {"x", "y"})
                                   .IntAttr("k", 1, /*minimum=*/1)
                                   .Doc("Test op.")
                                   .SetShapeFn(UnchangedShape)
                                   .Register();

absl::Status Bind(TensorList inputs, AttrList overrides = {}) {
  OpCall call(kTestPair, std::move(inputs), OpSite());
  for (size_t i = 0; i < overrides.size(); ++i) {
    if (!std::holds_alternative<std::monostate>(overrides[i])) call.attrs[i] = overrides[i];
  }
  return BindAttrs(call);
}

TEST_CASE("BindAttrs checks the signature and attrs") {
  Tensor f = constant(1.f), d = constant(1.0), i = constant(1);
  CHECK(Bind({f, f, i}).ok());
  auto message = [](const absl::Status& s) { return std::string(s.message()); };
  CHECK_THAT(message(Bind({f, d, i})), Catch::Contains("same dtype"));
  CHECK_THAT(message(Bind({f, f, f})), Catch::Contains("must be int32"));
  CHECK_THAT(message(Bind({f, f})), Catch::Contains("only 2 inputs"));
  CHECK_THAT(message(Bind({f, f, i, i})), Catch::Contains("expected 3 inputs"));
  CHECK_THAT(message(Bind({i, i, i})), Catch::Contains("int32 is not supported"));
  CHECK_THAT(message(Bind({f, f, i}, {{}, std::string("z")})), Catch::Contains("allowed: x, y"));
  CHECK_THAT(message(Bind({f, f, i}, {{}, {}, int64_t{0}})), Catch::Contains("at least 1"));
  CHECK_THAT(message(Bind({f, f, i}, {{}, {}, 2.f})), Catch::Contains("must be of type int"));
}

TEST_CASE("AnnotateOpError names the op, every input and the call site") {
  OpCall call(kTestPair, {constant(1.f), constant({1.f, 2.f}), constant(3)}, OpSite("pair"));
  absl::Status s = AnnotateOpError(call, absl::InvalidArgumentError("bad"));
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  const std::string m(s.message());
  CHECK_THAT(m, Catch::StartsWith("TestOnlyPair: bad ["));
  CHECK_THAT(m, Catch::Contains("a: float32 ()"));
  CHECK_THAT(m, Catch::Contains("b: float32 (2,)"));
  CHECK_THAT(m, Catch::Contains("idx: int32 ()"));
  CHECK_THAT(m, Catch::Contains("node 'pair'"));
  CHECK_THAT(m, Catch::Contains("op_call_test.cc:"));
}

}  // namespace
}  // namespace duet
