// OpDef: an op declared once, as data: signature, attrs, flags, shape function and doc line.
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "core/dtype.h"
#include "ops/attr_key.h"
#include "ops/attr_value.h"

namespace duet {

class ShapeContext;
struct GradientDef;

// Computes output dtypes and shapes from input dtypes/shapes (and known input values) and attrs.
// Runs before any kernel, in eager and graph mode alike; errors here are the user's shape errors.
using ShapeFn = absl::Status (*)(ShapeContext& ctx);

// One input or output of an op. Its dtype is either fixed or named by a type attr; a list
// argument repeats number_attr times (`values: N * T`), or has one tensor per dtype of a
// list(type) attr (`input: Tin`, tensors of mixed dtypes, as If and While take).
struct ArgDef {
  std::string name;
  std::string type_attr;        // e.g. "T"; empty when the dtype is fixed
  DType fixed_type = kFloat32;  // used when type_attr and type_list_attr are empty
  std::string number_attr;      // e.g. "N" for `values: N * T`; empty for a single tensor
  std::string type_list_attr;   // e.g. "Tin" for `input: Tin`
  // The op reads this input's values on the host (shapes, axes, seeds): it stays a CPU tensor
  // whatever device the op runs on, and does not decide placement.
  bool host_memory = false;
  int type_attr_index = -1;    // resolved at registration
  int number_attr_index = -1;  // resolved at registration
  int type_list_attr_index = -1;

  bool is_list() const { return number_attr_index >= 0 || type_list_attr_index >= 0; }
};

// How many tensors `arg` stands for under these attrs: 1 for a single tensor, else the list's
// length; -1 when the attr giving the length is not set yet.
int64_t ArgLength(const ArgDef& arg, const AttrList& attrs);
// The dtype of tensor k of `arg` (k < ArgLength) under these attrs, which must be set.
DType ArgDType(const ArgDef& arg, const AttrList& attrs, int64_t k);

// The arguments of an op whose kernels are channels-last (NHWC, NDHWC) and which also takes
// TensorFlow's channels-first data_format (NCHW, NCDHW): Note [Channels-first] in
// ops/channels_first.cc. Bit i of a mask stands for argument i, a single tensor.
struct ChannelsFirstArgs {
  int format_attr = -1;             // the "data_format" attr; -1: the op has one layout
  uint64_t image_inputs = 0;        // images: channels at dim 1 when channels-first
  uint64_t image_shape_inputs = 0;  // 1-D int vectors holding an image's shape (input_sizes)
  uint64_t image_outputs = 0;
  std::vector<int> dim_attrs;       // int lists with an entry per image dim (strides, ksize)
  int explicit_paddings_attr = -1;  // the int list with a (before, after) pair per image dim
};

// One attr: name, kind, optional default, and for type attrs the allowed dtypes.
struct AttrDef {
  std::string name;
  AttrType type = AttrType::kInt;
  std::optional<AttrValue> default_value;
  std::vector<DType> allowed_types;         // type attrs: empty = any
  std::vector<std::string> allowed_values;  // string attrs: empty = any
  std::optional<int64_t> minimum;           // int attrs
  uint32_t allowed_type_mask = 0;           // bit d set: DType d allowed; derived at registration
  const void* key = nullptr;  // the AttrKey that declared it (Note [Attribute keys] in attr_key.h)
};

// An op. Registered once; `id` indexes per-op tables (kernels, gradients) on the hot path.
struct OpDef {
  int id = -1;
  std::string name;
  std::string doc;  // one line
  // Where duet's results differ from TensorFlow's kernels on purpose (empty: nowhere), in one
  // line; docs/ops.md lists these under "Differences from TensorFlow".
  std::string tf_difference;
  std::vector<ArgDef> inputs;
  std::vector<ArgDef> outputs;
  std::vector<AttrDef> attrs;
  bool stateful = false;
  bool commutative = false;
  ShapeFn shape_fn = nullptr;
  // Index of the type attr whose value picks the kernel (the first type attr), or -1.
  int dispatch_attr = -1;
  // Index of the string attr naming the device the op runs on, whatever its inputs' devices
  // (device copies), or -1: other ops run where their inputs are.
  int placement_attr = -1;
  // The op always runs on the CPU (it computes host values, or calls host code); inputs on
  // other devices are copied to it, unless it reads only their shapes.
  bool runs_on_host = false;
  // The kernel reads only its inputs' dtypes and shapes, never their elements (Shape, ZerosLike):
  // inputs are never copied for it, wherever they live.
  bool reads_only_input_shapes = false;
  // The op hands its inputs to functions whose arguments have devices of their own (the calls,
  // If, While; Note [Calls across devices] in ops/placement.h): its data inputs stay where they
  // are, and its device is where it delivers its outputs.
  bool multi_device = false;
  // A stateful op whose kernel reads its value inputs during the call and keeps none of them
  // (variable updates that apply a delta; Note [Variables copy on write] in
  // kernels/cpu/state/variable_kernels.cc): a plan may keep those inputs in its arena like any
  // intermediate. AssignVariableOp keeps its value, so it is not one of them.
  bool keeps_no_inputs = false;
  // Set for ops that take channels-first images (ChannelsFirstArgs).
  ChannelsFirstArgs channels_first;
  // True when some input is a list (`N * T` or a list(type)); derived at registration.
  bool has_list_input = false;
  // True when some input is a host input (ArgDef::host_memory).
  bool has_host_input = false;
  // Defaults of every attr, positional; unset attrs are monostate. Op functions start from this.
  AttrList default_attrs;
  // The gradient definition, resolved by name on first use (FindGradient in ops/gradient.h).
  mutable std::atomic<const GradientDef*> gradient{nullptr};
  mutable std::atomic<bool> gradient_resolved{false};

