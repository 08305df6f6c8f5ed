#include "eager/eager_context.h"

#include <catch2/catch.hpp>

#include "core/allocator.h"
#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

TEST_CASE("eager is the default context") {
  CHECK(executing_eagerly());
  CHECK(&ExecutionContext::Current() == &EagerContext::Get());
}

TEST_CASE("an eager op allocates exactly its outputs") {
  Tensor a = constant({{1.f, 2.f}, {3.f, 4.f}});
  { Tensor warm = a + a; }  // builds the kernel table and leaves a free block in the pool
  const auto before = CpuAllocator::Get().stats();
  Tensor c = a + a;
  const auto after = CpuAllocator::Get().stats();
  CHECK(after.allocations - before.allocations == 1);
  // Freed buffers are reused: the steady state takes blocks from the pool.
  CHECK(after.pool_hits - before.pool_hits == 1);
}

TEST_CASE("a symbolic tensor given to an eager op is a clear error") {
  auto impl = std::make_shared<TensorImpl>();
  impl->shape = Shape{2};
  Tensor symbolic(impl);
  testing::ExpectError([&] { add(symbolic, symbolic); }, {"AddV2", "symbolic", "GraphScope"});
}

TEST_CASE("inputs on different devices are a clear error naming both") {
  Tensor a = constant({1.f, 2.f});
  Tensor on_gpu = a.ViewAs(kFloat32, a.shape(), Device::cuda(0));  // metadata only
  testing::ExpectError([&] { add(a, on_gpu); }, {"AddV2", "cpu:0", "cuda:0", "different devices"});
}

TEST_CASE("an op placed on an absent device is a clear error") {
  if (num_gpus() > 0) return;  // the GPU tests (tests/kernels/cuda/) cover a present one
  Tensor one = constant({1.f});
  Tensor on_gpu = one.ViewAs(kFloat32, one.shape(), Device::cuda(0));  // metadata only
  testing::ExpectError([&] { add(on_gpu, on_gpu); }, {"AddV2", "cuda:0", "not present"});
  testing::ExpectError([&] { one.gpu(); }, {"DuetCopyToDevice", "cuda:0", "not present"});
  DeviceScope on_gpu_scope("/gpu:0");
  testing::ExpectError([&] { add(one, one); }, {"AddV2", "cuda:0", "not present"});
}

TEST_CASE("shape ops read a tensor on another device without copying it") {
  Tensor a = constant({{1.f, 2.f, 3.f}});
  Tensor on_gpu = a.ViewAs(kFloat32, a.shape(), Device::cuda(0));  // metadata only
  CHECK(shape_of(on_gpu).to_vector<int32_t>() == std::vector<int32_t>{1, 3});
  CHECK(size(on_gpu).item<int32_t>() == 3);
  CHECK(rank(on_gpu).item<int32_t>() == 2);
}

TEST_CASE("to() a tensor's own device is the tensor itself") {
  Tensor a = constant({1.f, 2.f});
  CHECK(a.cpu().shares_buffer_with(a));
  CHECK(a.to(Device::cpu()).shares_buffer_with(a));
}

TEST_CASE("DeviceScope nests and restores") {
  CHECK(DeviceScope::Current() == Device::cpu());
  CHECK_FALSE(DeviceScope::Innermost().has_value());
  {
    DeviceScope outer("/gpu:1");
    CHECK(DeviceScope::Current() == Device::cuda(1));
    CHECK(DeviceScope::Innermost() == Device::cuda(1));
    {
      DeviceScope inner(Device::cpu());
      CHECK(DeviceScope::Current() == Device::cpu());
    }
    CHECK(DeviceScope::Current() == Device::cuda(1));
  }
  CHECK(DeviceScope::Current() == Device::cpu());
  CHECK_FALSE(DeviceScope::Innermost().has_value());
  testing::ExpectError([] { DeviceScope bad("tpu:0"); }, {"unknown device", "tpu:0"});
}

TEST_CASE("num_gpus is zero or more and never throws") { CHECK(num_gpus() >= 0); }

}  // namespace
}  // namespace duet
