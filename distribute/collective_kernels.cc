// The kernels of the collective ops (collective_ops.h): each finds its group's backend (Note
// [Collective groups]) and runs the collective there. Gloo and MPI work on host memory, so on
// another device (a GPU, a virtual CPU device) the input is copied to the host and the result
// back; NCCL takes its GPU's tensors as they are (Backend::works_on). One kernel serves every
// device.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "core/half.h"
#include "distribute/backend.h"
#include "distribute/collective_attrs.h"
#include "distribute/collective_groups.h"
#include "distribute/collective_ops.h"
#include "kernels/kernel_registry.h"

namespace duet::distribute {
namespace {

using backend_internal::DivideBySize;

// The backend named by the key inputs first .. first + 2 (group_size, group_key, instance_key).
absl::StatusOr<std::shared_ptr<Backend>> GroupOf(const KernelContext& ctx, int first) {
  return FindGroup(ctx.input(first + 1).data<int32_t>()[0], ctx.input(first).data<int32_t>()[0]);
}

// Runs a backend's collective, which throws Error on failure (a peer gone, a timeout).
template <typename Fn>
absl::StatusOr<Tensor> Collective(Fn&& fn) {
  try {
    return fn();
  } catch (const Error& e) {
    return e.status();
  }
}

// The kernel's input 0 where `backend` works on it: as it is on a device the backend works on
// (NCCL's GPU), else copied to the host.
absl::StatusOr<Tensor> BackendInput(const KernelContext& ctx, const Backend& backend) {
  if (backend.works_on(ctx.device())) return ctx.input(0);
  return CopiedTo(ctx.input(0), Device::cpu());
}

// Note [Half collectives]: Gloo and MPI have no float16 or bfloat16 arithmetic, so a host
// all-reduce of those widens them to float32, reduces, and rounds once at the end (closer to the
// exact result than reducing in the narrow type). NCCL reduces them on its GPU itself.
template <typename Half>
Tensor Widened(const Tensor& host) {
  Tensor out = Tensor::Empty(kFloat32, host.shape());
  const Half* from = host.data<Half>();
  float* to = out.mutable_data<float>();
  for (int64_t i = 0; i < host.num_elements(); ++i) to[i] = static_cast<float>(from[i]);
  return out;
}

template <typename Half>
Tensor Narrowed(const Tensor& wide, DType dtype) {
  Tensor out = Tensor::Empty(dtype, wide.shape());
  const float* from = wide.data<float>();
  Half* to = out.mutable_data<Half>();
  for (int64_t i = 0; i < wide.num_elements(); ++i) to[i] = Half(from[i]);
  return out;
}

// backend's all-reduce of `in`; float16 and bfloat16 host tensors through float32 (Note [Half
// collectives]). A GPU tensor goes as it is: it is NCCL's, which reduces them itself.
Tensor AllReduce(Backend& backend, const Tensor& in, ReduceOp op) {
  if (!in.device().is_host() || (in.dtype() != kFloat16 && in.dtype() != kBFloat16)) {
    return backend.all_reduce(in, op);
  }
  if (in.dtype() == kFloat16) {
    return Narrowed<float16>(backend.all_reduce(Widened<float16>(in), op), kFloat16);
  }
  return Narrowed<bfloat16>(backend.all_reduce(Widened<bfloat16>(in), op), kBFloat16);
}

ReduceOp ReduceOpOf(const std::string& merge_op, bool divide) {
  if (merge_op == "Add") return divide ? ReduceOp::kMean : ReduceOp::kSum;
  if (merge_op == "Mul") return ReduceOp::kProduct;
  return merge_op == "Min" ? ReduceOp::kMin : ReduceOp::kMax;
}

absl::Status ReduceKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(std::shared_ptr<Backend> backend, GroupOf(ctx, 1));
  DUET_ASSIGN_OR_RETURN(const Tensor in, BackendInput(ctx, *backend));
  const bool divide = ctx.attr(CollectiveReduceAttrs::kFinalOp) == "Div";
  const ReduceOp op = ReduceOpOf(ctx.attr(CollectiveReduceAttrs::kMergeOp), divide);
  DUET_ASSIGN_OR_RETURN(Tensor out, Collective([&] {
                          Tensor reduced = AllReduce(*backend, in, op);
                          // Min, Max or Mul, then Div: TensorFlow allows it.
                          if (divide && op != ReduceOp::kMean) {
                            reduced = ValueOrThrow(CopiedTo(reduced, Device::cpu()));
                            DivideBySize(reduced, backend->size());
                          }
                          return reduced;
                        }));
  DUET_ASSIGN_OR_RETURN(ctx.output(0), CopiedTo(out, ctx.device()));
  return absl::OkStatus();
}

absl::Status GatherKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(std::shared_ptr<Backend> backend, GroupOf(ctx, 1));
  DUET_ASSIGN_OR_RETURN(const Tensor in, BackendInput(ctx, *backend));
  DUET_ASSIGN_OR_RETURN(const Tensor stacked, Collective([&] { return backend->all_gather(in); }));
  std::vector<int64_t> dims(in.shape().dims().begin(), in.shape().dims().end());
  dims[0] *= backend->size();  // (size, d0, d1, ...) is (size * d0, d1, ...) in memory
  DUET_ASSIGN_OR_RETURN(ctx.output(0),
                        CopiedTo(stacked.reshaped(Shape(absl::MakeConstSpan(dims))), ctx.device()));
  return absl::OkStatus();
}

