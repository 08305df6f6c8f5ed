// The attrs of the variable ops, as typed keys (Note [Attribute keys] in ops/attr_key.h).
#pragma once

#include <string>

#include "ops/attr_key.h"
#include "ops/attr_value.h"

namespace duet {

// VarHandleOp.
struct VarHandleAttrs {
  static constexpr AttrKey<std::string> kContainer{0, "container"};
  static constexpr AttrKey<std::string> kSharedName{1, "shared_name"};
  static constexpr AttrKey<DType> kDtype{2, "dtype"};
  static constexpr AttrKey<Shape> kShape{3, "shape"};
  static constexpr AttrKey<std::string> kDebugName{4, "debug_name"};
};

// ReadVariableOp and the assignments (AssignVariableOp, AssignAddVariableOp, AssignSubVariableOp).
struct VariableAttrs {
  static constexpr AttrKey<DType> kDtype{0, "dtype"};
};

// AssignVariableOp's own attr, after VariableAttrs.
struct AssignVariableAttrs {
  static constexpr AttrKey<bool> kValidateShape{1, "validate_shape"};
};

// ResourceApplyGradientDescent.
struct ApplyGradientDescentAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<bool> kUseLocking{1, "use_locking"};
};

// The fused optimizer updates of ops/state/training_ops.h (ResourceApplyKerasMomentum,
// ResourceApplyAdam, ResourceApplyAdamWithAmsgrad, ResourceApplyRMSProp,
// ResourceApplyCenteredRMSProp, ResourceApplyAdagradV2): TensorFlow declares T and use_locking
// first on all of them.
struct ApplyUpdateAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<bool> kUseLocking{1, "use_locking"};
};

// ResourceApplyKerasMomentum's and ResourceApplyAdam's own attr, after ApplyUpdateAttrs.
struct ApplyNesterovAttrs {
  static constexpr AttrKey<bool> kUseNesterov{2, "use_nesterov"};
};

// ResourceApplyAdagradV2's own attr, after ApplyUpdateAttrs.
struct ApplyAdagradV2Attrs {
  static constexpr AttrKey<bool> kUpdateSlots{2, "update_slots"};
};

}  // namespace duet
