// Attrs are read and written through the typed keys their ops publish (Note [Attribute keys]).
#include <catch2/catch.hpp>

#include "duet.h"
#include "ops/math/math_attrs.h"
#include "ops/nn/fused_nn_ops.h"
#include "ops/nn/nn_attrs.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet {
namespace {

const OpDef& Op(const char* name) {
  const OpDef* op = OpRegistry::Global().Find(name);
  REQUIRE(op != nullptr);
  return *op;
}

TEST_CASE("a key reads and writes its op's attr") {
  OpCall call(&Op("MatMul"), {}, OpSite());
  CHECK(call.attr(MatMulAttrs::kTransposeA) == false);  // the default
  call.set(MatMulAttrs::kTransposeA, true);
  CHECK(call.attr(MatMulAttrs::kTransposeA) == true);
  CHECK(std::get<bool>(call.attrs[Op("MatMul").attr_index("transpose_a")]));
}

TEST_CASE("a key used on an op it does not belong to throws, naming the op and the attr") {
  // BatchMatMulV2's attr 0 is T, and its adj_x is not MatMul's transpose_a.
  OpCall call(&Op("BatchMatMulV2"), {}, OpSite());
  testing::ExpectError([&] { call.attr(MatMulAttrs::kTransposeA); },
                       {"BatchMatMulV2", "transpose_a"});
  testing::ExpectError([&] { call.set(MatMulAttrs::kTransposeA, true); }, {"transpose_a"});
  // Same name, same position, another op's key: still wrong (Cast has no incompatible_shape_error).
  OpCall cast(&Op("Cast"), {}, OpSite());
  testing::ExpectError([&] { cast.attr(EqualityAttrs::kT); }, {"Cast", "'T'"});
}

TEST_CASE("ops that share attrs share the keys") {
  for (const char* name :
       {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "_FusedConv2D"}) {
    INFO(name);
    OpCall call(&Op(name), {}, OpSite());
    CHECK(call.attr(ConvAttrs::kDilations) == std::vector<int64_t>{1, 1, 1, 1});
  }
  for (const char* name : {"Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"}) {
    INFO(name);
    OpCall call(&Op(name), {}, OpSite());
    CHECK(call.attr(Conv3DAttrs::kDilations) == std::vector<int64_t>{1, 1, 1, 1, 1});
  }
  for (const char* name :
       {"MaxPool", "AvgPool", "MaxPoolGrad", "AvgPoolGrad", "MaxPoolGradGrad", "MaxPool3D",
        "AvgPool3D", "MaxPool3DGrad", "AvgPool3DGrad", "MaxPool3DGradGrad"}) {
    INFO(name);
    OpCall call(&Op(name), {}, OpSite());
    call.set(PoolAttrs::kPadding, "VALID");
    CHECK(call.attr(PoolAttrs::kPadding) == "VALID");
  }
}

TEST_CASE("an op declares all of its attrs from keys or none of them") {
  for (const OpDef* op : OpRegistry::Global().All()) {
    int keyed = 0;
    for (const AttrDef& attr : op->attrs) keyed += attr.key != nullptr;
    INFO(op->name << ": " << keyed << " of " << op->attrs.size() << " attrs declared from keys");
    CHECK((keyed == 0 || keyed == static_cast<int>(op->attrs.size())));
  }
}

TEST_CASE("kernels read attrs through keys: a fused matmul runs with its transpose attrs") {
  const Tensor a = constant({{1.f, 2.f}, {3.f, 4.f}});
  const Tensor bias = constant({10.f, 20.f});
  const Tensor fused = fused_matmul(a, a, {bias}, {"BiasAdd"}, /*transpose_a=*/true);
  testing::ExpectTensorNear(fused, matmul(a, a, /*transpose_a=*/true) + bias, 0);
}

}  // namespace
}  // namespace duet
