#include "ops/op_def.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "ops/op_registry.h"

namespace duet {
namespace {

[[noreturn]] void DieBadDeclaration(const OpDef& op, const std::string& why) {
  std::fprintf(stderr, "duet: bad declaration of op %s: %s\n", op.name.c_str(), why.c_str());
  std::abort();
}

}  // namespace

int64_t ArgLength(const ArgDef& arg, const AttrList& attrs) {
  if (arg.number_attr_index >= 0) {
    const AttrValue& n = attrs[arg.number_attr_index];
    return std::holds_alternative<int64_t>(n) ? std::get<int64_t>(n) : -1;
  }
  if (arg.type_list_attr_index >= 0) {
    const AttrValue& types = attrs[arg.type_list_attr_index];
    return std::holds_alternative<std::vector<DType>>(types)
               ? static_cast<int64_t>(std::get<std::vector<DType>>(types).size())
               : -1;
  }
  return 1;
}

DType ArgDType(const ArgDef& arg, const AttrList& attrs, int64_t k) {
  if (arg.type_list_attr_index >= 0) {
    return std::get<std::vector<DType>>(attrs[arg.type_list_attr_index])[k];
  }
  return arg.type_attr_index < 0 ? arg.fixed_type : std::get<DType>(attrs[arg.type_attr_index]);
}

void ThrowWrongAttrKey(const OpDef& op, int index, const char* name) {
  const std::string declared =
      index >= 0 && index < static_cast<int>(op.attrs.size())
          ? absl::StrCat("its attr ", index, " is '", op.attrs[index].name, "', declared by ",
                         op.attrs[index].key == nullptr ? "name" : "another key")
          : absl::StrCat("it has ", op.attrs.size(), " attrs");
  throw Error(absl::InternalError(absl::StrCat("op ", op.name, " read through the key of attr '",
                                               name, "' (position ", index, "), which ", op.name,
                                               " was not declared with: ", declared)));
}

int OpDef::attr_index(absl::string_view attr_name) const {
  for (int i = 0; i < static_cast<int>(attrs.size()); ++i) {
    if (attrs[i].name == attr_name) return i;
  }
  return -1;
}

OpDefBuilder::OpDefBuilder(std::string name) : def_(std::make_unique<OpDef>()) {
  def_->name = std::move(name);
}

OpDefBuilder& OpDefBuilder::Input(std::string name, std::string type_attr) {
  def_->inputs.push_back(ArgDef{.name = std::move(name), .type_attr = std::move(type_attr)});
  return *this;
}
OpDefBuilder& OpDefBuilder::Input(std::string name, DType fixed_type) {
  def_->inputs.push_back(ArgDef{.name = std::move(name), .fixed_type = fixed_type});
  return *this;
}
OpDefBuilder& OpDefBuilder::InputList(std::string name, std::string type_attr,
                                      std::string number_attr) {
  def_->inputs.push_back(ArgDef{.name = std::move(name),
                                .type_attr = std::move(type_attr),
                                .number_attr = std::move(number_attr)});
  return *this;
}
OpDefBuilder& OpDefBuilder::InputList(std::string name, DType fixed_type, std::string number_attr) {
  def_->inputs.push_back(ArgDef{
      .name = std::move(name), .fixed_type = fixed_type, .number_attr = std::move(number_attr)});
  return *this;
}
OpDefBuilder& OpDefBuilder::Output(std::string name, std::string type_attr) {
  def_->outputs.push_back(ArgDef{.name = std::move(name), .type_attr = std::move(type_attr)});
  return *this;
}
OpDefBuilder& OpDefBuilder::Output(std::string name, DType fixed_type) {
  def_->outputs.push_back(ArgDef{.name = std::move(name), .fixed_type = fixed_type});
  return *this;
}
OpDefBuilder& OpDefBuilder::OutputList(std::string name, std::string type_attr,
                                       std::string number_attr) {
  def_->outputs.push_back(ArgDef{.name = std::move(name),
                                 .type_attr = std::move(type_attr),
                                 .number_attr = std::move(number_attr)});
  return *this;
}

OpDefBuilder& OpDefBuilder::InputTypeList(std::string name, std::string type_list_attr) {
  def_->inputs.push_back(
      ArgDef{.name = std::move(name), .type_list_attr = std::move(type_list_attr)});
  return *this;
}
OpDefBuilder& OpDefBuilder::OutputTypeList(std::string name, std::string type_list_attr) {
  def_->outputs.push_back(
      ArgDef{.name = std::move(name), .type_list_attr = std::move(type_list_attr)});
  return *this;
}

OpDefBuilder& OpDefBuilder::Attr(AttrDef attr) {
  def_->attrs.push_back(std::move(attr));
  return *this;
}

OpDefBuilder& OpDefBuilder::TypeAttr(std::string name, std::vector<DType> allowed,
                                     std::optional<DType> default_value) {
  AttrDef a{.name = std::move(name), .type = AttrType::kType, .allowed_types = std::move(allowed)};
  if (default_value) a.default_value = *default_value;
  return Attr(std::move(a));
}
OpDefBuilder& OpDefBuilder::IntAttr(std::string name, std::optional<int64_t> default_value,
                                    std::optional<int64_t> minimum) {
  AttrDef a{.name = std::move(name), .type = AttrType::kInt, .minimum = minimum};
  if (default_value) a.default_value = *default_value;
  return Attr(std::move(a));
}
OpDefBuilder& OpDefBuilder::FloatAttr(std::string name, std::optional<float> default_value) {
  AttrDef a{.name = std::move(name), .type = AttrType::kFloat};
  if (default_value) a.default_value = *default_value;
  return Attr(std::move(a));
}
OpDefBuilder& OpDefBuilder::BoolAttr(std::string name, std::optional<bool> default_value) {
  AttrDef a{.name = std::move(name), .type = AttrType::kBool};
  if (default_value) a.default_value = *default_value;
  return Attr(std::move(a));
}
OpDefBuilder& OpDefBuilder::StringAttr(std::string name, std::optional<std::string> default_value,
                                       std::vector<std::string> allowed) {
  AttrDef a{.name = std::move(name), .type = AttrType::kString, .allowed_values = allowed};
  if (default_value) a.default_value = *default_value;
  return Attr(std::move(a));
}
OpDefBuilder& OpDefBuilder::ShapeAttr(std::string name, std::optional<Shape> default_value) {
  AttrDef a{.name = std::move(name), .type = AttrType::kShape};
  if (default_value) a.default_value = *default_value;
  return Attr(std::move(a));
}
OpDefBuilder& OpDefBuilder::TensorAttr(std::string name) {
  return Attr(AttrDef{.name = std::move(name), .type = AttrType::kTensor});
}
OpDefBuilder& OpDefBuilder::FloatListAttr(std::string name,
                                          std::optional<std::vector<float>> default_value) {
  AttrDef a{.name = std::move(name), .type = AttrType::kListFloat};
  if (default_value) a.default_value = *default_value;
  return Attr(std::move(a));
}
OpDefBuilder& OpDefBuilder::IntListAttr(std::string name,
                                        std::optional<std::vector<int64_t>> default_value) {
  AttrDef a{.name = std::move(name), .type = AttrType::kListInt};
  if (default_value) a.default_value = *default_value;
  return Attr(std::move(a));
}
OpDefBuilder& OpDefBuilder::StringListAttr(std::string name,
                                           std::optional<std::vector<std::string>> default_value) {
  AttrDef a{.name = std::move(name), .type = AttrType::kListString};
  if (default_value) a.default_value = *default_value;
  return Attr(std::move(a));
}
OpDefBuilder& OpDefBuilder::TypeListAttr(std::string name, std::vector<DType> allowed) {
  return Attr(AttrDef{
      .name = std::move(name), .type = AttrType::kListType, .allowed_types = std::move(allowed)});
}

OpDefBuilder& OpDefBuilder::ShapeListAttr(std::string name,
                                          std::optional<std::vector<Shape>> default_value) {
  AttrDef a{.name = std::move(name), .type = AttrType::kListShape};
  if (default_value) a.default_value = *default_value;
  return Attr(std::move(a));
}
OpDefBuilder& OpDefBuilder::FuncAttr(std::string name) {
  return Attr(AttrDef{.name = std::move(name), .type = AttrType::kFunc});
}

template <typename T>
OpDefBuilder& OpDefBuilder::FromKey(const AttrKey<T>& key) {
  const int position = static_cast<int>(def_->attrs.size()) - 1;
  if (key.index != position) {
    DieBadDeclaration(*def_, absl::StrCat("the key of attr ", key.name, " says position ",
                                          key.index, ", but it is declared at ", position));
  }
  def_->attrs.back().key = &key;
  return *this;
}

OpDefBuilder& OpDefBuilder::TypeAttr(const AttrKey<DType>& key, std::vector<DType> allowed,
                                     std::optional<DType> default_value) {
  return TypeAttr(key.name, std::move(allowed), default_value).FromKey(key);
}
OpDefBuilder& OpDefBuilder::IntAttr(const AttrKey<int64_t>& key,
                                    std::optional<int64_t> default_value,
                                    std::optional<int64_t> minimum) {
  return IntAttr(key.name, default_value, minimum).FromKey(key);
}
OpDefBuilder& OpDefBuilder::FloatAttr(const AttrKey<float>& key,
                                      std::optional<float> default_value) {
  return FloatAttr(key.name, default_value).FromKey(key);
}
OpDefBuilder& OpDefBuilder::BoolAttr(const AttrKey<bool>& key, std::optional<bool> default_value) {
  return BoolAttr(key.name, default_value).FromKey(key);
}
OpDefBuilder& OpDefBuilder::StringAttr(const AttrKey<std::string>& key,
                                       std::optional<std::string> default_value,
                                       std::vector<std::string> allowed) {
  return StringAttr(key.name, std::move(default_value), std::move(allowed)).FromKey(key);
}
OpDefBuilder& OpDefBuilder::ShapeAttr(const AttrKey<Shape>& key,
                                      std::optional<Shape> default_value) {
  return ShapeAttr(key.name, std::move(default_value)).FromKey(key);
}
OpDefBuilder& OpDefBuilder::TensorAttr(const AttrKey<Tensor>& key) {
  return TensorAttr(key.name).FromKey(key);
}
OpDefBuilder& OpDefBuilder::FloatListAttr(const AttrKey<std::vector<float>>& key,
                                          std::optional<std::vector<float>> default_value) {
  return FloatListAttr(key.name, std::move(default_value)).FromKey(key);
}
OpDefBuilder& OpDefBuilder::IntListAttr(const AttrKey<std::vector<int64_t>>& key,
                                        std::optional<std::vector<int64_t>> default_value) {
  return IntListAttr(key.name, std::move(default_value)).FromKey(key);
}
OpDefBuilder& OpDefBuilder::StringListAttr(const AttrKey<std::vector<std::string>>& key,
                                           std::optional<std::vector<std::string>> default_value) {
  return StringListAttr(key.name, std::move(default_value)).FromKey(key);
}
OpDefBuilder& OpDefBuilder::TypeListAttr(const AttrKey<std::vector<DType>>& key,
                                         std::vector<DType> allowed) {
  return TypeListAttr(key.name, std::move(allowed)).FromKey(key);
}
OpDefBuilder& OpDefBuilder::ShapeListAttr(const AttrKey<std::vector<Shape>>& key,
                                          std::optional<std::vector<Shape>> default_value) {
  return ShapeListAttr(key.name, std::move(default_value)).FromKey(key);
}
OpDefBuilder& OpDefBuilder::FuncAttr(const AttrKey<duet::FuncAttr>& key) {
  return FuncAttr(std::string(key.name)).FromKey(key);
}

OpDefBuilder& OpDefBuilder::PlacedByAttr(std::string attr) {
  placement_attr_name_ = std::move(attr);
  return *this;
}
OpDefBuilder& OpDefBuilder::HostInputs(std::initializer_list<absl::string_view> names) {
  for (absl::string_view name : names) {
    auto it = std::find_if(def_->inputs.begin(), def_->inputs.end(),
                           [&](const ArgDef& arg) { return arg.name == name; });
    if (it == def_->inputs.end()) {
      DieBadDeclaration(*def_, absl::StrCat("host input ", name, " is not a declared input"));
    }
    it->host_memory = true;
    def_->has_host_input = true;
  }
  return *this;
}
namespace {
// The mask of the single-tensor arguments of `args` named `names`.
uint64_t ArgMask(const OpDef& op, const std::vector<ArgDef>& args,
                 std::initializer_list<absl::string_view> names) {
  uint64_t mask = 0;
  for (absl::string_view name : names) {
    auto it =
        std::find_if(args.begin(), args.end(), [&](const ArgDef& arg) { return arg.name == name; });
    if (it == args.end() || !it->number_attr.empty() || !it->type_list_attr.empty()) {
      DieBadDeclaration(op, absl::StrCat("channels-first arg ", name,
                                         " is not a declared single-tensor argument"));
    }
    mask |= uint64_t{1} << (it - args.begin());
  }
  return mask;
}
}  // namespace

OpDefBuilder& OpDefBuilder::ChannelsFirst(std::initializer_list<absl::string_view> images,
                                          std::initializer_list<absl::string_view> image_shapes,
                                          std::initializer_list<absl::string_view> image_outputs) {
  ChannelsFirstArgs& args = def_->channels_first;
  args.image_inputs = ArgMask(*def_, def_->inputs, images);
  args.image_shape_inputs = ArgMask(*def_, def_->inputs, image_shapes);
  args.image_outputs = ArgMask(*def_, def_->outputs, image_outputs);
  channels_first_ = true;
  return *this;
}

OpDefBuilder& OpDefBuilder::RunsOnHost() {
  def_->runs_on_host = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::KeepsNoInputs() {
  def_->keeps_no_inputs = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::ReadsOnlyInputShapes() {
  def_->reads_only_input_shapes = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::MultiDevice() {
  def_->multi_device = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::Stateful() {
  def_->stateful = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::Commutative() {
  def_->commutative = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::Doc(std::string doc) {
  def_->doc = std::move(doc);
  return *this;
}
OpDefBuilder& OpDefBuilder::TfDifference(std::string difference) {
  def_->tf_difference = std::move(difference);
  return *this;
}
OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeFn fn) {
  def_->shape_fn = fn;
  return *this;
}

namespace {

// Resolves an argument's type/number attr names to attr positions.
void ResolveArg(const OpDef& op, ArgDef& arg) {
  if (!arg.type_attr.empty()) {
    arg.type_attr_index = op.attr_index(arg.type_attr);
    if (arg.type_attr_index < 0 || op.attrs[arg.type_attr_index].type != AttrType::kType) {
      DieBadDeclaration(op, absl::StrCat("argument ", arg.name, " names type attr ", arg.type_attr,
                                         ", which is not declared"));
    }
  }
  if (!arg.number_attr.empty()) {
    arg.number_attr_index = op.attr_index(arg.number_attr);
    if (arg.number_attr_index < 0 || op.attrs[arg.number_attr_index].type != AttrType::kInt) {
      DieBadDeclaration(op, absl::StrCat("argument ", arg.name, " names number attr ",
                                         arg.number_attr, ", which is not an int attr"));
    }
  }
  if (!arg.type_list_attr.empty()) {
    arg.type_list_attr_index = op.attr_index(arg.type_list_attr);
    if (arg.type_list_attr_index < 0 ||
        op.attrs[arg.type_list_attr_index].type != AttrType::kListType) {
      DieBadDeclaration(op, absl::StrCat("argument ", arg.name, " names type list attr ",
                                         arg.type_list_attr, ", which is not a list(type) attr"));
    }
  }
}

}  // namespace

const OpDef* OpDefBuilder::Register() {
  OpDef& op = *def_;
  if (op.shape_fn == nullptr) DieBadDeclaration(op, "no shape function");
  for (ArgDef& arg : op.inputs) {
    ResolveArg(op, arg);
    op.has_list_input |= arg.is_list();
  }
  for (ArgDef& arg : op.outputs) ResolveArg(op, arg);
  for (int i = 0; i < static_cast<int>(op.attrs.size()); ++i) {
    if (op.dispatch_attr < 0 && op.attrs[i].type == AttrType::kType) op.dispatch_attr = i;
    op.default_attrs.push_back(op.attrs[i].default_value.value_or(AttrValue{}));
    for (DType d : op.attrs[i].allowed_types) {
      op.attrs[i].allowed_type_mask |= 1u << static_cast<int>(d);
    }
  }
  if (!placement_attr_name_.empty()) {
    op.placement_attr = op.attr_index(placement_attr_name_);
    if (op.placement_attr < 0 || op.attrs[op.placement_attr].type != AttrType::kString) {
      DieBadDeclaration(op, absl::StrCat("placement attr ", placement_attr_name_,
                                         " is not a declared string attr"));
    }
  }
  // A channels-first data_format is only ever served through ChannelsFirstArgs (Note
  // [Channels-first] in ops/channels_first.cc): kernels would read it as channels-last.
  if (const int i = op.attr_index("data_format"); i >= 0 && !channels_first_) {
    for (const std::string& value : op.attrs[i].allowed_values) {
      if (value.size() >= 3 && value[1] == 'C') {
        DieBadDeclaration(op, "allows data_format " + value + " without declaring ChannelsFirst");
      }
    }
  }
  if (channels_first_) {
    ChannelsFirstArgs& args = op.channels_first;
    args.format_attr = op.attr_index("data_format");
    if (args.format_attr < 0 || op.attrs[args.format_attr].type != AttrType::kString) {
      DieBadDeclaration(op, "channels-first without a string attr data_format");
    }
    for (const char* name : {"ksize", "strides", "dilations"}) {
      if (const int i = op.attr_index(name); i >= 0) args.dim_attrs.push_back(i);
    }
    args.explicit_paddings_attr = op.attr_index("explicit_paddings");
  }
  auto registered = OpRegistry::Global().Add(std::move(def_));
  if (!registered.ok()) {
    std::fprintf(stderr, "duet: %s\n", std::string(registered.status().message()).c_str());
    std::abort();
  }
  return *registered;
}

}  // namespace duet
