// AttrKey: the typed name of one attr of an op, declared once beside the op's declaration.
#pragma once

namespace duet {

// Note [Attribute keys]
// An op call's attrs are positional (AttrList), so kernels and shape functions read them without
// looking names up. The positions are published once per op, as typed keys in the family's
// `ops/<family>/<family>_attrs.h` (header-only, so kernels and passes can include it):
//
//   struct MatMulAttrs {
//     static constexpr AttrKey<bool> kTransposeA{0, "transpose_a"};
//     ...
//   };
//
// The OpDefBuilder declares each attr from its key (`.BoolAttr(MatMulAttrs::kTransposeA, false)`)
// and aborts at start-up when the key's index is not the attr's position; the OpDef remembers
// which key declared each attr. Every read and write (OpCall::set, the contexts' attr(key),
// Node::attr(key)) checks that the key is the one the op was declared with and throws Internal
// otherwise (MatMul's transpose_a key used on BatchMatMulV2), so inserting an attr is a one-line
// change and a key used on the wrong op fails the first test that runs that code. Ops that share
// attrs (Conv2D and its backprops, the pooling ops) share keys, declaring them at the same
// positions. Generic code (GraphDef import and export, BindAttrs) still walks attrs by position.
template <typename T>
struct AttrKey {
  int index;         // the attr's position in OpDef::attrs
  const char* name;  // its name in the OpDef (TensorFlow's)
};

}  // namespace duet
