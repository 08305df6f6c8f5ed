// The multi-device cases (tests/device_cases.h) on the virtual device cpu:1, in every test run:
// what the GPU tests check on cuda:0, checked on machines without a GPU (Note [Virtual devices]
// in core/device.cc). The test rules set DUET_VIRTUAL_DEVICES=2.
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/device_cases.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

const Device kVirtual = Device::cpu(1);

TEST_CASE("cpu:1: copies of every dtype there and back") {
  if (SkipWithoutVirtualDevice()) return;
  CheckCopiesEveryDtype(kVirtual);
}

TEST_CASE("cpu:1: reading or printing a tensor copies it to the host") {
  if (SkipWithoutVirtualDevice()) return;
  CheckReadingAndPrintingCopyBack(kVirtual);
}

TEST_CASE("cpu:1: ops run where their inputs are; mixing devices is an error naming both") {
  if (SkipWithoutVirtualDevice()) return;
  CheckOpsRunWhereInputsAre(kVirtual);
}

TEST_CASE("cpu:1: a concat of 70 values there reads its axis on the host") {
  if (SkipWithoutVirtualDevice()) return;
  CheckConcatOfManyValues(kVirtual);
}

TEST_CASE("cpu:1: a DeviceScope runs ops there, copying inputs") {
  if (SkipWithoutVirtualDevice()) return;
  CheckDeviceScope(kVirtual);
}

TEST_CASE("cpu:1: gradients flow back through device copies") {
  if (SkipWithoutVirtualDevice()) return;
  CheckGradientsThroughCopies(kVirtual);
}

TEST_CASE("cpu:1: variables live and update on their device") {
  if (SkipWithoutVirtualDevice()) return;
  CheckVariablesLiveOnTheirDevice(kVirtual);
}

TEST_CASE("cpu:1: a session runs nodes there, copying feeds; fetches come back where made") {
  if (SkipWithoutVirtualDevice()) return;
  CheckSessionOnDevice(kVirtual);
}

TEST_CASE("cpu:1: a session reads and updates a variable on its device") {
  if (SkipWithoutVirtualDevice()) return;
  CheckSessionVariablesOnDevice(kVirtual);
}

TEST_CASE("cpu:1: a fused elementwise chain gets its host scalars copied there") {
  if (SkipWithoutVirtualDevice()) return;
  CheckFusedElementwiseWithHostScalars(kVirtual);
}

TEST_CASE("cpu:1: host code reads its values through copies: passes, shadow check, initializer") {
  if (SkipWithoutVirtualDevice()) return;
  CheckDeviceValuesReadThroughCopies(kVirtual);
}

TEST_CASE("cpu:1: a traced training step equals the host's and copies nothing per step") {
  if (SkipWithoutVirtualDevice()) return;
  CheckTracedTrainingStep(kVirtual);
}

TEST_CASE("cpu:1: cond, while_loop and a cond's gradient in a traced function") {
  if (SkipWithoutVirtualDevice()) return;
  CheckTracedControlFlow(kVirtual);
}

TEST_CASE("cpu:1: nested traced calls across devices, and their gradients") {
  if (SkipWithoutVirtualDevice()) return;
  CheckNestedCallsAndTheirGradients(kVirtual);
}

TEST_CASE("cpu:1: an MLP and a conv-bn-relu CNN train traced with SGD and Adam as on the host") {
  if (SkipWithoutVirtualDevice()) return;
  CheckTracedModelTraining(kVirtual);
}

TEST_CASE("cpu:1: a frozen GraphDef of a function traced there imports and runs there") {
  if (SkipWithoutVirtualDevice()) return;
  CheckFrozenExportOfAFunctionTracedThere(kVirtual);
}

TEST_CASE("cpu:1: a traced function traces again under another DeviceScope, saying so") {
  if (SkipWithoutVirtualDevice()) return;
  auto f = duet::function([](const Tensor& x) { return x * 2.f; });
  const Tensor x = constant({1.f, 2.f});
  CHECK(f(x).device() == Device::cpu());
  {
    DeviceScope on(kVirtual);  // its ops run on cpu:1: another trace
    const Tensor y = f(x);
    CHECK(y.device() == kVirtual);
    CHECK(y.to_vector<float>() == std::vector<float>{2.f, 4.f});
  }
  CHECK(f(x).device() == Device::cpu());
  CHECK(f.trace_count() == 2);
  REQUIRE(f.retrace_reasons().size() == 1);
  CHECK(f.retrace_reasons()[0] == "no DeviceScope -> DeviceScope(cpu:1)");
}

TEST_CASE("a virtual device beyond DUET_VIRTUAL_DEVICES is absent, eagerly and in a session") {
  if (SkipWithoutVirtualDevice()) return;
  ExpectError([] { constant({1.f}).to(Device::cpu(2)); },
              {"DuetCopyToDevice", "cpu:2 is not present", "DUET_VIRTUAL_DEVICES"});
  Graph g;
  {
    GraphScope scope(g);
    DeviceScope on("/cpu:2");
    identity(constant({1.f}) * 2.f, "doubled");
  }
  ExpectError([&] { Session(g).run({}, {"doubled"}); },
              {"doubled", "/device:CPU:2", "not present"});
}

TEST_CASE("cpu:1: its allocator hands out the pool's memory and gets all of it back") {
  if (SkipWithoutVirtualDevice()) return;
  VirtualCpuAllocator* allocator = VirtualCpuAllocator::Get(1);
  REQUIRE(allocator != nullptr);
  CHECK(AllocatorFor(kVirtual) == allocator);
  CHECK(allocator->name() == "cpu_pool:1");
  const int64_t before = allocator->bytes_in_use();
  {
    const Tensor x = random_normal({64, 64}, 1).to(kVirtual);
    for (int i = 0; i < 100; ++i) matmul(x, x) + x;
    CHECK(allocator->bytes_in_use() == before + x.nbytes());
  }
  CHECK(allocator->bytes_in_use() == before);
}

}  // namespace
}  // namespace duet::testing
