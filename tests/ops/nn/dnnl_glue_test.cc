// The shared oneDNN glue in kernels/cpu/common: the direct f32 matmul benchmarks compare against,
// the per-thread plan cache (with its float32 fallback for 16-bit data), dtype mapping and error
// conversion.
#include <catch2/catch.hpp>
#include <thread>

#include "core/constant.h"
#include "kernels/common/window_geometry.h"
#include "kernels/cpu/common/dnnl_engine.h"
#include "kernels/cpu/common/dnnl_matmul.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "ops/array/array_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

TEST_CASE("DirectDnnlMatMul and DnnlMatMulF32 multiply row-major matrices") {
  const float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {7, 8, 9, 10, 11, 12};
  float c[4] = {};
  REQUIRE(DnnlMatMulF32(a, b, c, 2, 3, 2).ok());
  CHECK(std::vector<float>(c, c + 4) == std::vector<float>{58, 64, 139, 154});
  DirectDnnlMatMul transposed_b(2, 3, 2, false, true);  // b read as the transpose of [2, 3]
  const float bt[6] = {7, 9, 11, 8, 10, 12};
  transposed_b.Run(a, bt, c);
  CHECK(std::vector<float>(c, c + 4) == std::vector<float>{58, 64, 139, 154});
}

constexpr DnnlPlanKind kTestPlan{"test"};

// A plan that copies 4 values of `type` from DNNL_ARG_FROM to DNNL_ARG_TO.
void BuildCopy(DnnlPlan& p, dnnl::memory::data_type type) {
  const dnnl::memory::desc md({4}, type, dnnl::memory::format_tag::a);
  p.AddBuffer(DNNL_ARG_FROM, md, DnnlUse::kRead);
  p.AddBuffer(DNNL_ARG_TO, md, DnnlUse::kWrite);
  p.AddStep(dnnl::reorder(p.buffer(DNNL_ARG_FROM), p.buffer(DNNL_ARG_TO)),
            {{DNNL_ARG_FROM, p.buffer(DNNL_ARG_FROM)}, {DNNL_ARG_TO, p.buffer(DNNL_ARG_TO)}});
}

TEST_CASE("CachedDnnlPlan builds a plan once per key and thread") {
  int builds = 0;
  auto build = [&](DnnlPlan& p, dnnl::memory::data_type type) {
    ++builds;
    BuildCopy(p, type);
  };
  auto first = CachedDnnlPlan(kTestPlan, {4}, kFloat32, build);
  auto again = CachedDnnlPlan(kTestPlan, {4}, kFloat32, build);
  REQUIRE(first.ok());
  REQUIRE(again.ok());
  CHECK(*first == *again);
  CHECK(builds == 1);
  const float in[4] = {1, 2, 3, 4};
  float out[4] = {};
  (*again)->Bind(DNNL_ARG_FROM, in, kFloat32);
  (*again)->Bind(DNNL_ARG_TO, out, kFloat32);
  REQUIRE((*again)->Run("copy").ok());
  CHECK(std::vector<float>(out, out + 4) == std::vector<float>{1, 2, 3, 4});
  std::thread([&] { REQUIRE(CachedDnnlPlan(kTestPlan, {4}, kFloat32, build).ok()); }).join();
  CHECK(builds == 2);  // another thread gets its own plan
}

TEST_CASE("CachedDnnlPlan turns oneDNN failures into a status and caches nothing") {
  int builds = 0;
  auto build = [&](DnnlPlan&, dnnl::memory::data_type) {
    ++builds;
    throw dnnl::error(dnnl_unimplemented, "no such kernel");
  };
  const auto plan = CachedDnnlPlan(kTestPlan, {1, 2}, kFloat32, build);
  REQUIRE(plan.status().code() == absl::StatusCode::kUnimplemented);
  CHECK(std::string(plan.status().message()).find("test primitive") != std::string::npos);
  CHECK(!CachedDnnlPlan(kTestPlan, {1, 2}, kFloat32, build).ok());
  CHECK(builds == 2);
  // 16-bit data tries float32 too; when that fails as well, the status says so.
  builds = 0;
  const auto half = CachedDnnlPlan(kTestPlan, {1, 3}, kBFloat16, build);
  REQUIRE(half.status().code() == absl::StatusCode::kUnimplemented);
  CHECK(std::string(half.status().message()).find("in float32 for bfloat16 data") !=
        std::string::npos);
  CHECK(builds == 2);
}

