// The attrs of the control-flow and function ops, as typed keys (Note [Attribute keys] in
// ops/attr_key.h).
#pragma once

#include <string>
#include <vector>

#include "ops/attr_key.h"
#include "ops/attr_value.h"

namespace duet {

// If and StatelessIf.
struct IfAttrs {
  static constexpr AttrKey<DType> kTcond{0, "Tcond"};
  static constexpr AttrKey<std::vector<DType>> kTin{1, "Tin"};
  static constexpr AttrKey<std::vector<DType>> kTout{2, "Tout"};
  static constexpr AttrKey<FuncAttr> kThenBranch{3, "then_branch"};
  static constexpr AttrKey<FuncAttr> kElseBranch{4, "else_branch"};
  static constexpr AttrKey<std::vector<Shape>> kOutputShapes{5, "output_shapes"};
};

// While and StatelessWhile.
struct WhileAttrs {
  static constexpr AttrKey<std::vector<DType>> kT{0, "T"};
  static constexpr AttrKey<FuncAttr> kCond{1, "cond"};
  static constexpr AttrKey<FuncAttr> kBody{2, "body"};
  static constexpr AttrKey<std::vector<Shape>> kOutputShapes{3, "output_shapes"};
  static constexpr AttrKey<int64_t> kParallelIterations{4, "parallel_iterations"};
};

// PartitionedCall, StatefulPartitionedCall, and DuetHostFunction (Tin, Tout and f only), so one
// kernel calls f for all three.
struct CallAttrs {
  static constexpr AttrKey<std::vector<DType>> kTin{0, "Tin"};
  static constexpr AttrKey<std::vector<DType>> kTout{1, "Tout"};
  static constexpr AttrKey<FuncAttr> kF{2, "f"};
  static constexpr AttrKey<std::string> kConfig{3, "config"};
  static constexpr AttrKey<std::string> kConfigProto{4, "config_proto"};
  static constexpr AttrKey<std::string> kExecutorType{5, "executor_type"};
};

// DuetCustomGradient.
struct CustomGradientAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<std::vector<DType>> kTin{1, "Tin"};
  static constexpr AttrKey<FuncAttr> kGrad{2, "grad"};
};

}  // namespace duet
