// The device check at kernel launch (Note [Device checks] in kernels/kernel_registry.h): a kernel
// handed another device's tensor fails, naming the op, the input and both devices, and never
// runs; CopiedTo moves values for plans and kernels. On the virtual device cpu:1.
#include <catch2/catch.hpp>

#include "core/resource.h"
#include "duet.h"
#include "kernels/kernel_registry.h"
#include "ops/op_registry.h"
#include "tests/device_cases.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectTensorNear;
using testing::SkipWithoutVirtualDevice;

const Device kVirtual = Device::cpu(1);

// A bound call of `op` on `inputs`.
OpCall Call(const char* op, TensorList inputs) {
  OpCall call(OpRegistry::Global().Find(op), std::move(inputs), OpSite("checked"));
  REQUIRE(BindAttrs(call).ok());
  return call;
}

TEST_CASE("a data input on another device fails the check, naming the input and both devices") {
  if (SkipWithoutVirtualDevice()) return;
  const Tensor x = constant({1.f, 2.f}), y = constant({3.f, 4.f}).to(kVirtual);
  const OpCall call = Call("AddV2", {x, y});
  OutputList outputs = {Tensor::Empty(kFloat32, Shape{2}, kVirtual)};
  const absl::Status status = RunKernel(call, kVirtual, outputs);
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(status.message()),
             Catch::Contains("input 0 ('x') is on cpu:0, but the kernel runs on cpu:1") &&
                 Catch::Contains("never reads another device's memory"));
  const OpCall moved = Call("AddV2", {x.to(kVirtual), y});
  CHECK(CheckInputDevices(moved, kVirtual, HostInputs(moved)).ok());
}

TEST_CASE("a host input must be on the host, whatever device the kernel runs on") {
  if (SkipWithoutVirtualDevice()) return;
  const Tensor x = ones({2, 3}).to(kVirtual);
  const OpCall good = Call("Reshape", {x, constant({3, 2})});
  CHECK(CheckInputDevices(good, kVirtual, HostInputs(good)).ok());
  const OpCall bad = Call("Reshape", {x, constant({3, 2}).to(kVirtual)});
  const absl::Status status = CheckInputDevices(bad, kVirtual, HostInputs(bad));
  CHECK_THAT(std::string(status.message()),
             Catch::Contains("input 1 ('shape') is on cpu:1, but the kernel (on cpu:1) reads it "
                             "on the host, cpu:0"));
}

TEST_CASE("list inputs are named by position; copies and multi-device ops take any device") {
  if (SkipWithoutVirtualDevice()) return;
  const Tensor a = ones({2}), b = ones({2}).to(kVirtual);
  const OpCall add_n = Call("AddN", {a, a, b});
  const absl::Status status = CheckInputDevices(add_n, Device::cpu(), HostInputs(add_n));
  CHECK_THAT(std::string(status.message()), Catch::Contains("input 2 ('inputs[2]') is on cpu:1"));
  OpCall copy(OpRegistry::Global().Find("DuetCopyToDevice"), {b}, OpSite());
  copy.attrs[copy.op->attr_index("device")] = std::string("/device:CPU:0");
  REQUIRE(BindAttrs(copy).ok());
  CHECK(CheckInputDevices(copy, Device::cpu(), HostInputs(copy)).ok());
}

TEST_CASE("CopiedTo copies across devices, counting host transfers, and passes objects on") {
  if (SkipWithoutVirtualDevice()) return;
  const Tensor x = constant({1.0, 2.0, 3.0});
  const HostTransfers before = host_transfers();
  absl::StatusOr<Tensor> there = CopiedTo(x, kVirtual);
  REQUIRE(there.ok());
  CHECK(there->device() == kVirtual);
  CHECK_FALSE(there->shares_buffer_with(x));
  absl::StatusOr<Tensor> back = CopiedTo(*there, Device::cpu());
  REQUIRE(back.ok());
  ExpectTensorNear(*back, x, 0);
  const HostTransfers after = host_transfers();
  CHECK(after.to_device - before.to_device == 1);
  CHECK(after.to_host - before.to_host == 1);
  CHECK(CopiedTo(x, Device::cpu())->shares_buffer_with(x));  // already there: no copy
  Variable v(constant(1.0), "copied_to_v");
  CHECK(CopiedTo(v.handle(), kVirtual)->device() == Device::cpu());  // a handle never moves
}

