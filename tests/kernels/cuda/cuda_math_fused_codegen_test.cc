// The CUDA fused elementwise kernel's source generation and its NVRTC compilation, without a GPU:
// generated sources for programs holding every op a program may name, in float32 and float64, with
// full and single-element inputs, must compile for sm_90 to a CUBIN; a broken source must fail
// with NVRTC's log in the status. (Running the kernels: cuda_math_fused_test.cc.)
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "duet.h"

#if DUET_CUDA
#include "kernels/cuda/math/fused_elementwise_codegen.h"
#include "kernels/cuda/math/nvrtc_compiler.h"
#include "ops/math/elementwise_program.h"
#endif

namespace duet {
namespace {

#if DUET_CUDA

using cuda::CompileCuda;
using cuda::CompiledCuda;
using cuda::NvrtcHeader;

std::vector<NvrtcHeader> FunctorsHeader() {
  return {{cuda::kElementwiseFunctorsHeaderName, std::string(cuda::ElementwiseFunctorsSource())}};
}

// A program over inputs x0, x1 that applies every op once, each to the previous result (and x1
// for binary ops), so one compilation covers every functor.
ElementwiseProgram EveryOpProgram() {
  std::vector<std::string> ops;
  std::vector<int64_t> operands;
  int64_t last = 0;
  for (int i = 0; i < kNumElementwiseOpcodes; ++i) {
    const auto op = static_cast<ElementwiseOpcode>(i);
    ops.emplace_back(ElementwiseOpName(op));
    operands.push_back(last);
    if (ElementwiseArity(op) == 2) operands.push_back(1);
    last = 2 + i;
  }
  auto program = DecodeElementwiseProgram(ops, operands, 2);
  REQUIRE(program.ok());
  return *std::move(program);
}

void ExpectCompiles(const std::string& source) {
  INFO("source:\n" << source);
  const absl::StatusOr<CompiledCuda> compiled =
      CompileCuda(source, "fused_test.cu", FunctorsHeader(), 9, 0);
  INFO("status: " << compiled.status());
  REQUIRE(compiled.ok());
  CHECK(compiled->is_cubin);
  CHECK(compiled->architecture == "sm_90");
  REQUIRE(compiled->image.size() > 4);
  CHECK(compiled->image.substr(0, 4) ==
        "\x7f"
        "ELF");
}

TEST_CASE("fused codegen: a program with every op compiles with NVRTC for sm_90") {
  const ElementwiseProgram program = EveryOpProgram();
  for (DType dtype : {kFloat32, kFloat64}) {
    for (const std::vector<bool>& single :
         std::vector<std::vector<bool>>{{false, false}, {false, true}, {true, false}}) {
      INFO(DTypeName(dtype) << " single " << single[0] << single[1]);
      const absl::InlinedVector<bool, 2> mask(single.begin(), single.end());
      absl::StatusOr<std::string> source =
          cuda::GenerateFusedElementwiseSource(program, dtype, mask);
      REQUIRE(source.ok());
      // Every op appears as its functor call, in order.
      size_t at = 0;
      for (int i = 0; i < kNumElementwiseOpcodes; ++i) {
        const std::string comment =
            std::string("// ") + std::string(ElementwiseOpName(static_cast<ElementwiseOpcode>(i)));
        at = source->find(comment, at);
        CHECK(at != std::string::npos);
        if (at == std::string::npos) break;
      }
      CHECK(source->find(dtype == kFloat32
                             ? "const float* __restrict__ in0"
                             : "const double* __restrict__ in0") != std::string::npos);
      // A single-element input is read once, before the loop.
      if (single[1]) CHECK(source->find("v1 = in1[0];") != std::string::npos);
      if (!single[1]) CHECK(source->find("v1 = in1[i];") != std::string::npos);
      ExpectCompiles(*source);
    }
  }
}

TEST_CASE("fused codegen: shared values and a single-instruction program compile") {
  // tanh(x * y + 1) with inputs [x, y, 1], then its square times x: values used twice.
  auto program = DecodeElementwiseProgram({"Mul", "AddV2", "Tanh", "Square", "Mul"},
                                          {0, 1, 3, 2, 4, 5, 6, 0}, 3);
  REQUIRE(program.ok());
  const bool single[] = {false, false, true};
  auto source = cuda::GenerateFusedElementwiseSource(*program, kFloat32, single);
  REQUIRE(source.ok());
  CHECK(source->find("out[i] = v7;") != std::string::npos);
  ExpectCompiles(*source);

  auto one = DecodeElementwiseProgram({"Exp"}, {0}, 1);
  REQUIRE(one.ok());
  const bool full[] = {false};
  auto one_source = cuda::GenerateFusedElementwiseSource(*one, kFloat64, full);
  REQUIRE(one_source.ok());
  ExpectCompiles(*one_source);
}

TEST_CASE("fused codegen: unsupported dtype and wrong input count are errors") {
  auto program = DecodeElementwiseProgram({"Exp"}, {0}, 1);
  REQUIRE(program.ok());
  const bool single[] = {false};
  auto half = cuda::GenerateFusedElementwiseSource(*program, kFloat16, single);
  REQUIRE_FALSE(half.ok());
  CHECK(half.status().code() == absl::StatusCode::kInvalidArgument);
  const bool two[] = {false, false};
  CHECK_FALSE(cuda::GenerateFusedElementwiseSource(*program, kFloat32, two).ok());
}

TEST_CASE("NVRTC: a broken source gives InvalidArgument with NVRTC's log") {
  const std::string broken =
      "extern \"C\" __global__ void k(float* out) { out[0] = undeclared_name_xyz; }\n";
  const absl::StatusOr<CompiledCuda> compiled = CompileCuda(broken, "broken.cu", {}, 9, 0);
  REQUIRE_FALSE(compiled.ok());
  CHECK(compiled.status().code() == absl::StatusCode::kInvalidArgument);
  const std::string message(compiled.status().message());
  INFO(message);
  CHECK(message.find("broken.cu") != std::string::npos);
  CHECK(message.find("undeclared_name_xyz") != std::string::npos);  // from the log
  CHECK(message.find("sm_90") != std::string::npos);
}

TEST_CASE("NVRTC: a GPU newer than NVRTC knows gets PTX; one older than any target an error") {
  const std::string source = "extern \"C\" __global__ void k(float* out) { out[0] = 1.0f; }\n";
  const absl::StatusOr<CompiledCuda> future = CompileCuda(source, "future.cu", {}, 99, 9);
  INFO(future.status());
  REQUIRE(future.ok());
  CHECK_FALSE(future->is_cubin);
  CHECK(future->architecture.rfind("compute_", 0) == 0);
  CHECK(future->image.find(".entry k") != std::string::npos);
  const absl::StatusOr<CompiledCuda> ancient = CompileCuda(source, "ancient.cu", {}, 1, 0);
  REQUIRE_FALSE(ancient.ok());
  CHECK(ancient.status().code() == absl::StatusCode::kFailedPrecondition);
}

#else

TEST_CASE("fused codegen: skipped without --config=cuda") {
  WARN("skipped: built without --config=cuda (NVRTC code not compiled)");
}

#endif  // DUET_CUDA

}  // namespace
}  // namespace duet