  // Position of an attr by name, or -1. For registration-time code, not for hot paths.
  int attr_index(absl::string_view attr_name) const;
};

// Declares an op:
//   OpDefBuilder("AddV2").Input("x", "T").Input("y", "T").Output("z", "T")
//       .TypeAttr("T", kNumericTypes).Commutative().Doc("x + y, broadcasting")
//       .SetShapeFn(BroadcastBinaryShape).Register();
// Register() checks the declaration (every referenced attr exists) and returns the registered op,
// which lives for the whole process.
class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string name);

  OpDefBuilder& Input(std::string name, std::string type_attr);
  OpDefBuilder& Input(std::string name, DType fixed_type);
  OpDefBuilder& InputList(std::string name, std::string type_attr, std::string number_attr);
  // `name: number_attr * fixed_type` (CollectiveReduceV2's ordering tokens: N * resource).
  OpDefBuilder& InputList(std::string name, DType fixed_type, std::string number_attr);
  OpDefBuilder& Output(std::string name, std::string type_attr);
  OpDefBuilder& Output(std::string name, DType fixed_type);
  OpDefBuilder& OutputList(std::string name, std::string type_attr, std::string number_attr);
  // Arguments with one tensor per dtype of a list(type) attr.
  OpDefBuilder& InputTypeList(std::string name, std::string type_list_attr);
  OpDefBuilder& OutputTypeList(std::string name, std::string type_list_attr);

  OpDefBuilder& TypeAttr(std::string name, std::vector<DType> allowed = {},
                         std::optional<DType> default_value = {});
  OpDefBuilder& IntAttr(std::string name, std::optional<int64_t> default_value = {},
                        std::optional<int64_t> minimum = {});
  OpDefBuilder& FloatAttr(std::string name, std::optional<float> default_value = {});
  OpDefBuilder& BoolAttr(std::string name, std::optional<bool> default_value = {});
  OpDefBuilder& StringAttr(std::string name, std::optional<std::string> default_value = {},
                           std::vector<std::string> allowed = {});
  OpDefBuilder& ShapeAttr(std::string name, std::optional<Shape> default_value = {});
  OpDefBuilder& TensorAttr(std::string name);
  OpDefBuilder& FloatListAttr(std::string name,
                              std::optional<std::vector<float>> default_value = {});
  OpDefBuilder& IntListAttr(std::string name,
                            std::optional<std::vector<int64_t>> default_value = {});
  OpDefBuilder& StringListAttr(std::string name,
                               std::optional<std::vector<std::string>> default_value = {});
  OpDefBuilder& TypeListAttr(std::string name, std::vector<DType> allowed = {});
  OpDefBuilder& ShapeListAttr(std::string name,
                              std::optional<std::vector<Shape>> default_value = {});
  OpDefBuilder& FuncAttr(std::string name);

  // The same, declared from the op's typed keys (Note [Attribute keys]): the attr takes the key's
  // name, and Register() aborts unless the key's index is the attr's position.
  OpDefBuilder& TypeAttr(const AttrKey<DType>& key, std::vector<DType> allowed = {},
                         std::optional<DType> default_value = {});
  OpDefBuilder& IntAttr(const AttrKey<int64_t>& key, std::optional<int64_t> default_value = {},
                        std::optional<int64_t> minimum = {});
  OpDefBuilder& FloatAttr(const AttrKey<float>& key, std::optional<float> default_value = {});
  OpDefBuilder& BoolAttr(const AttrKey<bool>& key, std::optional<bool> default_value = {});
  OpDefBuilder& StringAttr(const AttrKey<std::string>& key,
                           std::optional<std::string> default_value = {},
                           std::vector<std::string> allowed = {});
  OpDefBuilder& ShapeAttr(const AttrKey<Shape>& key, std::optional<Shape> default_value = {});
  OpDefBuilder& TensorAttr(const AttrKey<Tensor>& key);
  OpDefBuilder& FloatListAttr(const AttrKey<std::vector<float>>& key,
                              std::optional<std::vector<float>> default_value = {});
  OpDefBuilder& IntListAttr(const AttrKey<std::vector<int64_t>>& key,
                            std::optional<std::vector<int64_t>> default_value = {});
  OpDefBuilder& StringListAttr(const AttrKey<std::vector<std::string>>& key,
                               std::optional<std::vector<std::string>> default_value = {});
  OpDefBuilder& TypeListAttr(const AttrKey<std::vector<DType>>& key,
                             std::vector<DType> allowed = {});
  OpDefBuilder& ShapeListAttr(const AttrKey<std::vector<Shape>>& key,
                              std::optional<std::vector<Shape>> default_value = {});
  OpDefBuilder& FuncAttr(const AttrKey<duet::FuncAttr>& key);

  // The op runs on the device its string attr `attr` names (see OpDef::placement_attr).
  OpDefBuilder& PlacedByAttr(std::string attr);
  // The declared inputs `names` are read on the host (ArgDef::host_memory).
  OpDefBuilder& HostInputs(std::initializer_list<absl::string_view> names);
  OpDefBuilder& RunsOnHost();
  OpDefBuilder& ReadsOnlyInputShapes();
  OpDefBuilder& MultiDevice();
  OpDefBuilder& KeepsNoInputs();
  // The op takes channels-first images through its "data_format" attr, as its channels-last twin
  // run between transposes (ChannelsFirstArgs): `images`, `image_shapes` and `image_outputs` name
  // its arguments; its strides/ksize/dilations and explicit_paddings attrs are permuted too.
  OpDefBuilder& ChannelsFirst(std::initializer_list<absl::string_view> images,
                              std::initializer_list<absl::string_view> image_shapes,
                              std::initializer_list<absl::string_view> image_outputs);
  OpDefBuilder& Stateful();
  OpDefBuilder& Commutative();
  OpDefBuilder& Doc(std::string doc);
  // States a deliberate difference from TensorFlow's kernels (OpDef::tf_difference).
  OpDefBuilder& TfDifference(std::string difference);
  OpDefBuilder& SetShapeFn(ShapeFn fn);

  // Registers the op; aborts the process on a malformed declaration or a duplicate name
  // (programming errors caught at startup).
  const OpDef* Register();

 private:
  OpDefBuilder& Attr(AttrDef attr);
  // Marks the attr just declared as declared by `key`, whose index must be its position.
  template <typename T>
  OpDefBuilder& FromKey(const AttrKey<T>& key);
  std::unique_ptr<OpDef> def_;
  std::string placement_attr_name_;
  bool channels_first_ = false;
};

