#include "ops/gradient.h"

#include <cstdlib>
#include <iostream>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/constant.h"

namespace duet {
namespace {

// Gradient declarations by op name. Registrars run at static initialization, possibly before the
// op itself registers, so they are matched to OpDefs by name on first use.
struct GradientTable {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, std::unique_ptr<GradientDef>> by_op ABSL_GUARDED_BY(mu);
};

GradientTable& Table() {
  static auto* table = new GradientTable;
  return *table;
}

void Declare(absl::string_view op, GradientDef def) {
  GradientTable& table = Table();
  absl::MutexLock lock(&table.mu);
  auto [it, inserted] =
      table.by_op.try_emplace(std::string(op), std::make_unique<GradientDef>(def));
  if (!inserted) {
    std::cerr << "duet: the gradient of op " << op << " is declared twice\n";
    std::abort();
  }
}

uint64_t Bits(std::initializer_list<int> indices) {
  uint64_t bits = 0;
  for (int i : indices) bits |= uint64_t{1} << i;
  return bits;
}

}  // namespace

const Tensor& GradientContext::input(int i) const {
  if (!inputs_[i].defined()) {
    throw Error(absl::InternalError(absl::StrCat("the gradient of ", op_.name, " reads input ", i,
                                                 ", which its GradientRegistrar does not keep")));
  }
  return inputs_[i];
}

const Tensor& GradientContext::output(int i) const {
  if (!outputs_[i].defined()) {
    throw Error(absl::InternalError(absl::StrCat("the gradient of ", op_.name, " reads output ", i,
                                                 ", which its GradientRegistrar does not keep")));
  }
  return outputs_[i];
}

Tensor GradientContext::grad_or_zeros(int i) const {
  if (grads_[i].defined()) return grads_[i];
  return zeros(output_meta_[i].shape, output_meta_[i].dtype);
}

GradientRegistrar::GradientRegistrar(absl::string_view op, GradientFn fn,
                                     std::initializer_list<int> keep_inputs,
                                     std::initializer_list<int> keep_outputs) {
  Declare(op, GradientDef{fn, Bits(keep_inputs), Bits(keep_outputs)});
}

NotDifferentiable::NotDifferentiable(absl::string_view op) { Declare(op, GradientDef{}); }

const GradientDef* FindGradient(const OpDef& op) {
  if (op.gradient_resolved.load(std::memory_order_acquire)) {
    return op.gradient.load(std::memory_order_relaxed);
  }
  GradientTable& table = Table();
  absl::MutexLock lock(&table.mu);
  auto it = table.by_op.find(op.name);
  const GradientDef* def = it == table.by_op.end() ? nullptr : it->second.get();
  op.gradient.store(def, std::memory_order_relaxed);
  op.gradient_resolved.store(true, std::memory_order_release);
  return def;
}

std::vector<std::string> OpsWithGradientDeclarations() {
  GradientTable& table = Table();
  absl::MutexLock lock(&table.mu);
  std::vector<std::string> names;
  for (const auto& [name, def] : table.by_op) names.push_back(name);
  return names;
}

}  // namespace duet
