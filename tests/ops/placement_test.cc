// Placement (Note [Placement] in ops/placement.h): the rules read only devices, so tensors
// labeled as living on a GPU (views of CPU memory) exercise them on any machine.
#include "ops/placement.h"

#include <catch2/catch.hpp>

#include "duet.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet {
namespace {

const Device kGpu0 = Device::cuda(0);

// A tensor that claims to live on `device` (for placement only: never run a kernel on it).
Tensor On(const Tensor& t, Device device) { return t.ViewAs(t.dtype(), t.shape(), device); }

OpCall Call(absl::string_view op, TensorList inputs,
            std::vector<std::pair<std::string, AttrValue>> attrs = {}) {
  OpCall call(OpRegistry::Global().Find(op), std::move(inputs), OpSite());
  for (const auto& [name, value] : attrs) call.attrs[call.op->attr_index(name)] = value;
  REQUIRE(BindAttrs(call).ok());
  return call;
}

absl::StatusOr<Device> Place(const OpCall& call, std::optional<Device> scope) {
  return PlaceCall(call, HostInputs(call), scope);
}

TEST_CASE("an op runs where its data inputs are") {
  const Tensor x = constant({{1.f, 2.f}});
  CHECK(*Place(Call("AddV2", {x, x}), std::nullopt) == Device::cpu());
  CHECK(*Place(Call("AddV2", {On(x, kGpu0), On(x, kGpu0)}), std::nullopt) == kGpu0);
}

TEST_CASE("data inputs on two devices are an error naming both") {
  const Tensor x = constant({{1.f, 2.f}});
  const absl::StatusOr<Device> placed = Place(Call("AddV2", {On(x, kGpu0), x}), std::nullopt);
  REQUIRE_FALSE(placed.ok());
  const std::string message(placed.status().message());
  CHECK(message.find("cuda:0") != std::string::npos);
  CHECK(message.find("cpu:0") != std::string::npos);
  CHECK(message.find(".to(device)") != std::string::npos);
}

TEST_CASE("a host scalar or empty host tensor goes along with tensors on a GPU") {
  const Tensor x = constant({{1.f, 2.f}});
  CHECK(*Place(Call("Mul", {constant(2.f), On(x, kGpu0)}), std::nullopt) == kGpu0);
  CHECK(*Place(Call("Mul", {constant(2.f), constant(3.f)}), std::nullopt) == Device::cpu());
  const Tensor empty = zeros({0});
  CHECK(*Place(Call("DenseBincount", {On(constant({1, 2}), kGpu0), constant(4), empty}),
               std::nullopt) == kGpu0);
  // A virtual device's scalar is not the host's: it does not go along.
  CHECK_FALSE(
      Place(Call("Mul", {On(constant(2.f), Device::cpu(1)), On(x, kGpu0)}), std::nullopt).ok());
}

TEST_CASE("calls take each input where it is and run where their data inputs or scope are") {
  // PartitionedCall's placement does not need a function: only Tin/Tout and the inputs.
  const Tensor x = constant({{1.f, 2.f}});
  Variable host_v(constant({1.f}), "placement_call_v");
  auto call_of = [&](TensorList inputs) {
    OpCall call(OpRegistry::Global().Find("PartitionedCall"), std::move(inputs), OpSite());
    std::vector<DType> tin;
    for (const Tensor& t : call.inputs) tin.push_back(t.dtype());
    call.attrs[call.op->attr_index("Tin")] = tin;
    call.attrs[call.op->attr_index("Tout")] = std::vector<DType>{kFloat32};
    return call;
  };
  // A variable does not decide (rule 3 does not apply); the data input does, and inputs on two
  // devices are fine.
  const OpCall mixed = call_of({host_v.handle(), On(x, kGpu0), x});
  CHECK(*Place(mixed, std::nullopt) == kGpu0);
  CHECK(*Place(mixed, Device::cpu(1)) == Device::cpu(1));
  CHECK(*Place(call_of({On(host_v.handle(), kGpu0)}), std::nullopt) == kGpu0);
  for (int i = 0; i < 3; ++i) {
    CHECK_FALSE(RequiredInputDevice(*mixed.op, HostInputs(mixed), i, mixed.inputs[i].dtype(), kGpu0)
                    .has_value());
  }
}

TEST_CASE("a DeviceScope decides over the inputs' device") {
  const Tensor x = constant({{1.f, 2.f}});
  CHECK(*Place(Call("AddV2", {x, x}), kGpu0) == kGpu0);
  CHECK(*Place(Call("AddV2", {On(x, kGpu0), x}), Device::cpu()) == Device::cpu());
  CHECK(*Place(Call("Const", {}, {{"value", x}, {"dtype", kFloat32}}), kGpu0) == kGpu0);
  CHECK(*Place(Call("Const", {}, {{"value", x}, {"dtype", kFloat32}}), std::nullopt) ==
        Device::cpu());
}

TEST_CASE("host inputs stay on the CPU and do not decide placement") {
  const Tensor x = On(constant({{1.f, 2.f}, {3.f, 4.f}}), kGpu0);
  const OpCall reshape = Call("Reshape", {x, from_vector(std::vector<int32_t>{4})});
  CHECK_FALSE(HostInputs(reshape).contains(0));
  CHECK(HostInputs(reshape).contains(1));
  CHECK(*Place(reshape, std::nullopt) == kGpu0);
  const OpDef& op = *reshape.op;
  CHECK(RequiredInputDevice(op, HostInputs(reshape), 0, kFloat32, kGpu0) == kGpu0);
  CHECK(RequiredInputDevice(op, HostInputs(reshape), 1, kInt32, kGpu0) == Device::cpu());
  CHECK(InputName(reshape, 1) == "shape");
  // After a list: ConcatV2's axis comes after its N values, however many there are (past one
  // word of bits too: a mask of 64 once sent a long concat's axis to the GPU).
  for (int n : {3, 63, 64, 70, 130}) {
    INFO(n << " values");
    TensorList inputs(n, x);
    inputs.push_back(constant(int32_t{0}));
    const HostInputs concat(Call("ConcatV2", inputs));
    for (int i = 0; i < n; ++i) CHECK_FALSE(concat.contains(i));
    CHECK(concat.contains(n));
    CHECK_FALSE(concat.contains(n + 1));
  }
  const HostInputs add(Call("AddV2", {x, x}));
  CHECK_FALSE(add.contains(0));
  CHECK_FALSE(add.contains(1));
}

TEST_CASE("host ops run on the CPU, copies where their attr says, variable ops with the variable") {
  const Tensor s = from_vector(std::vector<int32_t>{2, 1});
  CHECK(*Place(Call("BroadcastGradientArgs", {s, s}), kGpu0) == Device::cpu());
  CHECK(*Place(Call("Shape", {On(s, kGpu0)}), std::nullopt) == Device::cpu());
  const Tensor x = constant({1.f});
  CHECK(*Place(Call("DuetCopyToDevice", {x}, {{"device", std::string("/device:GPU:1")}}),
               std::nullopt) == Device::cuda(1));
  Variable v(constant({1.f}), "placement_v");
  const Tensor on_gpu = On(v.handle(), kGpu0);
  CHECK(*Place(Call("ReadVariableOp", {on_gpu}, {{"dtype", kFloat32}}), Device::cpu()) == kGpu0);
}

}  // namespace
}  // namespace duet
