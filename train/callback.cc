#include "train/callback.h"

#include <algorithm>

namespace duet {

void Logs::set(std::string_view name, double value) {
  auto it = std::find_if(items_.begin(), items_.end(),
                         [&](const auto& item) { return item.first == name; });
  if (it != items_.end()) {
    it->second = value;
  } else {
    items_.emplace_back(std::string(name), value);
  }
}

std::optional<double> Logs::get(std::string_view name) const {
  for (const auto& [key, value] : items_) {
    if (key == name) return value;
  }
  return std::nullopt;
}

}  // namespace duet
