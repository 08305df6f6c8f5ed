// CPU kernels of the TensorList ops. They only move whole elements (memcpy), so one kernel serves
// every element dtype. Lists are immutable values (Note [TensorLists are values] in
// core/tensor_list.cc): SetItem copies the list's element handles and stores the item itself
// (Note [List elements are shared]).
#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/int_values.h"
#include "core/tensor_list.h"
#include "kernels/kernel_registry.h"
#include "ops/list/list_attrs.h"

namespace duet {
namespace {

// The list input 0 holds, after checking it holds `element_dtype`.
absl::StatusOr<const TensorListValue*> ListInput(KernelContext& ctx, DType element_dtype) {
  const TensorListValue* list = TensorListOf(ctx.input(0));
  if (list == nullptr) {
    return absl::InvalidArgumentError("input_handle does not hold a TensorList");
  }
  if (list->element_dtype != element_dtype) {
    return absl::InvalidArgumentError(absl::StrCat("the list holds ",
                                                   DTypeName(list->element_dtype),
                                                   " elements, not ", DTypeName(element_dtype)));
  }
  return list;
}

// `t` as a list element: `t` itself when it owns its memory, else a copy with memory of its own.
// Note [List elements are shared]: tensors are immutable values once made, except the memory of a
// plan's arena, which the next step or run overwrites: arena values are views of the arena
// (TensorImpl::allocator unset), as are other views, and those are copied. A tensor that owns its
// memory is written again only by a variable update holding it alone (Note [Variables copy on
// write]), which a list holding it too prevents; so pushing a loop's values costs no copy. A
// kVariant element (a list of lists, as a While gradient accumulates list loop variables) is an
// immutable value and is shared.
absl::StatusOr<Tensor> OwnedCopy(const Tensor& t) {
  if (t.dtype() == kVariant || t.impl()->allocator != nullptr) return t;
  DUET_ASSIGN_OR_RETURN(Tensor copy, Tensor::TryEmpty(t.dtype(), t.shape()));
  if (t.nbytes() > 0) std::memcpy(copy.raw_data(), t.raw_data(), t.nbytes());
  return copy;
}

// Note [Lists updated in place]: lists are values (Note [TensorLists are values]), so an update
// makes a new list, which costs a copy of the whole list: O(length) per push, pop or set, and
// O(length^2) over a loop. But when nothing holds input 0 but this kernel's call (its tensor and
// the list in it each referenced once: a value a static plan handed over because this step reads
// it last, Note [Inputs handed over] in graph/plan.cc), no one can see the list change, and the
// kernel updates it and passes it on as its output. Eager tensors, values other steps still
// read, fetched values and views are held elsewhere too and are copied as before.
std::shared_ptr<TensorListValue> ListToUpdate(const KernelContext& ctx, const TensorListValue& in) {
  const std::shared_ptr<TensorImpl>& impl = ctx.input(0).impl();
  if (impl.use_count() == 1 && impl->resource.use_count() == 1 && impl->data == &in) {
    return std::static_pointer_cast<TensorListValue>(impl->resource);
  }
  return std::make_shared<TensorListValue>(in);
}

// Zeros of `dtype` and `shape` (all-zero bits are zero, or false, in every value dtype).
absl::StatusOr<Tensor> Zeros(DType dtype, const Shape& shape) {
  if (dtype == kVariant)
    return absl::InvalidArgumentError("an unset element of lists has no value");
  if (!shape.is_fully_defined()) {
    return absl::InvalidArgumentError(
        absl::StrCat("an unset element reads as zeros, which needs a fully defined element shape, "
                     "not ",
                     shape.str()));
  }
  DUET_ASSIGN_OR_RETURN(Tensor zeros, Tensor::TryEmpty(dtype, shape));
  if (zeros.nbytes() > 0) std::memset(zeros.raw_data(), 0, zeros.nbytes());
  return zeros;
}

// The list's element shape merged with the one the caller passes, or why they differ.
absl::StatusOr<Shape> MergedElementShape(const TensorListValue& list, const Shape& given) {
  if (!list.element_shape.IsCompatibleWith(given)) {
    return absl::InvalidArgumentError(absl::StrCat("element_shape ", given.str(),
                                                   " is incompatible with the list's ",
                                                   list.element_shape.str()));
  }
  return list.element_shape.Merge(given);
}

absl::StatusOr<int64_t> Index(const Tensor& index, int64_t length) {
  const int64_t i = IntScalar(index);
  if (i < 0 || i >= length) {
    return absl::InvalidArgumentError(
        absl::StrCat("index ", i, " is out of range for a list of ", length, " elements"));
  }
  return i;
}

absl::Status ReserveKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(Shape element_shape, ShapeFromTensor(ctx.input(0)));
  const int64_t n = IntScalar(ctx.input(1));
  if (n < 0) {
    return absl::InvalidArgumentError(absl::StrCat("num_elements must be >= 0, not ", n));
  }
  auto list = std::make_shared<TensorListValue>();
  list->element_dtype = ctx.attr(TensorListAttrs::kElementDtype);
  list->element_shape = std::move(element_shape);
  list->elements.resize(n);
  ctx.output(0) = MakeTensorListTensor(std::move(list));
  return absl::OkStatus();
}

absl::Status EmptyKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(Shape element_shape, ShapeFromTensor(ctx.input(0)));
  const int64_t max = IntScalar(ctx.input(1));
  if (max < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_num_elements must be >= 0, or -1 (no bound), not ", max));
  }
  auto list = std::make_shared<TensorListValue>();
  list->element_dtype = ctx.attr(TensorListAttrs::kElementDtype);
  list->element_shape = std::move(element_shape);
  list->max_num_elements = max;
  ctx.output(0) = MakeTensorListTensor(std::move(list));
  return absl::OkStatus();
}

