// The finite-difference gradient checker: compares a tape's gradients with central differences in
// float64, and keeps the list of ops whose gradients were checked (the coverage test compares it
// with the registry).
#pragma once

#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "duet.h"

namespace duet::testing {

// A function under test: float64 inputs to one or more outputs (any dtypes; only floating outputs
// are differentiated).
using TestFn = std::function<std::vector<Tensor>(const std::vector<Tensor>& inputs)>;

struct GradientCheckOptions {
  double delta = 1e-6;      // central-difference step
  double tolerance = 1e-6;  // absolute + relative (to the largest gradient magnitude) error
  // Inputs to differentiate with respect to (by index); empty = every floating-point input.
  std::vector<int> wrt;
  // Also build f as a graph (placeholders for the differentiated inputs, the others constants)
  // and check that a Session gives eager's outputs and gradients() the tape's gradients.
  bool check_graph = true;
};

// For functions that compute in float32 (ops without float64 kernels, casts through float32):
// float32 rounding is ~1e-7 relative, so a step of 1e-2 keeps it negligible in central
// differences, checked to 1e-4.
inline GradientCheckOptions Float32GradientCheck() { return {.delta = 1e-2, .tolerance = 1e-4}; }

// For a fixed random projection w of the outputs, checks that the tape's gradient of
// sum(f(x) * w) with respect to each input equals its central-difference estimate, and that the
// op named `op` was recorded on the tape (so a check cannot pass without exercising the op's
// gradient). With options.check_graph, also that f built as a graph agrees with eager execution
// and that symbolic gradients() equal the tape's. On a virtual device (cpu:1) and a GPU, when
// present, also that f and its tape gradients there equal the host's (Note [Gradient checks on
// other devices] in gradient_checker.cc). Fails the current Catch2 test otherwise.
void CheckGradients(const std::string& op, const TestFn& f, const std::vector<Tensor>& inputs,
                    const GradientCheckOptions& options = {});

// Checks the gradient of the gradient: applies CheckGradients to x -> d(sum(f(x) * w))/dx, so
// the op's gradient function is itself differentiated (higher-order use).
void CheckSecondOrderGradients(const std::string& op, const TestFn& f,
                               const std::vector<Tensor>& inputs,
                               const GradientCheckOptions& options = {});

// float64 inputs of `shape` uniform in [lo, hi), reproducible from `seed`.
Tensor RandomInput(const Shape& shape, int64_t seed, double lo = -1, double hi = 1);

// Marks `op` as having a gradient test; used by DUET_GRADIENT_TEST at static initialization.
bool MarkGradientTested(const std::string& op);
// The ops marked so far.
const std::vector<std::string>& GradientTestedOps();

}  // namespace duet::testing

#define DUET_GRADIENT_TEST_CONCAT_INNER(a, b) a##b
#define DUET_GRADIENT_TEST_CONCAT(a, b) DUET_GRADIENT_TEST_CONCAT_INNER(a, b)
// A Catch2 test case that checks the gradient of `op`:
//   DUET_GRADIENT_TEST("Relu", "away from the kink") { CheckGradients("Relu", ...); }
#define DUET_GRADIENT_TEST(op, description)                                \
  static const bool DUET_GRADIENT_TEST_CONCAT(kGradientTested, __LINE__) = \
      ::duet::testing::MarkGradientTested(op);                             \
  TEST_CASE(op " gradient: " description, "[gradient]")
