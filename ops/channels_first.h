// Channels-first images (Note [Channels-first] in channels_first.cc): what shape inference, the
// kernels, the gradients and the layout pass share about ops declared with
// OpDefBuilder::ChannelsFirst.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/shape.h"
#include "ops/attr_value.h"
#include "ops/op_call.h"
#include "ops/op_def.h"

namespace duet {

class ShapeContext;

// Whether argument i is in one of ChannelsFirstArgs' masks.
inline bool ArgIn(uint64_t mask, int i) { return i < 64 && (mask >> i & 1) != 0; }

// Whether this call of `op` (attrs bound) takes channels-first images: the op declares
// ChannelsFirstArgs and its data_format has the channels second ("NCHW", "NCDHW").
bool IsChannelsFirst(const OpDef& op, const AttrList& attrs);
inline bool IsChannelsFirst(const OpCall& call) { return IsChannelsFirst(*call.op, call.attrs); }

// The permutation moving dim 1 of a rank-`rank` tensor last ([0, 2, ..., rank - 1, 1]), for
// Transpose: channels-first to channels-last; and its inverse ([0, rank - 1, 1, ..., rank - 2]).
std::vector<int64_t> ChannelsLastPerm(int rank);
std::vector<int64_t> ChannelsFirstPerm(int rank);
// `values` (an image's dims) permuted channels-last or back; an unknown rank stays unknown.
std::vector<int64_t> ChannelsLastDims(const std::vector<int64_t>& values);
Shape ChannelsLastShape(const Shape& shape);
Shape ChannelsFirstShape(const Shape& shape);

// The attrs of a channels-first call's channels-last twin: data_format with the channels last
// ("NHWC", "NDHWC"), the per-dim attrs (strides, ksize, dilations) and explicit paddings permuted.
AttrList ChannelsLastAttrs(const OpDef& op, const AttrList& attrs);
// The inverse: a channels-last call's attrs as its channels-first twin's ("NCHW", "NCDHW").
AttrList ChannelsFirstAttrs(const OpDef& op, const AttrList& attrs);

// The shape function of a channels-first call: its twin's, on the permuted input shapes (and
// image-shape values), with the image outputs permuted back.
absl::Status InferChannelsFirstShapes(ShapeContext& ctx);

}  // namespace duet
