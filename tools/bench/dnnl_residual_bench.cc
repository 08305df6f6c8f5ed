// How oneDNN (2.6, Debian's) best adds a residual to a 1x1 convolution + bias before a Relu: the
// choice behind the fused ops' sum post-op (kernels/cpu/nn/fused_epilogue.cc) and Note [In-place
// outputs] (graph/plan.cc). Per shape, interleaved, fastest repetition of each:
//   separate: convolution + bias, then dst = relu(dst + residual) in a loop on duet's thread pool
//             (what duet ran before the residual fusion);
//   binary:   a binary-add post-op reading the residual, then an eltwise Relu post-op;
//   sum:      a sum post-op over a dst that already holds the residual, then Relu (the fused
//             kernels in a static plan, where the output shares the residual's buffer).
// Prints onednn.<variant>.<shape> lines (ms) and the implementation oneDNN picked for each.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/thread_pool.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "tools/bench/bench_util.h"

namespace {

using dnnl::memory;

struct Shape {
  int n, hw, in_c, out_c;  // N x hw x hw x in_c -> out_c, 1x1, stride 1
};

enum class Variant { kSeparate, kBinary, kSum };

struct Case {
  dnnl::convolution_forward conv;
  std::unordered_map<int, memory> args;
  std::string impl;
};

Case Make(const dnnl::engine& engine, const Shape& s, Variant v, const memory& src,
          const memory& bias, const memory& dst, const memory& residual) {
  const memory::desc weights_any({s.out_c, s.in_c, 1, 1}, memory::data_type::f32,
                                 memory::format_tag::any);
  dnnl::post_ops ops;
  if (v == Variant::kBinary) ops.append_binary(dnnl::algorithm::binary_add, dst.get_desc());
  if (v == Variant::kSum) ops.append_sum(1.f);
  if (v != Variant::kSeparate) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  const dnnl::convolution_forward::primitive_desc pd(
      dnnl::convolution_forward::desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src.get_desc(),
          weights_any, bias.get_desc(), dst.get_desc(), {1, 1}, {0, 0}, {0, 0}, {0, 0}),
      attr, engine);
  memory weights(pd.weights_desc(), engine);
  std::memset(weights.get_data_handle(), 0, pd.weights_desc().get_size());
  Case c{dnnl::convolution_forward(pd),
         {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_BIAS, bias}},
         pd.impl_info_str()};
  // The sum variant writes over the residual itself, as the plan arranges.
  c.args[DNNL_ARG_DST] = v == Variant::kSum ? residual : dst;
  if (v == Variant::kBinary) c.args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = residual;
  return c;
}

memory Zeros(const dnnl::engine& engine, const memory::desc& md) {
  memory m(md, engine);
  std::memset(m.get_data_handle(), 0, md.get_size());
  return m;
}

void Run(const dnnl::engine& engine, dnnl::stream& stream, const Shape& s) {
  const auto nhwc = [&](int c) {
    return memory::desc({s.n, c, s.hw, s.hw}, memory::data_type::f32, memory::format_tag::nhwc);
  };
  const memory src = Zeros(engine, nhwc(s.in_c)), dst = Zeros(engine, nhwc(s.out_c));
  const memory residual = Zeros(engine, nhwc(s.out_c));
  const memory bias = Zeros(engine, {{s.out_c}, memory::data_type::f32, memory::format_tag::x});
  std::vector<Case> cases;
  for (Variant v : {Variant::kSeparate, Variant::kBinary, Variant::kSum}) {
    cases.push_back(Make(engine, s, v, src, bias, dst, residual));
  }
  const int64_t n = static_cast<int64_t>(s.n) * s.hw * s.hw * s.out_c;
  auto* out = static_cast<float*>(dst.get_data_handle());
  const auto* add = static_cast<const float*>(residual.get_data_handle());
  std::vector<std::function<void()>> fns;
  for (size_t i = 0; i < cases.size(); ++i) {
    fns.push_back([&, i] {
      cases[i].conv.execute(stream, cases[i].args);
      stream.wait();
      if (i != 0) return;
      duet::ThreadPool::Intra().ParallelFor(n, 16 * 1024, [&](int64_t begin, int64_t end) {
        for (int64_t k = begin; k < end; ++k) out[k] = std::max(out[k] + add[k], 0.f);
      });
    });
  }
  const std::vector<double> seconds = duet_bench::InterleavedMinSecondsPerCall(fns);
  const std::string name = std::to_string(s.n) + "x" + std::to_string(s.hw) + "x" +
                           std::to_string(s.hw) + "x" + std::to_string(s.in_c) + "_to_" +
                           std::to_string(s.out_c);
  const char* variants[] = {"separate", "binary", "sum"};
  for (size_t i = 0; i < cases.size(); ++i) {
    std::printf("onednn.%s.%s\t%.4f\tms\t(%s)\n", variants[i], name.c_str(), seconds[i] * 1e3,
                cases[i].impl.c_str());
  }
}

}  // namespace

int main() {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  // MobileNetV2's residual sums (24..96 channels) and ResNet-50's (256..1024), batch 32, 96x96.
  for (const Shape& s :
       {Shape{32, 24, 144, 24}, Shape{32, 12, 192, 32}, Shape{32, 6, 384, 64},
        Shape{32, 24, 64, 256}, Shape{32, 12, 128, 512}, Shape{32, 6, 256, 1024}}) {
    Run(engine, stream, s);
  }
  return 0;
}
