// TensorListReserve, EmptyTensorList, TensorListFromTensor, TensorListSetItem, TensorListGetItem,
// TensorListPushBack, TensorListPopBack, TensorListStack, TensorListLength,
// TensorListElementShape, eagerly: values for every element dtype, lists as
// values (SetItem leaves its input alone), unset elements, partial shapes, errors.
#include "ops/list/list_ops.h"

#include <catch2/catch.hpp>

#include "core/constant.h"
#include "core/tensor_list.h"
#include "ops/list/list_attrs.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectError;
using testing::ExpectTensor;
using testing::SequenceExpected;
using testing::SequenceTensor;

const Tensor kAnyShape = constant(-1);  // TensorFlow's unknown rank

Tensor Ints(std::vector<int32_t> v) { return from_vector(v, {static_cast<int64_t>(v.size())}); }

TEMPLATE_TEST_CASE("FromTensor, GetItem and Stack round-trip every element dtype", "",
                   DUET_ALL_TYPES) {
  const DType dtype = DTypeOf<TestType>();
  const Tensor x = SequenceTensor<TestType>({3, 2});
  const Tensor list = tensor_list_from_tensor(x, Ints({2}));
  CHECK(list.dtype() == kVariant);
  CHECK(list.shape() == Shape{});
  REQUIRE(TensorListOf(list) != nullptr);
  CHECK(TensorListOf(list)->element_dtype == dtype);
  ExpectTensor(tensor_list_get_item(list, constant(1), Ints({2}), dtype), dtype, {2},
               SequenceExpected<TestType>({2, 3}));
  ExpectTensor(tensor_list_stack(list, Ints({2}), dtype, 3), dtype, {3, 2},
               SequenceExpected<TestType>({0, 1, 2, 3, 4, 5}));
  CHECK(tensor_list_length(list).item<int32_t>() == 3);
}

TEMPLATE_TEST_CASE("Reserve and SetItem build a list; unset elements read as zeros", "",
                   DUET_ALL_TYPES) {
  const DType dtype = DTypeOf<TestType>();
  const Tensor empty = tensor_list_reserve(Ints({2}), constant(3), dtype);
  const Tensor one = tensor_list_set_item(empty, constant(2), SequenceTensor<TestType>({2}, 5));
  ExpectTensor(tensor_list_stack(one, Ints({2}), dtype), dtype, {3, 2},
               SequenceExpected<TestType>({0, 0, 0, 0, 5, 6}));
  ExpectTensor(tensor_list_get_item(one, constant(0), Ints({-1}), dtype), dtype, {2}, {0, 0});
  // Lists are values: the input of SetItem is unchanged.
  CHECK(!TensorListOf(empty)->elements[2].defined());
}

TEST_CASE("SetItem and PushBack share items that own their memory, copy views, leave lists alone") {
  const Tensor source = constant({{1.f, 2.f}, {3.f, 4.f}});
  const Tensor a = tensor_list_from_tensor(source, Ints({2}));
  // Note [List elements are shared]: FromTensor's elements view the (immutable) tensor.
  CHECK(TensorListOf(a)->elements[1].shares_buffer_with(source));
  const Tensor item = constant({9.f, 8.f});
  const Tensor b = tensor_list_set_item(a, constant(0), item);
  ExpectTensor(tensor_list_stack(a, Ints({2}), kFloat32), kFloat32, {2, 2}, {1, 2, 3, 4});
  ExpectTensor(tensor_list_stack(b, Ints({2}), kFloat32), kFloat32, {2, 2}, {9, 8, 3, 4});
  CHECK(TensorListOf(b)->elements[0].shares_buffer_with(item));
  // A view (here of a tensor the list would keep whole) is copied into memory of its own.
  const Tensor view = constant({{5.f, 6.f}}).reshaped(Shape({2}));
  const Tensor c = tensor_list_push_back(b, view);
  CHECK(!TensorListOf(c)->elements[2].shares_buffer_with(view));
  ExpectTensor(tensor_list_stack(c, Ints({2}), kFloat32), kFloat32, {3, 2}, {9, 8, 3, 4, 5, 6});
  CHECK(TensorListOf(b)->elements.size() == 2);
}

