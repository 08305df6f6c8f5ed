// Command-line flags for the RevNet binaries: `--name value`, `--name=value`, or `--name` alone
// for a switch. Every flag given must be read, so a misspelt one is an error, not ignored.
#pragma once

#include <map>
#include <set>
#include <string>

namespace duet::revnet {

class Flags {
 public:
  // Throws std::invalid_argument on an argument that is not a flag.
  Flags(int argc, char** argv);

  int Int(const std::string& name, int fallback);
  double Double(const std::string& name, double fallback);
  std::string String(const std::string& name, const std::string& fallback);
  bool Switch(const std::string& name);
  // Throws std::invalid_argument naming the flags given but never read.
  void CheckAllRead() const;

 private:
  // The flag's value (nullptr when not given), marking it read.
  const std::string* Find(const std::string& name);
  // The same for flags that take a value: throws when given without one.
  const std::string* FindValue(const std::string& name);

  std::map<std::string, std::string> values_;
  std::set<std::string> read_;
};

}  // namespace duet::revnet
