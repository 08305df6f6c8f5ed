// The three-modes check of the training stack: the same callable run eagerly, inside
// duet::function and in a GraphScope graph run by a Session must give the same values.
#pragma once

#include <functional>
#include <vector>

#include "duet.h"

namespace duet::testing {

using TensorFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

inline std::vector<Tensor> RunEagerly(const TensorFn& fn, const std::vector<Tensor>& inputs) {
  return fn(inputs);
}

inline std::vector<Tensor> RunTraced(const TensorFn& fn, const std::vector<Tensor>& inputs) {
  auto traced = duet::function([&](std::vector<Tensor> in) { return fn(in); });
  return traced(inputs);
}

inline std::vector<Tensor> RunInSession(const TensorFn& fn, const std::vector<Tensor>& inputs) {
  Graph g;
  std::vector<Tensor> placeholders, outputs;
  {
    GraphScope scope(g);
    for (const Tensor& x : inputs) placeholders.push_back(placeholder(x.dtype(), x.shape()));
    outputs = fn(placeholders);
  }
  Session session(g);
  FeedList feeds;
  for (size_t i = 0; i < inputs.size(); ++i) feeds.push_back({placeholders[i], inputs[i]});
  return session.run(feeds, std::vector<GraphTensor>(outputs.begin(), outputs.end()));
}

}  // namespace duet::testing