// Note [Lists updated in place]: a list held only by the kernel's call (as a static plan hands a
// value over to its last reader) is updated and passed on; a list held elsewhere is copied.
TEST_CASE("a list only the kernel's call holds is updated in place; a held one is copied") {
  Tensor list =
      tensor_list_push_back(empty_tensor_list(kAnyShape, constant(-1), kInt32), constant(1));
  const TensorListValue* value = TensorListOf(list);
  const Tensor copied = tensor_list_push_back(list, constant(2));  // `list` holds it too
  CHECK(TensorListOf(copied) != value);
  CHECK(value->elements.size() == 1);
  auto handed = [&](const char* op, std::vector<Tensor> rest) {
    TensorList inputs = {std::move(list)};
    for (Tensor& t : rest) inputs.push_back(std::move(t));
    OpCall call(OpRegistry::Global().Find(op), std::move(inputs), OpSite());
    call.set(TensorListAttrs::kElementDtype, kInt32);
    const OutputList out = RunOp(call);
    CHECK(TensorListOf(out[0]) == value);  // the same list, updated
    return out;
  };
  list = handed("TensorListPushBack", {constant(2)})[0];
  CHECK(value->elements.size() == 2);
  list = handed("TensorListSetItem", {constant(0), constant(7)})[0];
  const OutputList popped = handed("TensorListPopBack", {kAnyShape});
  CHECK(popped[1].item<int32_t>() == 2);
  ExpectTensor(tensor_list_stack(popped[0], kAnyShape, kInt32), kInt32, {1}, {7});
  ExpectTensor(tensor_list_stack(copied, kAnyShape, kInt32), kInt32, {2}, {1, 2});  // untouched
}

TEST_CASE("SetItem grows the list when resize_if_index_out_of_bounds is set") {
  const Tensor a = tensor_list_reserve(kAnyShape, constant(0), kInt32);
  ExpectError(
      [&] {
        tensor_list_set_item(a, constant(0), constant({4, 5}));
      },
      {"TensorListSetItem", "index 0 is out of range for a list of 0 elements"});
  // The op function leaves the attr at TensorFlow's default (false); imported graphs may set it.
  OpCall call(OpRegistry::Global().Find("TensorListSetItem"), {a, constant(1), constant({4, 5})},
              OpSite());
  call.set(TensorListAttrs::kResizeIfIndexOutOfBounds, true);
  const Tensor b = RunSingleOutputOp(call);
  CHECK(tensor_list_length(b).item<int32_t>() == 2);
  ExpectTensor(tensor_list_stack(b, kAnyShape, kInt32), kInt32, {2, 2}, {0, 0, 4, 5});
}

TEST_CASE("partial element shapes: merged on reads, taken from set elements on Stack") {
  const Tensor list = tensor_list_reserve(Ints({-1, 2}), constant(2), kFloat32);
  const Tensor set = tensor_list_set_item(list, constant(1), constant({{1.f, 2.f}}));
  // Stack takes the unknown dim from the set element; the unset one is zeros of that shape.
  ExpectTensor(tensor_list_stack(set, kAnyShape, kFloat32), kFloat32, {2, 1, 2}, {0, 0, 1, 2});
  // An unset element needs a fully defined shape: the list's merged with the read's.
  ExpectTensor(tensor_list_get_item(list, constant(0), Ints({3, -1}), kFloat32), kFloat32, {3, 2},
               {0, 0, 0, 0, 0, 0});
  ExpectError([&] { tensor_list_get_item(list, constant(0), kAnyShape, kFloat32); },
              {"TensorListGetItem", "fully defined", "list_ops_test.cc"});
  ExpectError([&] { tensor_list_stack(list, kAnyShape, kFloat32); },
              {"TensorListStack", "not fully defined"});
  // An empty list stacks to [0, ...] when its element shape is known.
  ExpectTensor(
      tensor_list_stack(tensor_list_reserve(Ints({3}), constant(0), kFloat32), kAnyShape, kFloat32),
      kFloat32, {0, 3}, {});
}

TEST_CASE("ElementShape gives the list's partial shape") {
  const Tensor list = tensor_list_reserve(Ints({-1, 2}), constant(1), kFloat32);
  ExpectTensor(tensor_list_element_shape(list), kInt32, {2}, {-1, 2});
  ExpectTensor(tensor_list_element_shape(list, kInt64), kInt64, {2}, {-1, 2});
  const Tensor any = tensor_list_reserve(constant(int64_t{-1}), constant(1), kFloat32);
  ExpectTensor(tensor_list_element_shape(any), kInt32, {}, {-1});
}

TEMPLATE_TEST_CASE("PushBack and PopBack use a list as a stack of every element dtype", "",
                   DUET_ALL_TYPES) {
  const DType dtype = DTypeOf<TestType>();
  const Tensor x = SequenceTensor<TestType>({3, 2});
  Tensor list = empty_tensor_list(Ints({2}), constant(-1), dtype);
  CHECK(tensor_list_length(list).item<int32_t>() == 0);
  const Tensor rows = tensor_list_from_tensor(x, Ints({2}));
  for (int i = 0; i < 3; ++i) {
    list = tensor_list_push_back(list, tensor_list_get_item(rows, constant(i), Ints({2}), dtype));
  }
  CHECK(tensor_list_length(list).item<int32_t>() == 3);
  ExpectTensor(tensor_list_stack(list, Ints({2}), dtype), dtype, {3, 2},
               SequenceExpected<TestType>({0, 1, 2, 3, 4, 5}));
  auto [rest, last] = tensor_list_pop_back(list, Ints({2}), dtype);
  ExpectTensor(last, dtype, {2}, SequenceExpected<TestType>({4, 5}));
  CHECK(tensor_list_length(rest).item<int32_t>() == 2);
  CHECK(tensor_list_length(list).item<int32_t>() == 3);  // lists are values
}

