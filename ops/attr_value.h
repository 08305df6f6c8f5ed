// Op attribute values: the typed, compile-time parameters of an op call (strides, keep_dims, T).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "core/tensor.h"

namespace duet {

// The attr kinds TensorFlow's OpDef names ("int", "float", "list(int)", ...).
enum class AttrType {
  kInt,
  kFloat,
  kBool,
  kType,
  kString,
  kShape,
  kTensor,
  kListInt,
  kListFloat,
  kListType
};

// TensorFlow's spelling of an attr type: "int", "list(int)", ...
absl::string_view AttrTypeName(AttrType type);

// One attr value. std::monostate means "not set" (type attrs before the dispatcher infers them).
using AttrValue =
    std::variant<std::monostate, int64_t, float, bool, DType, std::string, Shape, Tensor,
                 std::vector<int64_t>, std::vector<float>, std::vector<DType>>;

// The attrs of one op call, positional: attrs[i] belongs to OpDef::attrs[i]. Positions are fixed
// at registration, so kernels and shape functions read attrs by index, never by name.
using AttrList = absl::InlinedVector<AttrValue, 4>;

// The AttrType an AttrValue holds (kInt for monostate, which callers check first).
AttrType AttrTypeOf(const AttrValue& value);

// A short human-readable rendering for errors and docs: 3, 0.5, true, float32, "SAME", [1, 2].
std::string AttrValueString(const AttrValue& value);

}  // namespace duet
