#include "distribute/collective_groups.h"

#include <atomic>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace duet::distribute {
namespace {

struct Groups {
  absl::Mutex mu;
  absl::flat_hash_map<int, std::shared_ptr<Backend>> by_key ABSL_GUARDED_BY(mu);
  int next_key ABSL_GUARDED_BY(mu) = 1;
};

Groups& TheGroups() {
  static Groups* const groups = new Groups;  // never destroyed: kernels may run during exit
  return *groups;
}

std::atomic<int> next_instance_key{1};

}  // namespace

int RegisterGroup(std::shared_ptr<Backend> backend) {
  Groups& groups = TheGroups();
  absl::MutexLock lock(&groups.mu);
  const int key = groups.next_key++;
  groups.by_key[key] = std::move(backend);
  return key;
}

void UnregisterGroup(int group_key) {
  Groups& groups = TheGroups();
  absl::MutexLock lock(&groups.mu);
  groups.by_key.erase(group_key);
}

absl::StatusOr<std::shared_ptr<Backend>> FindGroup(int group_key, int group_size) {
  Groups& groups = TheGroups();
  std::shared_ptr<Backend> backend;
  {
    absl::MutexLock lock(&groups.mu);
    auto it = groups.by_key.find(group_key);
    if (it != groups.by_key.end()) backend = it->second;
  }
  if (backend == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no communicator of this process has group_key ", group_key,
        " (distribute::init() makes one; a graph made by another program needs the same "
        "communicators, made in the same order)"));
  }
  if (group_size != backend->size()) {
    return absl::InvalidArgumentError(absl::StrCat("group_size is ", group_size, " but group ",
                                                   group_key, " has ", backend->size(), " ranks (",
                                                   backend->name(), ")"));
  }
  return backend;
}

int NextInstanceKey() { return next_instance_key.fetch_add(1, std::memory_order_relaxed); }

}  // namespace duet::distribute
