// The shared oneDNN glue in kernels/cpu/common: the direct f32 matmul benchmarks compare against,
// the per-thread plan cache, dtype mapping and error conversion.
#include <catch2/catch.hpp>
#include <thread>

#include "kernels/cpu/common/dnnl_engine.h"
#include "kernels/cpu/common/dnnl_matmul.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "kernels/cpu/common/window_geometry.h"

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

TEST_CASE("CachedDnnlPlan builds a plan once per key and thread") {
  int builds = 0;
  auto build = [&](DnnlPlan& p) {
    ++builds;
    const dnnl::memory::desc md({4}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
    p.AddBuffer(DNNL_ARG_FROM, md);
    p.AddBuffer(DNNL_ARG_TO, md);
    p.AddStep(dnnl::reorder(p.buffer(DNNL_ARG_FROM), p.buffer(DNNL_ARG_TO)),
              {{DNNL_ARG_FROM, p.buffer(DNNL_ARG_FROM)}, {DNNL_ARG_TO, p.buffer(DNNL_ARG_TO)}});
  };
  auto first = CachedDnnlPlan(kTestPlan, {4}, build);
  auto again = CachedDnnlPlan(kTestPlan, {4}, build);
  REQUIRE(first.ok());
  REQUIRE(again.ok());
  CHECK(*first == *again);
  CHECK(builds == 1);
  const float in[4] = {1, 2, 3, 4};
  float out[4] = {};
  (*again)->Bind(DNNL_ARG_FROM, in);
  (*again)->Bind(DNNL_ARG_TO, out);
  REQUIRE((*again)->Run("copy").ok());
  CHECK(std::vector<float>(out, out + 4) == std::vector<float>{1, 2, 3, 4});
  std::thread([&] { REQUIRE(CachedDnnlPlan(kTestPlan, {4}, build).ok()); }).join();
  CHECK(builds == 2);  // another thread gets its own plan
}

TEST_CASE("CachedDnnlPlan turns oneDNN failures into a status and caches nothing") {
  int builds = 0;
  auto build = [&](DnnlPlan&) {
    ++builds;
    throw dnnl::error(dnnl_unimplemented, "no such kernel");
  };
  const auto plan = CachedDnnlPlan(kTestPlan, {1, 2}, build);
  REQUIRE(plan.status().code() == absl::StatusCode::kUnimplemented);
  CHECK(std::string(plan.status().message()).find("test primitive") != std::string::npos);
  CHECK(!CachedDnnlPlan(kTestPlan, {1, 2}, build).ok());
  CHECK(builds == 2);
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

}  // namespace
}  // namespace duet
