#include "distribute/variables.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/constant.h"
#include "core/error.h"

namespace duet::distribute {
namespace {

// One line per variable: "name dtype shape".
std::string Describe(const std::vector<Variable>& variables) {
  std::vector<std::string> lines;
  for (const Variable& v : variables) {
    lines.push_back(absl::StrCat(v.name(), " ", DTypeName(v.dtype()), " ", v.shape().str()));
  }
  return absl::StrJoin(lines, "\n");
}

// Every rank's description, exchanged as int32 character codes padded to the longest.
std::vector<std::string> Gather(const Communicator& comm, const std::string& mine) {
  const int64_t longest =
      comm.all_reduce(constant(std::vector<int64_t>{static_cast<int64_t>(mine.size())}, Shape({1})),
                      ReduceOp::kMax)
          .to_vector<int64_t>()[0];
  std::vector<int32_t> codes(longest + 1, -1);  // -1 ends the text; at least one element
  for (size_t i = 0; i < mine.size(); ++i) codes[i] = static_cast<unsigned char>(mine[i]);
  const std::vector<int32_t> all =
      comm.all_gather(constant(codes, Shape({static_cast<int64_t>(codes.size())})))
          .to_vector<int32_t>();
  std::vector<std::string> texts(comm.size());
  for (int r = 0; r < comm.size(); ++r) {
    for (size_t i = 0; i < codes.size(); ++i) {
      const int32_t c = all[r * codes.size() + i];
      if (c < 0) break;
      texts[r].push_back(static_cast<char>(c));
    }
  }
  return texts;
}

}  // namespace

void broadcast_variables(const Communicator& comm, const std::vector<Variable>& variables,
                         int root) {
  for (const Variable& v : variables) v.assign(comm.broadcast(v.value(), root));
}

void check_same_variables(const Communicator& comm, const std::vector<Variable>& variables) {
  const std::vector<std::string> texts = Gather(comm, Describe(variables));
  const std::vector<std::string> first = absl::StrSplit(texts[0], '\n', absl::SkipEmpty());
  for (int r = 1; r < comm.size(); ++r) {
    if (texts[r] == texts[0]) continue;
    const std::vector<std::string> other = absl::StrSplit(texts[r], '\n', absl::SkipEmpty());
    size_t i = 0;
    while (i < first.size() && i < other.size() && first[i] == other[i]) ++i;
    auto entry = [&](const std::vector<std::string>& lines) {
      return i < lines.size()
                 ? "'" + lines[i] + "'"
                 : std::string("nothing (it has ") + std::to_string(lines.size()) + " variables)";
    };
    throw Error(absl::FailedPreconditionError(
        absl::StrCat("distribute: the ranks made different variables: variable ", i, " is ",
                     entry(first), " on rank 0 but ", entry(other), " on rank ", r,
                     " (every rank must build the same model before training)")));
  }
}

void broadcast_variables(const std::vector<Variable>& variables, int root) {
  broadcast_variables(default_communicator(), variables, root);
}

void check_same_variables(const std::vector<Variable>& variables) {
  check_same_variables(default_communicator(), variables);
}

}  // namespace duet::distribute
