// Gradients of the TensorList ops through the checker (tape vs finite differences, graph vs
// eager, gradients() vs tape, also from inputs on another device), Note [TensorList gradients].
// control_flow_grads_test checks a While over lists.
#include "ops/list/list_ops.h"
#include "tests/gradients/gradient_checker.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

// TensorList ops run on the host (ops/list/list_ops.h): each function ends with an op of its
// own, so that its outputs are on the device of the checker's DeviceScope.

// TensorFlow's element_shape operand for the rows of a (n, 3) tensor.
Tensor Rows3() { return constant(std::vector<int32_t>{3}, Shape({1})); }

DUET_GRADIENT_TEST("TensorListFromTensor", "and TensorListStack, round trip") {
  CheckGradients("TensorListFromTensor",
                 [](const std::vector<Tensor>& x) {
                   const Tensor list = tensor_list_from_tensor(x[0] * x[0], Rows3());
                   return std::vector<Tensor>{tensor_list_stack(list, Rows3(), kFloat64) * 2.0};
                 },
                 {RandomInput({4, 3}, 1)});
}

DUET_GRADIENT_TEST("TensorListStack", "of a list set item by item") {
  CheckGradients("TensorListStack",
                 [](const std::vector<Tensor>& x) {
                   Tensor list = tensor_list_reserve(Rows3(), constant(3), kFloat64);
                   list = tensor_list_set_item(list, constant(0), duet::sin(x[0]));
                   list = tensor_list_set_item(list, constant(2), x[0] * x[1]);
                   // Element 1 is never set: it stacks as zeros.
                   return std::vector<Tensor>{tensor_list_stack(list, Rows3(), kFloat64) * 2.0};
                 },
                 {RandomInput({3}, 2), RandomInput({3}, 3)});
}

DUET_GRADIENT_TEST("TensorListGetItem", "two reads of one list add their gradient lists") {
  CheckGradients("TensorListGetItem",
                 [](const std::vector<Tensor>& x) {
                   const Tensor list = tensor_list_from_tensor(x[0], Rows3());
                   const Tensor a = tensor_list_get_item(list, constant(0), Rows3(), kFloat64);
                   const Tensor b = tensor_list_get_item(list, constant(2), Rows3(), kFloat64);
                   const Tensor c = tensor_list_get_item(list, constant(2), Rows3(), kFloat64);
                   return std::vector<Tensor>{a * b, duet::sin(c)};
                 },
                 {RandomInput({4, 3}, 4)});
}

DUET_GRADIENT_TEST("TensorListSetItem", "overwriting an element cuts its gradient") {
  CheckGradients("TensorListSetItem",
                 [](const std::vector<Tensor>& x) {
                   Tensor list = tensor_list_from_tensor(x[0], Rows3());
                   list = tensor_list_set_item(list, constant(1), x[1] * x[1]);
                   return std::vector<Tensor>{tensor_list_stack(list, Rows3(), kFloat64) * 2.0};
                 },
                 {RandomInput({3, 3}, 5), RandomInput({3}, 6)});
}

DUET_GRADIENT_TEST("TensorListPushBack", "and TensorListPopBack") {
  CheckGradients(
      "TensorListPushBack",
      [](const std::vector<Tensor>& x) {
        Tensor list = empty_tensor_list(Rows3(), constant(-1), kFloat64);
        list = tensor_list_push_back(list, x[0] * 3.0);
        list = tensor_list_push_back(list, duet::exp(x[1]));
        auto [rest, last] = tensor_list_pop_back(list, Rows3(), kFloat64);
        return std::vector<Tensor>{last * x[0], tensor_list_stack(rest, Rows3(), kFloat64) * 2.0};
      },
      {RandomInput({3}, 7), RandomInput({3}, 8)});
}

DUET_GRADIENT_TEST("TensorListPopBack", "of the popped element only") {
  CheckGradients("TensorListPopBack",
                 [](const std::vector<Tensor>& x) {
                   const Tensor list = tensor_list_from_tensor(x[0], Rows3());
                   auto [rest, last] = tensor_list_pop_back(list, Rows3(), kFloat64);
                   return std::vector<Tensor>{duet::tanh(last)};
                 },
                 {RandomInput({2, 3}, 9)});
}

// In a graph, the gradient of TensorListFromTensor stacks with the tensor's static shape, so what
// reads it (a broadcast operand's sum, a matmul) is planned with static shapes.
TEST_CASE("A graph's TensorListFromTensor gradient keeps the tensor's static shape") {
  Graph g;
  GraphScope scope(g);
  const Tensor x = placeholder(kFloat32, Shape({4, 3}));
  const Tensor bias = placeholder(kFloat32, Shape({3}));
  const Tensor list = tensor_list_from_tensor(x + bias, Rows3());
  const Tensor item = tensor_list_get_item(list, constant(1), Rows3(), kFloat32);
  const std::vector<Tensor> grads = gradients({reduce_sum(item * item)}, {x, bias});
  CHECK(grads[0].shape() == Shape({4, 3}));
  CHECK(grads[1].shape() == Shape({3}));
}

}  // namespace
}  // namespace duet::testing
