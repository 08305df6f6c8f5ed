#include "ops/op_ref.h"

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/error.h"
#include "ops/op_registry.h"

namespace duet {
namespace {

struct OpRefList {
  absl::Mutex mu;
  std::vector<const OpRef*> refs ABSL_GUARDED_BY(mu);
};

OpRefList& List() {
  static auto* list = new OpRefList;
  return *list;
}

}  // namespace

OpRef::OpRef(const char* name) : name_(name) {
  OpRefList& list = List();
  absl::MutexLock lock(&list.mu);
  list.refs.push_back(this);
}

OpRef::~OpRef() {
  OpRefList& list = List();
  absl::MutexLock lock(&list.mu);
  std::erase(list.refs, this);
}

const OpDef& OpRef::def() const {
  const OpDef* op = def_.load(std::memory_order_acquire);
  if (op != nullptr) return *op;
  op = OpRegistry::Global().Find(name_);
  if (op == nullptr) {
    throw Error(absl::InternalError(absl::StrCat("no op is named '", name_,
                                                 "' (an OpRef names it; see Note [Checked op "
                                                 "references] in ops/op_ref.h)")));
  }
  def_.store(op, std::memory_order_release);
  return *op;
}

std::vector<const OpRef*> OpRef::All() {
  OpRefList& list = List();
  absl::MutexLock lock(&list.mu);
  return list.refs;
}

}  // namespace duet
