#include "kernels/cpu/nn/fused_epilogue.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

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

dnnl::primitive_attr EpilogueDnnlAttr(const FusedEpilogue& epilogue,
                                      const dnnl::memory::desc& dst) {
  using dnnl::algorithm;
  dnnl::post_ops ops;
  // A binary add rather than a sum post-op: it reads the residual where it is, where a sum would
  // need it copied into dst first. kResidualArg assumes it is post-op 0.
  if (epilogue.add_residual) ops.append_binary(algorithm::binary_add, dst);
  // append_eltwise(scale, algorithm, alpha, beta); see oneDNN's eltwise documentation.
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

void AddResidualBuffer(const FusedEpilogue& epilogue, const dnnl::memory::desc& dst, DnnlPlan& p,
                       std::unordered_map<int, dnnl::memory>& args) {
  if (!epilogue.add_residual) return;
  p.AddBuffer(kResidualArg, dst, DnnlUse::kRead);
  args.emplace(kResidualArg, p.buffer(kResidualArg));
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