absl::Status PushBackKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const TensorListValue* in,
                        ListInput(ctx, ctx.attr(TensorListAttrs::kElementDtype)));
  const Tensor& item = ctx.input(1);
  if (!item.shape().IsCompatibleWith(in->element_shape)) {
    return absl::InvalidArgumentError(absl::StrCat("tensor of shape ", item.shape().str(),
                                                   " does not fit the list's element shape ",
                                                   in->element_shape.str()));
  }
  const int64_t length = static_cast<int64_t>(in->elements.size());
  if (in->max_num_elements != -1 && length >= in->max_num_elements) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the list already has max_num_elements = ", in->max_num_elements, " elements"));
  }
  DUET_ASSIGN_OR_RETURN(Tensor copy, OwnedCopy(item));
  std::shared_ptr<TensorListValue> list = ListToUpdate(ctx, *in);
  list->elements.push_back(std::move(copy));
  ctx.output(0) = MakeTensorListTensor(std::move(list));
  return absl::OkStatus();
}

absl::Status PopBackKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const TensorListValue* in,
                        ListInput(ctx, ctx.attr(TensorListAttrs::kElementDtype)));
  if (in->elements.empty()) return absl::InvalidArgumentError("cannot pop from an empty list");
  DUET_ASSIGN_OR_RETURN(const Shape given, ShapeFromTensor(ctx.input(1)));
  DUET_ASSIGN_OR_RETURN(const Shape shape, MergedElementShape(*in, given));
  const Tensor& last = in->elements.back();
  if (last.defined()) {
    if (!last.shape().IsCompatibleWith(given)) {
      return absl::InvalidArgumentError(
          absl::StrCat("the last element has shape ", last.shape().str(), ", not ", given.str()));
    }
    ctx.output(1) = last;
  } else {
    DUET_ASSIGN_OR_RETURN(ctx.output(1), Zeros(in->element_dtype, shape));
  }
  std::shared_ptr<TensorListValue> list = ListToUpdate(ctx, *in);
  list->elements.pop_back();
  ctx.output(0) = MakeTensorListTensor(std::move(list));
  return absl::OkStatus();
}

