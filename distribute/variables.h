// Variables across the ranks of a job: the same starting values everywhere, and a check that
// every rank made the same variables, before data-parallel training's first step.
#pragma once

#include <vector>

#include "distribute/communicator.h"
#include "eager/variable.h"

namespace duet::distribute {

// Assigns every variable the value it has on `root` (the model's weights, and optimizer slots
// made before the first step). Every rank passes its variables in the same order. Without a
// communicator, default_communicator()'s ranks.
void broadcast_variables(const Communicator& comm, const std::vector<Variable>& variables,
                         int root = 0);
void broadcast_variables(const std::vector<Variable>& variables, int root = 0);

// Returns on every rank when the ranks' variables agree in count, names, dtypes and shapes;
// otherwise throws on every rank a FailedPrecondition Error naming the first difference: the
// position, and each side's name, dtype and shape with its rank.
void check_same_variables(const Communicator& comm, const std::vector<Variable>& variables);
void check_same_variables(const std::vector<Variable>& variables);

}  // namespace duet::distribute