TEST_CASE("kernels check that a variable's value is on their device, not only its handle") {
  if (SkipWithoutVirtualDevice()) return;
  // The launch check sees the handles (on cpu:0); the values behind them, moved here by hand, are
  // not there: each kind of kernel that reads or writes a value says so instead of reading it.
  const std::string elsewhere = "holds its value on cpu:1, but the kernel runs on cpu:0";
  Variable w(constant({1.f, 2.f}), "w_elsewhere");
  Variable m(zeros({2}), "w_elsewhere/m");
  VariableOf(w.handle())->value = w.value().to(kVirtual);
  testing::ExpectError([&] { read_variable_op(w.handle(), kFloat32); },
                       {"ReadVariableOp", "variable 'w_elsewhere' " + elsewhere});
  testing::ExpectError(
      [&] { resource_apply_gradient_descent(w.handle(), constant(0.5f), ones({2})); },
      {"ResourceApplyGradientDescent", "variable 'w_elsewhere' " + elsewhere});
  testing::ExpectError(
      [&] {
        resource_apply_keras_momentum(w.handle(), m.handle(), constant(0.5f), ones({2}),
                                      constant(0.9f));
      },
      {"ResourceApplyKerasMomentum", "variable 'w_elsewhere' " + elsewhere});
  testing::ExpectError([&] { assign_add_variable_op(w.handle(), ones({2})); },
                       {"AssignAddVariableOp", "variable 'w_elsewhere' " + elsewhere});
  // A slot beside its variable's value, both elsewhere, is the same mistake, named by var.
  VariableOf(m.handle())->value = zeros({2}).to(kVirtual);
  testing::ExpectError(
      [&] {
        resource_apply_keras_momentum(w.handle(), m.handle(), constant(0.5f), ones({2}),
                                      constant(0.9f));
      },
      {"ResourceApplyKerasMomentum", "variable 'w_elsewhere' " + elsewhere});
}

TEST_CASE("host code reads a virtual device's memory only inside a kernel") {
  if (SkipWithoutVirtualDevice()) return;
  // Note [Host reads of device memory]: as a GPU's, outside kernels, through a copy.
  const Tensor x = constant({1.f, 2.f}).to(kVirtual);
  testing::ExpectError([&] { (void)x.data<float>(); },
                       {"host code read the memory of a float32 (2,) tensor on cpu:1 outside a "
                        "kernel",
                        "Tensor::cpu"});
  CHECK(x.to_vector<float>() == std::vector<float>{1.f, 2.f});  // through a copy
  const OpCall call = Call("AddV2", {x, x});
  OutputList outputs = {Tensor::Empty(kFloat32, Shape{2}, kVirtual)};
  REQUIRE(RunKernel(call, kVirtual, outputs).ok());  // a kernel reads it, on its threads too
  CHECK(outputs[0].to_vector<float>() == std::vector<float>{2.f, 4.f});
  const Variable v = [] {
    DeviceScope on(kVirtual);
    return Variable(constant(1.f), "host_read_v");
  }();
  REQUIRE(v.handle().device() == kVirtual);
  CHECK(VariableOf(v.handle())->name == "host_read_v");  // a handle's object is a host object
}

TEST_CASE("a kernel that sets its outputs must leave them on its device") {
  if (SkipWithoutVirtualDevice()) return;
  const OpCall call = Call("Identity", {ones({2})});
  OutputList outputs = {ones({2})};
  CHECK(CheckOutputDevices(call, outputs, Device::cpu()).ok());
  const absl::Status status = CheckOutputDevices(call, outputs, kVirtual);
  CHECK(status.code() == absl::StatusCode::kInternal);
  CHECK_THAT(std::string(status.message()),
             Catch::Contains("Identity's kernel on cpu:1 made output 0 on cpu:0"));
}

}  // namespace
}  // namespace duet