absl::Status FromTensorKernel(KernelContext& ctx) {
  const Tensor& tensor = ctx.input(0);
  DUET_ASSIGN_OR_RETURN(Shape element_shape, ShapeFromTensor(ctx.input(1)));
  const Shape element(tensor.shape().dims().subspan(1));
  if (!element.IsCompatibleWith(element_shape)) {
    return absl::InvalidArgumentError(absl::StrCat("tensor of shape ", tensor.shape().str(),
                                                   " has elements of shape ", element.str(),
                                                   ", not ", element_shape.str()));
  }
  auto list = std::make_shared<TensorListValue>();
  list->element_dtype = tensor.dtype();
  list->element_shape = std::move(element_shape);
  const int64_t n = tensor.shape().dim(0);
  const size_t bytes = static_cast<size_t>(element.num_elements()) * DTypeSize(tensor.dtype());
  list->elements.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    // Note [List elements are shared]: the tensor is immutable and not an arena value (a kernel
    // that allocates its outputs keeps its inputs out of the arena), so its slices are views.
    if (!IsObjectDType(tensor.dtype())) {
      Tensor item = tensor.ViewAs(tensor.dtype(), element, tensor.device());
      item.impl()->data = static_cast<char*>(tensor.impl()->data) + i * bytes;
      list->elements.push_back(std::move(item));
      continue;
    }
    DUET_ASSIGN_OR_RETURN(Tensor item, Tensor::TryEmpty(tensor.dtype(), element));
    if (bytes > 0) {
      std::memcpy(item.raw_data(), static_cast<const char*>(tensor.raw_data()) + i * bytes, bytes);
    }
    list->elements.push_back(std::move(item));
  }
  ctx.output(0) = MakeTensorListTensor(std::move(list));
  return absl::OkStatus();
}

absl::Status SetItemKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const TensorListValue* in,
                        ListInput(ctx, ctx.attr(TensorListAttrs::kElementDtype)));
  const Tensor& item = ctx.input(2);
  if (!item.shape().IsCompatibleWith(in->element_shape)) {
    return absl::InvalidArgumentError(absl::StrCat("item of shape ", item.shape().str(),
                                                   " does not fit the list's element shape ",
                                                   in->element_shape.str()));
  }
  const int64_t length = static_cast<int64_t>(in->elements.size());
  int64_t i = IntScalar(ctx.input(1));
  const bool grows = i >= length && i >= 0 && ctx.attr(TensorListAttrs::kResizeIfIndexOutOfBounds);
  if (!grows) {
    DUET_ASSIGN_OR_RETURN(i, Index(ctx.input(1), length));
  }
  DUET_ASSIGN_OR_RETURN(Tensor copy, OwnedCopy(item));
  std::shared_ptr<TensorListValue> list = ListToUpdate(ctx, *in);
  if (grows) list->elements.resize(i + 1);
  list->elements[i] = std::move(copy);
  ctx.output(0) = MakeTensorListTensor(std::move(list));
  return absl::OkStatus();
}

absl::Status GetItemKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const TensorListValue* list,
                        ListInput(ctx, ctx.attr(TensorListAttrs::kElementDtype)));
  DUET_ASSIGN_OR_RETURN(const int64_t i,
                        Index(ctx.input(1), static_cast<int64_t>(list->elements.size())));
  DUET_ASSIGN_OR_RETURN(const Shape given, ShapeFromTensor(ctx.input(2)));
  DUET_ASSIGN_OR_RETURN(const Shape shape, MergedElementShape(*list, given));
  const Tensor& element = list->elements[i];
  if (!element.defined()) {
    DUET_ASSIGN_OR_RETURN(ctx.output(0), Zeros(list->element_dtype, shape));
    return absl::OkStatus();
  }
  if (!element.shape().IsCompatibleWith(given)) {
    return absl::InvalidArgumentError(
        absl::StrCat("element ", i, " has shape ", element.shape().str(), ", not ", given.str()));
  }
  ctx.output(0) = element;  // elements are immutable and own their memory
  return absl::OkStatus();
}