// Note [Broadcast roots]: TensorFlow's broadcast ops do not name the sending rank; the receivers
// learn it from the group. Here every rank first takes part in one all-reduce (sum) of [1, rank +
// 1] from the sender and [0, 0] from the receivers, which gives every rank the number of senders
// and the root, then in the backend's broadcast from that root. A group where no rank or two
// ranks send is an error on every rank.
absl::StatusOr<int> BroadcastRoot(Backend& backend, bool sending) {
  const std::vector<int32_t> mine =
      sending ? std::vector<int32_t>{1, backend.rank() + 1} : std::vector<int32_t>{0, 0};
  DUET_ASSIGN_OR_RETURN(const Tensor reduced, Collective([&] {
                          return backend.all_reduce(from_vector(mine), ReduceOp::kSum);
                        }));
  DUET_ASSIGN_OR_RETURN(const Tensor found, CopiedTo(reduced, Device::cpu()));  // NCCL: its GPU
  const int32_t senders = found.data<int32_t>()[0];
  if (senders != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        senders, " ranks of the group sent the broadcast (CollectiveBcastSendV2); one must"));
  }
  return found.data<int32_t>()[1] - 1;
}

absl::Status BcastSendKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(std::shared_ptr<Backend> backend, GroupOf(ctx, 1));
  DUET_ASSIGN_OR_RETURN(const Tensor in, BackendInput(ctx, *backend));
  DUET_ASSIGN_OR_RETURN(const int root, BroadcastRoot(*backend, /*sending=*/true));
  DUET_RETURN_IF_ERROR(Collective([&] { return backend->broadcast(in, root); }).status());
  ctx.output(0) = ctx.input(0);
  return absl::OkStatus();
}

absl::Status BcastRecvKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(std::shared_ptr<Backend> backend, GroupOf(ctx, 0));
  DUET_ASSIGN_OR_RETURN(const Tensor shape_input, CopiedTo(ctx.input(3), Device::cpu()));
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < shape_input.num_elements(); ++i) {
    dims.push_back(shape_input.dtype() == kInt32 ? shape_input.data<int32_t>()[i]
                                                 : shape_input.data<int64_t>()[i]);
  }
  const DType dtype = ctx.attr(CollectiveBcastRecvAttrs::kT);
  const Tensor like = Tensor::Empty(dtype, Shape(absl::MakeConstSpan(dims)));
  DUET_ASSIGN_OR_RETURN(const int root, BroadcastRoot(*backend, /*sending=*/false));
  DUET_ASSIGN_OR_RETURN(Tensor out, Collective([&] { return backend->broadcast(like, root); }));
  DUET_ASSIGN_OR_RETURN(ctx.output(0), CopiedTo(out, ctx.device()));
  return absl::OkStatus();
}

// TensorFlow's dtypes of each op (collective_ops.cc): every one has a kernel on both devices.
#define DUET_REDUCE_DTYPES \
  { kBFloat16, kFloat32, kFloat16, kFloat64, kInt32, kInt64 }
#define DUET_GATHER_DTYPES \
  { kFloat32, kFloat16, kFloat64, kInt32, kInt64 }
#define DUET_BCAST_DTYPES \
  { kBool, kFloat32, kFloat16, kFloat64, kInt32, kInt64 }

const KernelDef kReduce{.fn = ReduceKernel, .allocates_outputs = true};
const KernelDef kGather{.fn = GatherKernel, .allocates_outputs = true};
const KernelDef kBcastSend{.fn = BcastSendKernel, .allocates_outputs = true};
const KernelDef kBcastRecv{.fn = BcastRecvKernel, .allocates_outputs = true};

const KernelRegistrar kReduceCpu("CollectiveReduceV2", DeviceType::kCpu, DUET_REDUCE_DTYPES,
                                 kReduce);
const KernelRegistrar kReduceCuda("CollectiveReduceV2", DeviceType::kCuda, DUET_REDUCE_DTYPES,
                                  kReduce);
const KernelRegistrar kGatherCpu("CollectiveGatherV2", DeviceType::kCpu, DUET_GATHER_DTYPES,
                                 kGather);
const KernelRegistrar kGatherCuda("CollectiveGatherV2", DeviceType::kCuda, DUET_GATHER_DTYPES,
                                  kGather);
const KernelRegistrar kBcastSendCpu("CollectiveBcastSendV2", DeviceType::kCpu, DUET_BCAST_DTYPES,
                                    kBcastSend);
const KernelRegistrar kBcastSendCuda("CollectiveBcastSendV2", DeviceType::kCuda, DUET_BCAST_DTYPES,
                                     kBcastSend);
const KernelRegistrar kBcastRecvCpu("CollectiveBcastRecvV2", DeviceType::kCpu, DUET_BCAST_DTYPES,
                                    kBcastRecv);
const KernelRegistrar kBcastRecvCuda("CollectiveBcastRecvV2", DeviceType::kCuda, DUET_BCAST_DTYPES,
                                     kBcastRecv);

#undef DUET_REDUCE_DTYPES
#undef DUET_GATHER_DTYPES
#undef DUET_BCAST_DTYPES

}  // namespace
}  // namespace duet::distribute
