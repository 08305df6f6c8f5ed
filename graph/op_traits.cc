#include "graph/op_traits.h"

#include <algorithm>
#include <iterator>

#include "absl/types/span.h"

namespace duet {
namespace {

bool Listed(const OpDef& op, absl::Span<const absl::string_view> names) {
  return std::find(names.begin(), names.end(), op.name) != names.end();
}

}  // namespace

bool ReadsOnlyShapes(const OpDef& op) { return op.reads_only_input_shapes; }

bool KeepsNoInputs(const OpDef& op) {
  static constexpr absl::string_view kOps[] = {"ResourceApplyGradientDescent",
                                               "_ResourceApplyMatMulGradientDescent",
                                               "AssignAddVariableOp", "AssignSubVariableOp"};
  return Listed(op, kOps);
}

Tensor ShapeOnly(DType dtype, const Shape& shape) {
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = dtype;
  impl->shape = shape;
  return Tensor(std::move(impl));
}

}  // namespace duet
