// The CUDA device end to end: copies, placement, printing, variables, tapes, sessions and a traced
// training step on the GPU against the same work on the CPU. Every case skips without a GPU.
// Tolerances: float64 training 1e-9 (summation order only); float32 1e-5 relative.
#include <catch2/catch.hpp>

#include "duet.h"
#include "kernels/cuda/cuda_allocator.h"
#include "kernels/cuda/cuda_context.h"
#include "tests/cuda_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectTensorNear;
using testing::SkipWithoutGpu;

TEST_CASE("gpu() and cpu() copy every dtype there and back") {
  if (SkipWithoutGpu()) return;
  for (int64_t n : {0, 1, 1'000'003}) {
    for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool}) {
      INFO(DTypeName(dtype) << " x " << n);
      const Tensor x = cast(random_uniform({n}, 7, kFloat32, -50, 50), dtype);
      const Tensor on_gpu = x.gpu();
      CHECK(on_gpu.device() == Device::cuda(0));
      const Tensor back = on_gpu.cpu();
      CHECK(back.device() == Device::cpu());
      CHECK_FALSE(back.shares_buffer_with(x));
      ExpectTensorNear(back, x, 0);
    }
  }
  if (num_gpus() > 1) {
    const Tensor x = random_normal({1000}, 1);
    ExpectTensorNear(x.gpu().to(Device::cuda(1)).cpu(), x, 0);
  }
}

TEST_CASE("reading or printing a GPU tensor copies it back") {
  if (SkipWithoutGpu()) return;
  const Tensor x = constant({1.5f, -2.f}).gpu();
  CHECK(x.to_vector<float>() == std::vector<float>{1.5f, -2.f});
  CHECK(constant(3.f).gpu().item<float>() == 3.f);
  CHECK(FormatTensor(x) == "Tensor([ 1.5 -2. ], shape=(2,), dtype=float32, device=cuda:0)");
}

TEST_CASE("ops run where their inputs are; mixing devices is an error naming both") {
  if (SkipWithoutGpu()) return;
  const Tensor a = random_normal({4, 4}, 1), b = random_normal({4, 4}, 2);
  const Tensor c = matmul(a.gpu(), b.gpu());
  CHECK(c.device() == Device::cuda(0));
  ExpectTensorNear(c.cpu(), matmul(a, b), 1e-5);
  testing::ExpectError([&] { add(a.gpu(), b); }, {"AddV2", "cuda:0", "cpu:0", "different devices"});
  const Tensor scaled = a.gpu() * 2.f;  // a CPU scalar goes along
  CHECK(scaled.device() == Device::cuda(0));
  ExpectTensorNear(scaled.cpu(), a * 2.f, 0);
}

TEST_CASE("a DeviceScope runs ops on its device, copying inputs there (API.md's example)") {
  if (SkipWithoutGpu()) return;
  const Tensor x = random_normal({8, 8}, 3);
  Tensor y, z;
  {
    DeviceScope on_gpu("/gpu:0");
    y = matmul(x, x);
    z = zeros_like(x);  // x is on the CPU; the op makes its output on the scope's device
  }
  CHECK(y.device() == Device::cuda(0));
  CHECK(z.device() == Device::cuda(0));
  ExpectTensorNear(y.cpu(), matmul(x, x), 1e-5);
  const Tensor r = reduce_sum(y, {1});  // its axis is a host input: stays on the CPU
  CHECK(r.device() == Device::cuda(0));
  ExpectTensorNear(r.cpu(), reduce_sum(matmul(x, x), {1}), 1e-4);
}

TEST_CASE("gradients flow through device copies back to the CPU") {
  if (SkipWithoutGpu()) return;
  const Tensor x = constant({1.0, -2.0, 3.0});
  GradientTape tape;
  tape.watch(x);
  const Tensor g = x.gpu();
  const Tensor loss = reduce_sum(g * g).cpu();
  const Tensor dx = tape.gradient(loss, {x})[0];
  CHECK(dx.device() == Device::cpu());
  ExpectTensorNear(dx, constant({2.0, -4.0, 6.0}), 0);
}

TEST_CASE("a variable made from a GPU value lives and updates on the GPU") {
  if (SkipWithoutGpu()) return;
  Variable v(constant({1.f, 2.f}).gpu(), "gpu_v");
  CHECK(v.value().device() == Device::cuda(0));
  v.assign_add(constant({0.5f, 0.5f}).gpu());
  v.assign_sub(constant({1.f, 1.f}));  // a CPU value: copied to the variable's device
  CHECK(v.value().device() == Device::cuda(0));
  ExpectTensorNear(v.value().cpu(), constant({0.5f, 1.5f}), 0);
}