absl::Status StackKernel(KernelContext& ctx) {
  const DType dtype = ctx.attr(TensorListAttrs::kElementDtype);
  DUET_ASSIGN_OR_RETURN(const TensorListValue* list, ListInput(ctx, dtype));
  const int64_t n = static_cast<int64_t>(list->elements.size());
  const int64_t claimed = ctx.attr(TensorListAttrs::kNumElements);
  if (claimed != -1 && claimed != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_elements is ", claimed, " but the list has ", n, " elements"));
  }
  DUET_ASSIGN_OR_RETURN(const Shape given, ShapeFromTensor(ctx.input(1)));
  DUET_ASSIGN_OR_RETURN(Shape shape, MergedElementShape(*list, given));
  for (const Tensor& element : list->elements) {
    if (!element.defined()) continue;
    if (!element.shape().IsCompatibleWith(shape)) {
      return absl::InvalidArgumentError(absl::StrCat("cannot stack elements of shapes ",
                                                     shape.str(), " and ", element.shape().str()));
    }
    shape = element.shape();
  }
  if (!shape.is_fully_defined()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot stack a list whose element shape ", shape.str(),
                     " is not fully defined and that has no set element to take it from"));
  }
  Shape out({n});
  for (int64_t d : shape.dims()) out.push_back(d);
  DUET_ASSIGN_OR_RETURN(Tensor result, Tensor::TryEmpty(dtype, out));
  const size_t bytes = static_cast<size_t>(shape.num_elements()) * DTypeSize(dtype);
  char* dst = static_cast<char*>(result.raw_data());
  if (bytes > 0) {
    // A recurrent layer's gradient stacks megabytes: copies of 256 KiB or more split across the
    // pool.
    const int64_t min_chunk =
        std::max<int64_t>(1, (int64_t{256} << 10) / static_cast<int64_t>(bytes));
    ctx.pool().ParallelFor(n, min_chunk, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const Tensor& element = list->elements[i];
        if (element.defined()) {
          std::memcpy(dst + i * bytes, element.raw_data(), bytes);
        } else {
          std::memset(dst + i * bytes, 0, bytes);
        }
      }
    });
  }
  ctx.output(0) = std::move(result);
  return absl::OkStatus();
}

absl::Status LengthKernel(KernelContext& ctx) {
  const TensorListValue* list = TensorListOf(ctx.input(0));
  if (list == nullptr) return absl::InvalidArgumentError("input_handle does not hold a TensorList");
  DUET_ASSIGN_OR_RETURN(Tensor length, Tensor::TryEmpty(kInt32, Shape()));
  *length.mutable_data<int32_t>() = static_cast<int32_t>(list->elements.size());
  ctx.output(0) = std::move(length);
  return absl::OkStatus();
}

template <typename T>
absl::Status ElementShapeKernel(KernelContext& ctx) {
  const TensorListValue* list = TensorListOf(ctx.input(0));
  if (list == nullptr) return absl::InvalidArgumentError("input_handle does not hold a TensorList");
  const Shape& shape = list->element_shape;
  const bool unknown_rank = shape.unknown_rank();
  DUET_ASSIGN_OR_RETURN(
      Tensor out, Tensor::TryEmpty(DTypeOf<T>(), unknown_rank ? Shape() : Shape({shape.rank()})));
  T* p = out.mutable_data<T>();
  if (unknown_rank) {
    p[0] = -1;
  } else {
    for (int i = 0; i < shape.rank(); ++i) p[i] = static_cast<T>(shape.dim(i));
  }
  ctx.output(0) = std::move(out);
  return absl::OkStatus();
}

// ZerosLike of a list: a list of as many unset elements, which read as zeros (the zero gradient
// of a list, Note [TensorList gradients] in ops/list/list_grads.cc).
absl::Status ZerosLikeListKernel(KernelContext& ctx) {
  const TensorListValue* in = TensorListOf(ctx.input(0));
  if (in == nullptr) return absl::InvalidArgumentError("x does not hold a TensorList");
  auto list = std::make_shared<TensorListValue>();
  list->element_dtype = in->element_dtype;
  list->element_shape = in->element_shape;
  list->max_num_elements = in->max_num_elements;
  list->elements.resize(in->elements.size());
  ctx.output(0) = MakeTensorListTensor(std::move(list));
  return absl::OkStatus();
}

template <typename T>
void AddElements(const Tensor& a, const Tensor& b, Tensor& sum) {
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  T* z = sum.mutable_data<T>();
  for (int64_t i = 0, n = a.shape().num_elements(); i < n; ++i) z[i] = x[i] + y[i];
}

// a + b for two set elements of one shape.
absl::StatusOr<Tensor> AddElement(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot add list elements of shapes ",
                                                   a.shape().str(), " and ", b.shape().str()));
  }
  DUET_ASSIGN_OR_RETURN(Tensor sum, Tensor::TryEmpty(a.dtype(), a.shape()));
  switch (a.dtype()) {
    case kFloat32:
      AddElements<float>(a, b, sum);
      break;
    case kFloat64:
      AddElements<double>(a, b, sum);
      break;
    case kInt32:
      AddElements<int32_t>(a, b, sum);
      break;
    case kInt64:
      AddElements<int64_t>(a, b, sum);
      break;
    default:
      return absl::UnimplementedError(
          absl::StrCat("lists of ", DTypeName(a.dtype()), " elements cannot be added"));
  }
  return sum;
}

