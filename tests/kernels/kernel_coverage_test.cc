// Kernels x dtypes x devices, driven by the registry (as tests/gradients/gradient_coverage_test.cc
// is for gradients): every dtype an op's OpDef allows has a CPU kernel, and every op with CUDA
// kernels has them for every allowed dtype, unless the gap is listed below with its reason.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "duet.h"
#include "kernels/kernel_registry.h"
#include "ops/op_registry.h"

namespace duet {
namespace {

// The dtypes an op's dispatch attr allows (every numeric dtype when it lists none: an unlisted
// attr refuses strings, Note [String tensors] in core/tensor.cc); ops without a type attr
// dispatch on float32.
std::vector<DType> DispatchTypes(const OpDef& op) {
  if (op.dispatch_attr < 0) return {kFloat32};
  const std::vector<DType>& allowed = op.attrs[op.dispatch_attr].allowed_types;
  if (!allowed.empty()) return allowed;
  std::vector<DType> all;
  for (int d = 0; d < kNumNumericDTypes; ++d) all.push_back(static_cast<DType>(d));
  return all;
}

struct Gap {
  const char* op;
  DeviceType device;
  DType dtype;
  const char* why;
};

// Allowed dtypes without a kernel, each with its reason.
const Gap kGaps[] = {
    // TensorFlow's OpDefs allow any dtype; adding to a bool variable means nothing (TensorFlow has
    // no such kernel either).
    {"AssignAddVariableOp", DeviceType::kCpu, kBool, "bool has no addition"},
    {"AssignAddVariableOp", DeviceType::kCuda, kBool, "bool has no addition"},
    {"AssignSubVariableOp", DeviceType::kCpu, kBool, "bool has no subtraction"},
    {"AssignSubVariableOp", DeviceType::kCuda, kBool, "bool has no subtraction"},
    // uint8 (images) has no arithmetic kernels (AddV2, Sub), which the updates run.
    {"AssignAddVariableOp", DeviceType::kCpu, kUInt8, "uint8 has no AddV2 kernel"},
    {"AssignSubVariableOp", DeviceType::kCpu, kUInt8, "uint8 has no Sub kernel"},
    // TensorLists live on the host (ops/list/list_ops.h): their zeros and sums are CPU kernels.
    {"ZerosLike", DeviceType::kCuda, kVariant, "TensorLists live on the host"},
    {"AddN", DeviceType::kCuda, kVariant, "TensorLists live on the host"},
};

bool Listed(const OpDef& op, DeviceType device, DType dtype) {
  for (const Gap& gap : kGaps) {
    if (op.name == gap.op && gap.device == device && gap.dtype == dtype) return true;
  }
  return false;
}

bool HasAnyKernel(const OpDef& op, DeviceType device) {
  for (int d = 0; d < kNumDTypes; ++d) {
    if (FindKernel(op, device, static_cast<DType>(d)) != nullptr) return true;
  }
  return false;
}

TEST_CASE("every dtype an op allows has a kernel on the CPU, and on CUDA where the op has any") {
  for (const OpDef* op : OpRegistry::Global().All()) {
    for (DeviceType device : {DeviceType::kCpu, DeviceType::kCuda}) {
      if (device != DeviceType::kCpu && !HasAnyKernel(*op, device)) continue;
      for (DType dtype : DispatchTypes(*op)) {
        if (dtype == kResource) continue;  // Placeholder's any: resources are never computed on
        if (device == DeviceType::kCuda && dtype == kString) continue;  // strings: CPU only
        // uint8 (images) is computed on the CPU; on CUDA only views and copies take it.
        if (device == DeviceType::kCuda && dtype == kUInt8) continue;
        if (FindKernel(*op, device, dtype) != nullptr || Listed(*op, device, dtype)) continue;
        FAIL_CHECK(
            op->name << " allows " << DTypeName(dtype) << " but has no "
                     << (device == DeviceType::kCpu ? "CPU" : "CUDA")
                     << " kernel for it (add one, or list the gap in kGaps with its reason)");
      }
    }
  }
}

TEST_CASE("every listed gap is still a gap of an op that allows the dtype") {
  for (const Gap& gap : kGaps) {
    INFO(gap.op << " " << DTypeName(gap.dtype));
    const OpDef* op = OpRegistry::Global().Find(gap.op);
    REQUIRE(op != nullptr);
    const std::vector<DType> allowed = DispatchTypes(*op);
    CHECK(std::find(allowed.begin(), allowed.end(), gap.dtype) != allowed.end());
    CHECK(FindKernel(*op, gap.device, gap.dtype) == nullptr);
  }
}

}  // namespace
}  // namespace duet
