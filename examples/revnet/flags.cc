#include "examples/revnet/flags.h"

#include <stdexcept>

namespace duet::revnet {

Flags::Flags(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) throw std::invalid_argument("not a flag: '" + arg + "'");
    arg = arg.substr(2);
    if (const size_t eq = arg.find('='); eq != std::string::npos) {
      values_[arg.substr(0, eq)] = arg.substr(eq + 1);
    } else if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) {
      values_[arg] = argv[++i];
    } else {
      values_[arg] = "";  // a switch
    }
  }
}

const std::string* Flags::Find(const std::string& name) {
  read_.insert(name);
  const auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

const std::string* Flags::FindValue(const std::string& name) {
  const std::string* v = Find(name);
  if (v != nullptr && v->empty()) throw std::invalid_argument("--" + name + " needs a value");
  return v;
}

int Flags::Int(const std::string& name, int fallback) {
  const std::string* v = FindValue(name);
  size_t used = 0;
  const int value = v != nullptr ? std::stoi(*v, &used) : fallback;
  if (v != nullptr && used != v->size()) {
    throw std::invalid_argument("--" + name + " takes an integer, got '" + *v + "'");
  }
  return value;
}

double Flags::Double(const std::string& name, double fallback) {
  const std::string* v = FindValue(name);
  return v != nullptr ? std::stod(*v) : fallback;
}

std::string Flags::String(const std::string& name, const std::string& fallback) {
  const std::string* v = FindValue(name);
  return v != nullptr ? *v : fallback;
}

bool Flags::Switch(const std::string& name) {
  const std::string* v = Find(name);
  if (v != nullptr && !v->empty() && *v != "true" && *v != "false") {
    throw std::invalid_argument("--" + name + " is a switch, got '" + *v + "'");
  }
  return v != nullptr && *v != "false";
}

void Flags::CheckAllRead() const {
  std::string unknown;
  for (const auto& [name, value] : values_) {
    if (read_.count(name) == 0) unknown += " --" + name;
  }
  if (!unknown.empty()) throw std::invalid_argument("unknown flags:" + unknown);
}

}  // namespace duet::revnet