// AddN of lists: elementwise, as TensorFlow adds gradient lists; an unset element adds nothing,
// so a set element is shared when the other inputs leave it unset.
absl::Status AddNListKernel(KernelContext& ctx) {
  const TensorListValue* first = TensorListOf(ctx.input(0));
  if (first == nullptr) return absl::InvalidArgumentError("inputs[0] does not hold a TensorList");
  auto list = std::make_shared<TensorListValue>(*first);
  for (int k = 1; k < ctx.num_inputs(); ++k) {
    const TensorListValue* in = TensorListOf(ctx.input(k));
    if (in == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("inputs[", k, "] does not hold a TensorList"));
    }
    if (in->element_dtype != list->element_dtype || in->elements.size() != list->elements.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot add a list of ", in->elements.size(), " ", DTypeName(in->element_dtype),
          " elements to one of ", list->elements.size(), " ", DTypeName(list->element_dtype)));
    }
    DUET_ASSIGN_OR_RETURN(list->element_shape, MergedElementShape(*list, in->element_shape));
    for (size_t i = 0; i < in->elements.size(); ++i) {
      Tensor& sum = list->elements[i];
      const Tensor& term = in->elements[i];
      if (!term.defined()) continue;
      if (!sum.defined()) {
        sum = term;
      } else {
        DUET_ASSIGN_OR_RETURN(sum, AddElement(sum, term));
      }
    }
  }
  ctx.output(0) = MakeTensorListTensor(std::move(list));
  return absl::OkStatus();
}

// The numeric dtypes: the kernels move elements with memcpy (TensorList element_dtype attrs take
// no strings).
constexpr std::initializer_list<DType> kElementTypes = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                                        kInt32,   kInt64,   kBool,    kUInt8};

const bool kRegistered = [] {
  for (DType dtype : kElementTypes) {
    for (auto [op, fn] :
         {std::pair{"TensorListReserve", &ReserveKernel},
          std::pair{"TensorListFromTensor", &FromTensorKernel},
          std::pair{"TensorListSetItem", &SetItemKernel},
          std::pair{"TensorListGetItem", &GetItemKernel},
          std::pair{"TensorListStack", &StackKernel}, std::pair{"EmptyTensorList", &EmptyKernel},
          std::pair{"TensorListPushBack", &PushBackKernel},
          std::pair{"TensorListPopBack", &PopBackKernel}}) {
      RegisterKernel(op, DeviceType::kCpu, {dtype}, {fn, /*allocates_outputs=*/true});
    }
  }
  // Lists of lists: a While gradient accumulates a list loop variable (Note [While gradients]).
  for (auto [op, fn] : {std::pair{"EmptyTensorList", &EmptyKernel},
                        std::pair{"TensorListPushBack", &PushBackKernel},
                        std::pair{"TensorListPopBack", &PopBackKernel}}) {
    RegisterKernel(op, DeviceType::kCpu, {kVariant}, {fn, /*allocates_outputs=*/true});
  }
  RegisterKernel("ZerosLike", DeviceType::kCpu, {kVariant},
                 {ZerosLikeListKernel, /*allocates_outputs=*/true});
  RegisterKernel("AddN", DeviceType::kCpu, {kVariant},
                 {AddNListKernel, /*allocates_outputs=*/true});
  RegisterKernel("TensorListLength", DeviceType::kCpu, {kFloat32},
                 {LengthKernel, /*allocates_outputs=*/true});
  RegisterKernel("TensorListElementShape", DeviceType::kCpu, {kInt32},
                 {ElementShapeKernel<int32_t>, /*allocates_outputs=*/true});
  RegisterKernel("TensorListElementShape", DeviceType::kCpu, {kInt64},
                 {ElementShapeKernel<int64_t>, /*allocates_outputs=*/true});
  return true;
}();

}  // namespace
}  // namespace duet
