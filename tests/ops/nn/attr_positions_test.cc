// The nn kernels read attrs by position (kernels cannot include ops/nn/); this pins the positions
// they assume to the attr names the ops declare, so reordering a declaration fails here.
#include <catch2/catch.hpp>

#include "ops/op_registry.h"

namespace duet {
namespace {

void ExpectAttrs(const char* op_name, const std::vector<std::string>& names) {
  const OpDef* op = OpRegistry::Global().Find(op_name);
  REQUIRE(op != nullptr);
  std::vector<std::string> got;
  for (const AttrDef& a : op->attrs) got.push_back(a.name);
  INFO(op_name);
  CHECK(got == names);
}

TEST_CASE("nn ops declare their attrs in the order the kernels read them") {
  ExpectAttrs("MatMul", {"transpose_a", "transpose_b", "T", "grad_a", "grad_b"});
  ExpectAttrs("BatchMatMulV2", {"T", "adj_x", "adj_y", "grad_x", "grad_y"});
  ExpectAttrs("BiasAdd", {"T", "data_format"});
  ExpectAttrs("Conv2D", {"T", "strides", "use_cudnn_on_gpu", "padding", "explicit_paddings",
                         "data_format", "dilations"});
  ExpectAttrs("_FusedMatMul", {"transpose_a", "transpose_b", "T", "num_args", "fused_ops",
                               "epsilon", "leakyrelu_alpha"});
  ExpectAttrs("_FusedConv2D",
              {"T", "num_args", "strides", "padding", "explicit_paddings", "data_format",
               "dilations", "use_cudnn_on_gpu", "fused_ops", "epsilon", "leakyrelu_alpha"});
  ExpectAttrs("MaxPool", {"T", "ksize", "strides", "padding", "explicit_paddings", "data_format"});
  ExpectAttrs("AvgPool", {"ksize", "strides", "padding", "data_format", "T"});
  ExpectAttrs("Softmax", {"T"});
  ExpectAttrs("LogSoftmax", {"T"});
  ExpectAttrs("FusedBatchNormV3",
              {"T", "U", "epsilon", "exponential_avg_factor", "data_format", "is_training"});
  ExpectAttrs("SoftmaxCrossEntropyWithLogits", {"T"});
  ExpectAttrs("SparseSoftmaxCrossEntropyWithLogits", {"T", "Tlabels"});
}

// _FusedElementwise is a math op, but it is the fusion passes' sibling of _FusedMatMul; its kernel
// reads attrs by position too.
TEST_CASE("_FusedElementwise declares its attrs in the order its kernel reads them") {
  ExpectAttrs("_FusedElementwise", {"T", "N", "ops", "operands"});
}

}  // namespace
}  // namespace duet
