// Conversions between duet's op declarations/attr values and TensorFlow's protos.
#pragma once

#include "absl/status/statusor.h"
#include "ops/attr_value.h"
#include "ops/op_def.h"
#include "proto/attr_value.pb.h"
#include "proto/op_def.pb.h"

namespace duet {

// The TensorFlow OpDef of a registered op (what `docs/ops.md` and GraphDef export describe).
tensorflow::OpDef OpDefToProto(const OpDef& op);

// AttrValue <-> tensorflow::AttrValue. Reading needs the declared kind, because an empty proto
// list does not say what it is a list of; a proto of another kind is InvalidArgument.
absl::StatusOr<tensorflow::AttrValue> AttrValueToProto(const AttrValue& value);
absl::StatusOr<AttrValue> AttrValueFromProto(const tensorflow::AttrValue& proto, AttrType type);

}  // namespace duet
