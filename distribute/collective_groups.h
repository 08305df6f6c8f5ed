// The groups the collective ops' group_key inputs name: which backend a kernel runs a collective
// on, and the instance keys that tell a group's collectives apart.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "distribute/backend.h"

namespace duet::distribute {

// Note [Collective groups]: TensorFlow's collective ops name their ranks by a group_key and each
// collective by an instance_key, both int32 inputs. Here every Communicator registers its backend
// under a group key of its own (1, 2, ... in the order this process makes them, so every worker
// of a job that makes its communicators alike gives them the same keys, as an exported graph run
// by TensorFlow needs), and the kernels find it by that key. Instance keys come from one counter
// per process: a program that makes the same collectives in the same order on every worker (as
// collectives require anyway) gives each the same key everywhere. The backends match collectives
// by their order, so the kernels do not read instance keys.

// Registers `backend` and returns its new group key.
int RegisterGroup(std::shared_ptr<Backend> backend);
// Forgets the group (its Communicator's last copy is gone).
void UnregisterGroup(int group_key);
// The backend of `group_key`: FailedPrecondition when no communicator of this process has that
// key, InvalidArgument when `group_size` is not its number of ranks.
absl::StatusOr<std::shared_ptr<Backend>> FindGroup(int group_key, int group_size);
// A new instance key (1, 2, ...).
int NextInstanceKey();

}  // namespace duet::distribute
