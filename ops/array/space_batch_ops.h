// SpaceToBatchND and BatchToSpaceND: spatial blocks moved into the batch dim and back (how
// TensorFlow runs dilated convolutions, and what Keras' dilated Conv1D/Conv2D freeze to).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// `input` of shape [batch] + spatial (M dims) + rest, each spatial dim i zero-padded by
// paddings[i] and cut into blocks of block_shape[i], the block offsets moved into the batch (op
// SpaceToBatchND): the output has shape [batch * prod(block_shape)] + [padded_i / block_shape[i]]
// + rest, output batch index (o_1..o_M row-major) * batch + n holding the elements at padded
// positions q * block_shape + o. Each padded size must divide by its block size; block sizes are
// >= 1 and paddings >= 0 (InvalidArgument errors name the dim and values). Every dtype.
Tensor space_to_batch_nd(const Tensor& input, const std::vector<int64_t>& block_shape,
                         const std::vector<std::pair<int64_t, int64_t>>& paddings,
                         OpSite site = {});
// space_to_batch_nd(x, {2, 2}, {{1, 0}, {0, 1}}): braced lists are the block shape and the pairs.
Tensor space_to_batch_nd(const Tensor& input, std::initializer_list<int64_t> block_shape,
                         std::initializer_list<std::pair<int64_t, int64_t>> paddings,
                         OpSite site = {});
// Same, with block_shape ([M]) and paddings ([M, 2]) as int32/int64 tensors.
Tensor space_to_batch_nd(const Tensor& input, const Tensor& block_shape, const Tensor& paddings,
                         OpSite site = {});

// The inverse of space_to_batch_nd (op BatchToSpaceND): `input` of shape
// [batch * prod(block_shape)] + spatial + rest back to [batch] + [spatial_i * block_shape[i] -
// crops] + rest, `crops` ([M] pairs, >= 0) taken off each spatial dim's start and end.
Tensor batch_to_space_nd(const Tensor& input, const std::vector<int64_t>& block_shape,
                         const std::vector<std::pair<int64_t, int64_t>>& crops, OpSite site = {});
// batch_to_space_nd(x, {2, 2}, {{1, 0}, {0, 1}}): braced lists are the block shape and the pairs.
Tensor batch_to_space_nd(const Tensor& input, std::initializer_list<int64_t> block_shape,
                         std::initializer_list<std::pair<int64_t, int64_t>> crops,
                         OpSite site = {});
// Same, with block_shape ([M]) and crops ([M, 2]) as int32/int64 tensors.
Tensor batch_to_space_nd(const Tensor& input, const Tensor& block_shape, const Tensor& crops,
                         OpSite site = {});

}  // namespace duet