TEST_CASE("a session runs GPU nodes, copying feeds and values across devices") {
  if (SkipWithoutGpu()) return;
  const Tensor w = random_normal({8, 4}, 1);
  Graph g;
  Tensor x, y, back;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {-1, 8}, "x");  // on the CPU
    {
      DeviceScope on_gpu("/gpu:0");
      y = softmax(relu(matmul(x, w)), "y");
    }
    back = identity(y * 1.f, "back").cpu();
  }
  const Tensor batch = random_normal({5, 8}, 2);
  const Tensor expected = softmax(relu(matmul(batch, w)));
  Session sess(g);
  for (int run = 0; run < 3; ++run) {  // the first run plans; later runs reuse it
    const std::vector<Tensor> out = sess.run({{x, batch}}, {y, back});
    CHECK(out[0].device() == Device::cuda(0));
    CHECK(out[1].device() == Device::cpu());
    ExpectTensorNear(out[0].cpu(), expected, 1e-5);
    ExpectTensorNear(out[1], expected, 1e-5);
  }
}

TEST_CASE("a training step traced and run entirely on the GPU equals the CPU's") {
  if (SkipWithoutGpu()) return;
  auto make = [](Device device) {
    DeviceScope on(device);
    return std::vector<Variable>{Variable(random_normal({6, 8}, 11, kFloat64, 0, 0.3), "w1"),
                                 Variable(zeros({8}, kFloat64), "b1"),
                                 Variable(random_normal({8, 3}, 12, kFloat64, 0, 0.3), "w2"),
                                 Variable(zeros({3}, kFloat64), "b2")};
  };
  const std::vector<Variable> cpu_vars = make(Device::cpu()), gpu_vars = make(Device::cuda(0));
  auto step_of = [](const std::vector<Variable>& v) {
    return duet::function([v](const Tensor& xs, const Tensor& ys) {
      GradientTape tape;
      const Tensor h = relu(bias_add(matmul(xs, v[0]), v[1]));
      const Tensor loss = reduce_mean(
          sparse_softmax_cross_entropy_with_logits(ys, bias_add(matmul(h, v[2]), v[3])));
      const std::vector<Tensor> grads =
          tape.gradient(loss, std::vector<GradientSource>(v.begin(), v.end()));
      for (size_t i = 0; i < v.size(); ++i) v[i].assign_sub(0.1 * grads[i]);
      return loss;
    });
  };
  auto cpu_step = step_of(cpu_vars);
  auto gpu_step = step_of(gpu_vars);
  const Tensor x = random_normal({16, 6}, 5, kFloat64);
  const Tensor y = cast(floor(random_uniform({16}, 6, kFloat32, 0, 3)), kInt64);
  const Tensor gx = x.gpu(), gy = y.gpu();
  std::vector<Tensor> gpu_losses;
  gpu_losses.push_back(gpu_step(gx, gy));  // traces and plans
  // The steps, gradients and updates included, never touch the host: no copy either way.
  const cuda::HostTransfers before = cuda::host_transfers();
  for (int step = 1; step < 10; ++step) gpu_losses.push_back(gpu_step(gx, gy));
  const cuda::HostTransfers after = cuda::host_transfers();
  CHECK(after.to_device == before.to_device);
  CHECK(after.to_host == before.to_host);
  for (int step = 0; step < 10; ++step) {
    INFO("step " << step);
    CHECK(gpu_losses[step].device() == Device::cuda(0));
    ExpectTensorNear(gpu_losses[step].cpu(), cpu_step(x, y), 1e-9);
  }
  for (size_t i = 0; i < cpu_vars.size(); ++i) {
    CHECK(gpu_vars[i].value().device() == Device::cuda(0));
    ExpectTensorNear(gpu_vars[i].value().cpu(), cpu_vars[i].value(), 1e-9);
  }
}

TEST_CASE("repeated GPU ops reuse cached blocks: no cudaMalloc in the steady state") {
  if (SkipWithoutGpu()) return;
  const Tensor x = random_normal({256, 256}, 1).gpu();
  for (int i = 0; i < 3; ++i) matmul(x, x) + x;  // warm up the size classes
  CudaAllocator* allocator = CudaAllocator::Get(0);
  const CudaAllocator::Stats before = allocator->stats();
  for (int i = 0; i < 100; ++i) matmul(x, x) + x;
  const CudaAllocator::Stats after = allocator->stats();
  CHECK(after.allocations - before.allocations == after.pool_hits - before.pool_hits);
  empty_cache();
  CHECK(allocator->stats().bytes_pooled == 0);
}

}  // namespace
}  // namespace duet
