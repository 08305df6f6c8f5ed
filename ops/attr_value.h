// Op attribute values: the typed, compile-time parameters of an op call (strides, keep_dims, T).
#pragma once

#include <cstdint>
#include <memory>
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
  kListString,
  kListType,
  kListShape,
  kFunc
};

// TensorFlow's spelling of an attr type: "int", "list(int)", ...
absl::string_view AttrTypeName(AttrType type);

class FunctionBody;

// A `func` attr: a function of the graph's function library (a cond branch, a while_loop body),
// by name, with the function itself resolved when the node is made so kernels can call it.
struct FuncAttr {
  std::string name;
  std::shared_ptr<const FunctionBody> body;

  friend bool operator==(const FuncAttr& a, const FuncAttr& b) { return a.name == b.name; }
};

// One attr value. std::monostate means "not set" (type attrs before the dispatcher infers them).
using AttrValue =
    std::variant<std::monostate, int64_t, float, bool, DType, std::string, Shape, Tensor,
                 std::vector<int64_t>, std::vector<float>, std::vector<std::string>,
                 std::vector<DType>, std::vector<Shape>, FuncAttr>;

// The attrs of one op call, positional: attrs[i] belongs to OpDef::attrs[i]. Positions are fixed
// at registration, so kernels and shape functions read attrs by index, never by name.
using AttrList = absl::InlinedVector<AttrValue, 4>;

// The AttrType an AttrValue holds (kInt for monostate, which callers check first).
AttrType AttrTypeOf(const AttrValue& value);

// A short human-readable rendering for errors and docs: 3, 0.5, true, float32, "SAME", [1, 2].
std::string AttrValueString(const AttrValue& value);

}  // namespace duet
