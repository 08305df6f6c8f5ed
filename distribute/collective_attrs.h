// The attrs of the collective ops (collective_ops.h), as typed keys (Note [Attribute keys] in
// ops/attr_key.h), in TensorFlow's order.
#pragma once

#include <cstdint>
#include <string>

#include "ops/attr_key.h"
#include "ops/attr_value.h"

namespace duet::distribute {

// CollectiveReduceV2.
struct CollectiveReduceAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<std::string> kMergeOp{1, "merge_op"};  // Min, Max, Mul, Add
  static constexpr AttrKey<std::string> kFinalOp{2, "final_op"};  // Id, Div (by group_size)
  static constexpr AttrKey<std::string> kCommunicationHint{3, "communication_hint"};
  static constexpr AttrKey<float> kTimeoutSeconds{4, "timeout_seconds"};
  static constexpr AttrKey<bool> kIsStateless{5, "is_stateless"};
  static constexpr AttrKey<int64_t> kNorderingToken{6, "Nordering_token"};
  static constexpr AttrKey<int64_t> kMaxSubdivsPerDevice{7, "max_subdivs_per_device"};
};

// CollectiveGatherV2.
struct CollectiveGatherAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<std::string> kCommunicationHint{1, "communication_hint"};
  static constexpr AttrKey<float> kTimeoutSeconds{2, "timeout_seconds"};
  static constexpr AttrKey<bool> kIsStateless{3, "is_stateless"};
  static constexpr AttrKey<int64_t> kNorderingToken{4, "Nordering_token"};
};

// CollectiveBcastSendV2.
struct CollectiveBcastSendAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<std::string> kCommunicationHint{1, "communication_hint"};
  static constexpr AttrKey<float> kTimeoutSeconds{2, "timeout_seconds"};
};

// CollectiveBcastRecvV2.
struct CollectiveBcastRecvAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<DType> kTshape{1, "Tshape"};
  static constexpr AttrKey<std::string> kCommunicationHint{2, "communication_hint"};
  static constexpr AttrKey<float> kTimeoutSeconds{3, "timeout_seconds"};
};

}  // namespace duet::distribute