// Note [Reduced precision without oneDNN support]: a 16-bit plan that oneDNN cannot build is
// built in float32 (once), and Run converts its data in and out.
TEST_CASE("CachedDnnlPlan computes 16-bit data in float32 where oneDNN lacks the 16-bit kernel") {
  for (DType dtype : {kBFloat16, kFloat16}) {
    INFO(DTypeName(dtype));
    std::vector<dnnl::memory::data_type> types;
    auto build = [&](DnnlPlan& p, dnnl::memory::data_type type) {
      types.push_back(type);
      if (type != dnnl::memory::data_type::f32) {
        throw dnnl::error(dnnl_unimplemented, "no 16-bit kernel on this CPU");
      }
      BuildCopy(p, type);
    };
    const DnnlKey key = {static_cast<int64_t>(dtype), 4};
    auto plan = CachedDnnlPlan(kTestPlan, key, dtype, build);
    REQUIRE(plan.ok());
    REQUIRE(types.size() == 2);  // the native type, then float32
    CHECK(types[0] == *ToDnnlType(dtype));
    CHECK(types[1] == dnnl::memory::data_type::f32);
    auto again = CachedDnnlPlan(kTestPlan, key, dtype, build);
    REQUIRE(again.ok());
    CHECK(*again == *plan);
    CHECK(types.size() == 2);  // the decision is cached with the plan
    const Tensor in = testing::MakeTensor(dtype, {4}, {1.5, -2, 1e-3, 65504});
    Tensor out = zeros({4}, dtype);
    (*again)->Bind(DNNL_ARG_FROM, in);
    (*again)->Bind(DNNL_ARG_TO, out);
    REQUIRE((*again)->Run("copy").ok());
    testing::ExpectTensorNear(out, in, 0);
  }
}

TEST_CASE("A float32 buffer stages 16-bit data, rounding what it writes to nearest even") {
  auto plan = CachedDnnlPlan(kTestPlan, {5}, kFloat32, BuildCopy);
  REQUIRE(plan.ok());
  // 1 + 2^-8 lies halfway between the bfloat16 neighbours 1 and 1 + 2^-7: even is 1. 1 + 3 * 2^-8
  // lies halfway between 1 + 2^-7 and 1 + 2^-6: even is 1 + 2^-6.
  const float in[4] = {1 + 0x1p-8f, 1 + 3 * 0x1p-8f, -3.5f, 1 + 0x1p-9f};
  Tensor out = zeros({4}, kBFloat16);
  (*plan)->Bind(DNNL_ARG_FROM, in, kFloat32);
  (*plan)->Bind(DNNL_ARG_TO, out);
  REQUIRE((*plan)->Run("copy").ok());
  testing::ExpectTensor(out, kBFloat16, {4}, {1, 1 + 0x1p-6, -3.5, 1}, 0);
  // Data of a dtype that cannot be staged is an error, not garbage.
  const int32_t ints[4] = {};
  (*plan)->Bind(DNNL_ARG_FROM, ints, kInt32);
  const absl::Status status = (*plan)->Run("copy");
  CHECK(status.code() == absl::StatusCode::kInternal);
  CHECK(std::string(status.message()).find("f32 buffer (argument 1) was bound to int32 data") !=
        std::string::npos);
}

TEST_CASE("ForceDnnlFloat32ForTesting builds 16-bit plans in float32 and caches them apart") {
  std::vector<dnnl::memory::data_type> types;
  auto build = [&](DnnlPlan& p, dnnl::memory::data_type type) {
    types.push_back(type);
    BuildCopy(p, type);
  };
  const DnnlKey key = {static_cast<int64_t>(kBFloat16), 6};
  ForceDnnlFloat32ForTesting(true);
  auto forced = CachedDnnlPlan(kTestPlan, key, kBFloat16, build);
  ForceDnnlFloat32ForTesting(false);
  REQUIRE(forced.ok());
  CHECK(types == std::vector<dnnl::memory::data_type>{dnnl::memory::data_type::f32});
  // Unforced, the same key gets a plan of its own (native where this CPU has bfloat16 reorders).
  REQUIRE(CachedDnnlPlan(kTestPlan, key, kBFloat16, build).ok());
  REQUIRE(types.size() >= 2);
  CHECK(types[1] == dnnl::memory::data_type::bf16);
}

