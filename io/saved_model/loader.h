// SavedModel import: saved_model::load reads a SavedModel (TensorFlow's, Keras' model.export, or
// duet's own) and runs its signatures.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "graph/graph.h"
#include "graph/session.h"
#include "proto/meta_graph.pb.h"

namespace duet::saved_model {

// A loaded SavedModel: the graph its signatures need, its variables restored from variables/,
// and a Session that runs it. Movable, not copyable.
class LoadedModel {
 public:
  // The signature keys ("serving_default", ...), sorted; TensorFlow's internal ones ("__...")
  // are left out.
  std::vector<std::string> signatures() const;
  const tensorflow::SignatureDef& signature_def(const std::string& key) const;
  // Runs a signature: inputs and outputs by the signature's names, as TensorFlow's
  // loaded.signatures[key](x=...) does. Throws Error naming the signature for an unknown key, a
  // missing or unexpected input, or an input whose dtype or shape the signature rejects.
  std::map<std::string, Tensor> call(const std::string& key,
                                     const std::map<std::string, Tensor>& inputs) const;
  // The graph as imported (signature functions and variables, without the saver).
  const Graph& graph() const { return graph_; }

 private:
  friend LoadedModel load(const std::string& dir, const std::string& tag);
  tensorflow::MetaGraphDef meta_;  // without its graph: the signatures
  Graph graph_;
  std::unique_ptr<Session> session_;
};

// Reads `dir`/saved_model.pb, takes its MetaGraphDef tagged `tag`, imports what the signatures
// need (function library, StatefulPartitionedCall, variables) and assigns the variables their
// values from `dir`/variables/variables, found through the saver's restore op. Throws Error
// naming the file for a missing or malformed SavedModel, ops duet lacks, or missing values.
LoadedModel load(const std::string& dir, const std::string& tag = "serve");

// Whether `path` is a SavedModel directory (it has a saved_model.pb).
bool is_saved_model(const std::string& path);

}  // namespace duet::saved_model