TEST_CASE("PopBack of an unset element reads zeros; lists of lists share their elements") {
  const Tensor reserved = tensor_list_reserve(Ints({2}), constant(1), kFloat64);
  auto [empty, zero] = tensor_list_pop_back(reserved, Ints({2}), kFloat64);
  ExpectTensor(zero, kFloat64, {2}, {0.0, 0.0});
  CHECK(tensor_list_length(empty).item<int32_t>() == 0);

  const Tensor inner = tensor_list_from_tensor(constant({1.f, 2.f}), kAnyShape);
  const Tensor outer =
      tensor_list_push_back(empty_tensor_list(Ints({}), constant(-1), kVariant), inner);
  auto [none, popped] = tensor_list_pop_back(outer, Ints({}), kVariant);
  CHECK(TensorListOf(popped) == TensorListOf(inner));
}

TEST_CASE("empty elements and zero-length lists") {
  const Tensor list = tensor_list_from_tensor(zeros({4, 0}), Ints({0}));
  CHECK(tensor_list_length(list).item<int32_t>() == 4);
  ExpectTensor(tensor_list_stack(list, Ints({0}), kFloat32), kFloat32, {4, 0}, {});
  const Tensor none = tensor_list_from_tensor(zeros({0, 3}), kAnyShape);
  CHECK(tensor_list_length(none).item<int32_t>() == 0);
}

TEST_CASE("list ops report mistakes") {
  const Tensor list = tensor_list_from_tensor(constant({{1.f, 2.f}, {3.f, 4.f}}), Ints({2}));
  ExpectError([&] { tensor_list_get_item(list, constant(2), Ints({2}), kFloat32); },
              {"TensorListGetItem", "index 2 is out of range for a list of 2 elements",
               "list_ops_test.cc"});
  ExpectError(
      [&] {
        tensor_list_set_item(list, constant(-1), constant({1.f, 2.f}));
      },
      {"TensorListSetItem", "index -1 is out of range"});
  ExpectError([&] { tensor_list_get_item(list, constant(0), Ints({2}), kInt32); },
              {"TensorListGetItem", "the list holds float32 elements, not int32"});
  ExpectError(
      [&] {
        tensor_list_set_item(list, constant(0), constant({1, 2}));
      },
      {"TensorListSetItem", "float32 elements, not int32"});
  ExpectError(
      [&] {
        tensor_list_set_item(list, constant(0), constant({1.f, 2.f, 3.f}));
      },
      {"TensorListSetItem", "item of shape (3,) does not fit the list's element shape (2,)"});
  ExpectError([&] { tensor_list_get_item(list, constant(0), Ints({3}), kFloat32); },
              {"TensorListGetItem", "element_shape (3,) is incompatible with the list's (2,)"});
  ExpectError([&] { tensor_list_stack(list, Ints({2}), kFloat32, 3); },
              {"TensorListStack", "num_elements is 3 but the list has 2 elements"});
  ExpectError(
      [&] {
        tensor_list_from_tensor(constant({{1.f, 2.f}}), Ints({3}));
      },
      {"TensorListFromTensor", "has elements of shape (2,), not (3,)"});
  ExpectError([&] { tensor_list_from_tensor(constant(1.f), kAnyShape); },
              {"TensorListFromTensor", "at least one dim"});
  ExpectError([&] { tensor_list_reserve(Ints({2}), constant(-1), kFloat32); },
              {"TensorListReserve", "num_elements must be >= 0, not -1"});
  ExpectError(
      [&] {
        tensor_list_reserve(constant({{1, 2}}), constant(1), kFloat32);
      },
      {"TensorListReserve", "element_shape must be a scalar or a vector"});
  ExpectError([&] { tensor_list_length(constant(1.f)); }, {"TensorListLength", "variant"});
  const Tensor bounded = empty_tensor_list(Ints({2}), constant(1), kFloat32);
  const Tensor full = tensor_list_push_back(bounded, constant({1.f, 2.f}));
  ExpectError(
      [&] {
        tensor_list_push_back(full, constant({1.f, 2.f}));
      },
      {"TensorListPushBack", "already has max_num_elements = 1 elements"});
  ExpectError(
      [&] {
        tensor_list_push_back(bounded, constant({1.f, 2.f, 3.f}));
      },
      {"TensorListPushBack", "tensor of shape (3,) does not fit"});
  ExpectError([&] { tensor_list_pop_back(bounded, Ints({2}), kFloat32); },
              {"TensorListPopBack", "cannot pop from an empty list"});
  ExpectError([&] { empty_tensor_list(Ints({2}), constant(-2), kFloat32); },
              {"EmptyTensorList", "max_num_elements must be >= 0, or -1"});
}

}  // namespace
}  // namespace duet