TEST_CASE("ToDnnlType maps the dtypes oneDNN has") {
  CHECK(ToDnnlType(kFloat32) == dnnl::memory::data_type::f32);
  CHECK(ToDnnlType(kBFloat16) == dnnl::memory::data_type::bf16);
  CHECK(!ToDnnlType(kFloat64).has_value());
}

TEST_CASE("SameOrValidPadding follows TensorFlow's total / 2 rule") {
  CHECK(SameOrValidPadding(4, 2, 3, 2).before == 0);  // total 1: all after
  CHECK(SameOrValidPadding(4, 2, 3, 2).after == 1);
  CHECK(SameOrValidPadding(5, 3, 3, 2).before == 1);
  CHECK(SameOrValidPadding(5, 5, 3, 1, 2).before == 2);  // dilated window 5
  CHECK(SameOrValidPadding(6, 2, 3, 2).after == 0);      // VALID: no padding
}

// Note [Cached weight reorders]: a plan that reorders FROM ([2, 3] row-major) into a cached
// column-major copy, then back into TO, so TO shows what the copy holds.
void BuildCachedTranspose(DnnlPlan& p, dnnl::memory::data_type type) {
  const dnnl::memory::desc rows({2, 3}, type, dnnl::memory::format_tag::ab);
  p.AddBuffer(DNNL_ARG_FROM, rows, DnnlUse::kRead);
  p.AddBuffer(DNNL_ARG_TO, rows, DnnlUse::kWrite);
  const dnnl::memory columns = p.AddCachedReorder(
      DNNL_ARG_FROM, dnnl::memory::desc({2, 3}, type, dnnl::memory::format_tag::ba));
  p.AddStep(dnnl::reorder(columns, p.buffer(DNNL_ARG_TO)),
            {{DNNL_ARG_FROM, columns}, {DNNL_ARG_TO, p.buffer(DNNL_ARG_TO)}});
}

constexpr DnnlPlanKind kCachedPlan{"cached transpose"};

// Runs the plan with `from` bound as a tensor (or as a pointer) and returns TO.
std::vector<float> RunCached(const Tensor& from, bool as_tensor = true) {
  auto plan = CachedDnnlPlan(kCachedPlan, {6}, kFloat32, BuildCachedTranspose);
  REQUIRE(plan.ok());
  std::vector<float> to(6);
  if (as_tensor) {
    (*plan)->Bind(DNNL_ARG_FROM, from);
  } else {
    (*plan)->Bind(DNNL_ARG_FROM, from.raw_data(), kFloat32);
  }
  (*plan)->Bind(DNNL_ARG_TO, to.data(), kFloat32);
  REQUIRE((*plan)->Run("cached transpose").ok());
  return to;
}

// Writes over a tensor's values, which no kernel may do: here it shows whether the plan read
// the tensor or its cached copy.
void Overwrite(const Tensor& t, float value) {
  std::fill_n(t.mutable_data<float>(), t.num_elements(), value);
}

TEST_CASE("a cached reorder reuses its copy from the third time a tensor is bound") {
  const Tensor w = from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  const std::vector<float> values = {1, 2, 3, 4, 5, 6};
  CHECK(RunCached(w) == values);  // noted
  Overwrite(w, 7);
  CHECK(RunCached(w) == std::vector<float>(6, 7));  // copied now
  Overwrite(w, 8);
  CHECK(RunCached(w) == std::vector<float>(6, 7));                       // the copy, not the tensor
  CHECK(RunCached(w, /*as_tensor=*/false) == std::vector<float>(6, 8));  // a pointer is not cached
  // Another tensor of the same shape gets its own copy; the first one's stays.
  const Tensor other = from_vector<float>({6, 5, 4, 3, 2, 1}, {2, 3});
  for (int i = 0; i < 3; ++i) CHECK(RunCached(other) == std::vector<float>{6, 5, 4, 3, 2, 1});
  CHECK(RunCached(w) == std::vector<float>(6, 7));
}

TEST_CASE("a cached reorder never caches a view, which may be a reused arena slot") {
  const Tensor base = from_vector<float>({1, 2, 3, 4, 5, 6}, {6});
  const Tensor view = reshape(base, {2, 3});  // a view of base: same data
  REQUIRE(view.impl()->base != nullptr);
  for (int i = 0; i < 3; ++i) RunCached(view);
  Overwrite(view, 9);
  CHECK(RunCached(view) == std::vector<float>(6, 9));
}

}  // namespace
}  // namespace duet
