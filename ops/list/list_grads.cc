// The TensorList ops are not differentiable in duet yet. TensorFlow differentiates them with more
// list ops (TensorListConcatLists, TensorListSplit, ...) and variant-typed gradients; duet imports
// them for inference (frozen Keras RNNs), and the While gradient accumulates loop variables on
// them (Note [While gradients]), which is why second-order loop gradients are refused.
#include "ops/gradient.h"

namespace duet {
namespace {

const NotDifferentiable kTensorListReserve("TensorListReserve");
const NotDifferentiable kTensorListFromTensor("TensorListFromTensor");
const NotDifferentiable kTensorListSetItem("TensorListSetItem");
const NotDifferentiable kTensorListGetItem("TensorListGetItem");
const NotDifferentiable kTensorListStack("TensorListStack");
const NotDifferentiable kTensorListLength("TensorListLength");
const NotDifferentiable kEmptyTensorList("EmptyTensorList");
const NotDifferentiable kTensorListPushBack("TensorListPushBack");
const NotDifferentiable kTensorListPopBack("TensorListPopBack");
const NotDifferentiable kTensorListElementShape("TensorListElementShape");

}  // namespace
}  // namespace duet
