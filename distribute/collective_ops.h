// The collective ops, as TensorFlow declares them: CollectiveReduceV2, CollectiveGatherV2,
// CollectiveBcastSendV2 and CollectiveBcastRecvV2. Their kernels (collective_kernels.cc) run each
// collective on the backend the group_key input names (Note [Collective groups]), so a
// Communicator's collectives run eagerly, trace into duet::function graphs and Sessions, and an
// exported step keeps TensorFlow's op names.
//
// Note [Collective order]: every worker must run a group's collectives in the same order. In a
// graph, CollectiveReduceV2 and CollectiveGatherV2 take the communicator's ordering token (a
// resource, as TensorFlow's ordering_token), so automatic control dependencies (graph/
// graph_context.h) chain them in the order the program made them, as TensorFlow's
// OrderCollectives does; broadcasts (TensorFlow's take no token) run in the plan's order, which
// keeps the order nodes were made in. Eagerly, ops run in program order anyway.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet::distribute {

// Which ranks and which collective: the int32 scalar inputs every collective op takes.
struct CollectiveKeys {
  int group_size = 1;
  int group_key = 0;
  int instance_key = 0;
};

// The elementwise reduction of `input` over the group's ranks (merge_op), divided by group_size
// when final_op is "Div". `ordering_token`: the resources that order it (Note [Collective order]).
Tensor collective_reduce_v2(const Tensor& input, const CollectiveKeys& keys,
                            const std::vector<Tensor>& ordering_token, const std::string& merge_op,
                            const std::string& final_op, OpSite site = {});
// The ranks' `input`s (rank >= 1, the same shape everywhere) concatenated along axis 0 in rank
// order.
Tensor collective_gather_v2(const Tensor& input, const CollectiveKeys& keys,
                            const std::vector<Tensor>& ordering_token, OpSite site = {});
// Sends `input` to the group's other ranks, which call collective_bcast_recv_v2; returns it.
Tensor collective_bcast_send_v2(const Tensor& input, const CollectiveKeys& keys, OpSite site = {});
// The tensor the group's sending rank broadcasts: `dtype` and `shape` must be the sender's.
Tensor collective_bcast_recv_v2(DType dtype, const Shape& shape, const CollectiveKeys& keys,
                                OpSite site = {});

}  // namespace duet::distribute
