// The TensorList ops are not differentiable in duet yet. TensorFlow differentiates them with more
// list ops (TensorListPopBack, TensorListConcatLists, TensorListSplit, ...) and a While loop's
// gradient that accumulates lists; duet imports them for inference (frozen Keras RNNs).
#include "ops/gradient.h"

namespace duet {
namespace {

const NotDifferentiable kTensorListReserve("TensorListReserve");
const NotDifferentiable kTensorListFromTensor("TensorListFromTensor");
const NotDifferentiable kTensorListSetItem("TensorListSetItem");
const NotDifferentiable kTensorListGetItem("TensorListGetItem");
const NotDifferentiable kTensorListStack("TensorListStack");
const NotDifferentiable kTensorListLength("TensorListLength");
const NotDifferentiable kTensorListElementShape("TensorListElementShape");

}  // namespace
}  // namespace duet
