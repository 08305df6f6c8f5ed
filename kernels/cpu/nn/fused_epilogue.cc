#include "kernels/cpu/nn/fused_epilogue.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/half.h"

namespace duet {
namespace {

// TensorFlow's definitions, which oneDNN's post-ops in EpilogueDnnlAttr compute too.
template <typename Acc>
Acc Activate(FusedActivation activation, Acc x, Acc leakyrelu_alpha) {
  switch (activation) {
    case FusedActivation::kNone:
      return x;
    case FusedActivation::kRelu:
      return x > 0 ? x : Acc(0);
    case FusedActivation::kRelu6:
      return std::min(x > 0 ? x : Acc(0), Acc(6));
    case FusedActivation::kElu:
      return x > 0 ? x : std::expm1(x);
    case FusedActivation::kTanh:
      return std::tanh(x);
    case FusedActivation::kSigmoid:
      return Acc(1) / (Acc(1) + std::exp(-x));
    case FusedActivation::kLeakyRelu:
      return x > 0 ? x : x * leakyrelu_alpha;
  }
  return x;
}

// T stored, Acc computed in: float for bfloat16, else T itself.
template <typename T, typename Acc>
void ApplyTyped(const FusedEpilogue& epilogue, const Tensor& bias, const Tensor* residual,
                Tensor& out, ThreadPool& pool) {
  const int64_t channels = bias.num_elements();
  const int64_t rows = out.num_elements() / std::max<int64_t>(channels, 1);
  const T* b = bias.data<T>();
  const T* add = residual != nullptr ? residual->data<T>() : nullptr;
  T* o = out.mutable_data<T>();
  const Acc alpha = static_cast<Acc>(epilogue.leakyrelu_alpha);
  pool.ParallelFor(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(channels, 1)),
                   [&](int64_t begin, int64_t end) {
                     for (int64_t r = begin; r < end; ++r) {
                       T* row = o + r * channels;
                       const T* add_row = add != nullptr ? add + r * channels : nullptr;
                       for (int64_t c = 0; c < channels; ++c) {
                         Acc x = static_cast<Acc>(row[c]) + static_cast<Acc>(b[c]);
                         if (add_row != nullptr) x += static_cast<Acc>(add_row[c]);
                         row[c] = T(Activate(epilogue.activation, x, alpha));
                       }
                     }
                   });
}

}  // namespace

void AppendEpilogueKey(const FusedEpilogue& epilogue, DnnlKey& key) {
  key.push_back(epilogue.add_residual);
  key.push_back(static_cast<int64_t>(epilogue.activation));
  key.push_back(std::bit_cast<int32_t>(epilogue.leakyrelu_alpha));
}

dnnl::primitive_attr EpilogueDnnlAttr(const FusedEpilogue& epilogue) {
  using dnnl::algorithm;
  dnnl::post_ops ops;
  // A sum rather than a binary add of the residual: oneDNN 2.6 keeps its fastest (brgemm)
  // convolutions for a sum, not for a binary post-op, and a static plan gives the output the
  // residual's buffer, so dst holds it without a copy (Note [In-place outputs]).
  if (epilogue.add_residual) ops.append_sum(1.f);
  switch (epilogue.activation) {
    case FusedActivation::kNone:
      break;
    case FusedActivation::kRelu:
      ops.append_eltwise(1.f, algorithm::eltwise_relu, 0.f, 0.f);
      break;
    case FusedActivation::kRelu6:
      ops.append_eltwise(1.f, algorithm::eltwise_clip, 0.f, 6.f);
      break;
    case FusedActivation::kElu:
      ops.append_eltwise(1.f, algorithm::eltwise_elu, 1.f, 0.f);
      break;
    case FusedActivation::kTanh:
      ops.append_eltwise(1.f, algorithm::eltwise_tanh, 0.f, 0.f);
      break;
    case FusedActivation::kSigmoid:
      ops.append_eltwise(1.f, algorithm::eltwise_logistic, 0.f, 0.f);
      break;
    case FusedActivation::kLeakyRelu:
      ops.append_eltwise(1.f, algorithm::eltwise_relu, epilogue.leakyrelu_alpha, 0.f);
      break;
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  return attr;
}

void MoveResidualIntoOutput(KernelContext& ctx) {
  const Tensor& residual = ctx.input(kResidualInput);
  Tensor& out = ctx.output(0);
  if (residual.raw_data() != out.raw_data()) {
    std::memcpy(out.raw_data(), residual.raw_data(), out.nbytes());
  }
}

Tensor ResidualBeforeOverwrite(KernelContext& ctx) {
  const Tensor& residual = ctx.input(kResidualInput);
  if (residual.raw_data() != ctx.output(0).raw_data()) return residual;
  Tensor copy = Tensor::Empty(residual.dtype(), residual.shape(), residual.device());
  std::memcpy(copy.raw_data(), residual.raw_data(), residual.nbytes());
  return copy;
}

void ApplyFusedEpilogue(const FusedEpilogue& epilogue, const Tensor& bias, const Tensor* residual,
                        Tensor& out, ThreadPool& pool) {
  switch (out.dtype()) {
    case kFloat64:
      return ApplyTyped<double, double>(epilogue, bias, residual, out, pool);
    case kBFloat16:
      return ApplyTyped<bfloat16, float>(epilogue, bias, residual, out, pool);
    default:
      return ApplyTyped<float, float>(epilogue, bias, residual, out, pool);
  }
}

}  // namespace duet