// Throws Error (Internal) for an attr key used on an op it does not belong to (Note [Attribute
// keys]): a programming error, reported with both names.
[[noreturn]] void ThrowWrongAttrKey(const OpDef& op, int index, const char* name);

// The position of `key`'s attr in `op`, after checking the key is one `op` was declared with.
template <typename T>
int AttrIndex(const OpDef& op, const AttrKey<T>& key) {
  if (ABSL_PREDICT_FALSE(key.index < 0 || key.index >= static_cast<int>(op.attrs.size()) ||
                         op.attrs[key.index].key != &key)) {
    ThrowWrongAttrKey(op, key.index, key.name);
  }
  return key.index;
}

// The value of `key`'s attr in `attrs`, a bound AttrList of `op`.
template <typename T>
const T& GetAttr(const OpDef& op, const AttrList& attrs, const AttrKey<T>& key) {
  return std::get<T>(attrs[AttrIndex(op, key)]);
}

// Sets `key`'s attr in `attrs`, an AttrList of `op`, to `value` as a T.
template <typename T, typename V>
void SetAttr(const OpDef& op, AttrList& attrs, const AttrKey<T>& key, V&& value) {
  attrs[AttrIndex(op, key)] = T(std::forward<V>(value));
}

// Dtype sets for TypeAttr.
inline const std::vector<DType> kFloatTypes = {kFloat32, kFloat64, kFloat16, kBFloat16};
inline const std::vector<DType> kRealNumberTypes = {kFloat32,  kFloat64, kFloat16,
                                                    kBFloat16, kInt32,   kInt64};
inline const std::vector<DType> kIndexTypes = {kInt32, kInt64};

}  // namespace duet
