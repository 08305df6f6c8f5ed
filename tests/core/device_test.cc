#include "core/device.h"

#include <catch2/catch.hpp>

namespace duet {
namespace {

TEST_CASE("Device::Parse accepts duet and TensorFlow spellings") {
  struct Case {
    const char* spec;
    Device device;
  };
  for (const Case& c :
       {Case{"cpu", Device::cpu()}, Case{"cpu:0", Device::cpu()}, Case{"CPU:0", Device::cpu()},
        Case{"/device:CPU:0", Device::cpu()}, Case{"cuda:1", Device::cuda(1)},
        Case{"gpu:0", Device::cuda(0)}, Case{"/gpu:2", Device::cuda(2)},
        Case{"/device:GPU:0", Device::cuda(0)}, Case{"cuda", Device::cuda(0)},
        Case{"/job:localhost/replica:0/task:0/device:GPU:1", Device::cuda(1)},
        Case{"/job:worker/task:3/device:CPU:0", Device::cpu()}}) {
    INFO(c.spec);
    absl::StatusOr<Device> d = Device::Parse(c.spec);
    REQUIRE(d.ok());
    CHECK(*d == c.device);
  }
}

TEST_CASE("Device::Parse rejects malformed specs, naming them") {
  for (const char* spec : {"", "tpu:0", "cpu:", "cpu:x", "cuda:-1", "cpu0", "gpu:1:2"}) {
    INFO(spec);
    absl::StatusOr<Device> d = Device::Parse(spec);
    REQUIRE_FALSE(d.ok());
    CHECK(d.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(d.status().message().find(std::string("'") + spec + "'") != absl::string_view::npos);
  }
}

TEST_CASE("Device names and predicates") {
  CHECK(Device().str() == "cpu:0");
  CHECK(Device::cuda(3).str() == "cuda:3");
  CHECK(Device::cpu().tf_name() == "/device:CPU:0");
  CHECK(Device::cuda(1).tf_name() == "/device:GPU:1");
  CHECK(Device::cpu().is_cpu());
  CHECK(Device::cuda().is_cuda());
  CHECK(Device::cuda(0) != Device::cuda(1));
  CHECK(Device(DeviceType::kCuda, 2).index() == 2);
}

TEST_CASE("virtual CPU devices: cpu:1 is a device of its own, not the host") {
  absl::StatusOr<Device> one = Device::Parse("/cpu:1");
  REQUIRE(one.ok());
  CHECK(*one == Device::cpu(1));
  CHECK(Device::Parse("/device:CPU:1").value() == Device::cpu(1));
  CHECK(Device::cpu(1).str() == "cpu:1");
  CHECK(Device::cpu(1).tf_name() == "/device:CPU:1");
  CHECK(Device::cpu(1).is_cpu());
  CHECK_FALSE(Device::cpu(1).is_host());
  CHECK(Device::cpu().is_host());
  CHECK_FALSE(Device::cuda(0).is_host());
}

TEST_CASE("DUET_VIRTUAL_DEVICES=2 (set by the test rules) gives cpu:0 and cpu:1") {
  CHECK(num_cpu_devices() == 2);
  CHECK(device_present(Device::cpu()));
  CHECK(device_present(Device::cpu(1)));
  CHECK_FALSE(device_present(Device::cpu(2)));
  CHECK(device_present(Device::cuda(0)) == (num_gpus() > 0));
}

TEST_CASE("host transfers count copies between the host and another device only") {
  const HostTransfers before = host_transfers();
  CountHostTransfer(Device::cpu(1), Device::cpu());
  CountHostTransfer(Device::cpu(), Device::cuda(0));
  CountHostTransfer(Device::cpu(), Device::cpu());
  CountHostTransfer(Device::cuda(1), Device::cuda(0));
  const HostTransfers after = host_transfers();
  CHECK(after.to_device - before.to_device == 1);
  CHECK(after.to_host - before.to_host == 1);
}

}  // namespace
}  // namespace duet
