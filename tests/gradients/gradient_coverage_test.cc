// Every op declares how it is differentiated, and every differentiable op has a gradient test.
#include <algorithm>
#include <set>

#include "ops/gradient.h"
#include "ops/op_registry.h"
#include "tests/gradients/gradient_checker.h"

namespace duet::testing {
namespace {

TEST_CASE("Every op declares a gradient or NotDifferentiable", "[coverage]") {
  for (const OpDef* op : OpRegistry::Global().All()) {
    INFO("op " << op->name << " has no GradientRegistrar or NotDifferentiable declaration");
    CHECK(FindGradient(*op) != nullptr);
  }
}

TEST_CASE("Every differentiable op has a finite-difference gradient test", "[coverage]") {
  const std::set<std::string> tested(GradientTestedOps().begin(), GradientTestedOps().end());
  for (const OpDef* op : OpRegistry::Global().All()) {
    const GradientDef* def = FindGradient(*op);
    if (def == nullptr || def->fn == nullptr) continue;
    INFO("op " << op->name << " is differentiable but no DUET_GRADIENT_TEST checks it");
    CHECK(tested.contains(op->name));
  }
}

}  // namespace
}  // namespace duet::testing
