#include "ops/nn/einsum_equation.h"

#include <algorithm>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/error.h"

namespace duet {
namespace {

std::string TermString(const std::string& term) {
  std::string out;
  for (char c : term) {
    if (c == kEinsumEllipsis) {
      absl::StrAppend(&out, "...");
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// One term without spaces: letters, and "..." at most once, stored as kEinsumEllipsis.
absl::StatusOr<std::string> ParseTerm(absl::string_view text, absl::string_view equation) {
  std::string term;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (absl::ascii_isalpha(static_cast<unsigned char>(c))) {
      term.push_back(c);
    } else if (c == '.') {
      if (text.substr(i, 3) != "...") {
        return absl::InvalidArgumentError(
            absl::StrCat("equation '", equation, "': a '.' that is not part of an ellipsis '...'"));
      }
      if (term.find(kEinsumEllipsis) != std::string::npos) {
        return absl::InvalidArgumentError(absl::StrCat("equation '", equation, "': the term '",
                                                       text, "' has more than one ellipsis"));
      }
      term.push_back(kEinsumEllipsis);
      i += 2;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("equation '", equation, "': character '",
                                                     std::string(1, c),
                                                     "' is not a letter or an ellipsis '...'"));
    }
  }
  return term;
}

}  // namespace

std::string EinsumSubscripts::str() const {
  std::vector<std::string> terms;
  for (const std::string& term : inputs) terms.push_back(TermString(term));
  return absl::StrCat(absl::StrJoin(terms, ","), "->", TermString(output));
}

absl::StatusOr<EinsumSubscripts> ParseEinsumEquation(absl::string_view equation, int num_inputs) {
  std::string compact;
  for (char c : equation) {
    if (c != ' ') compact.push_back(c);
  }
  const std::vector<absl::string_view> sides = absl::StrSplit(compact, "->");
  if (sides.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("equation '", equation, "' must have exactly one '->'"));
  }
  const std::vector<absl::string_view> terms = absl::StrSplit(sides[0], ',');
  if (static_cast<int>(terms.size()) != num_inputs) {
    return absl::InvalidArgumentError(absl::StrCat("equation '", equation, "' has ", terms.size(),
                                                   " input terms but the op has ", num_inputs,
                                                   " inputs"));
  }
  if (num_inputs > 2) {
    return absl::UnimplementedError(
        absl::StrCat("equation '", equation, "': only 1 or 2 operands are supported, got ",
                     num_inputs, " (chain two-operand einsums instead)"));
  }
  EinsumSubscripts subscripts;
  for (absl::string_view text : terms) {
    DUET_ASSIGN_OR_RETURN(std::string term, ParseTerm(text, equation));
    subscripts.inputs.push_back(std::move(term));
  }
  DUET_ASSIGN_OR_RETURN(subscripts.output, ParseTerm(sides[1], equation));
  const std::string& output = subscripts.output;
  for (size_t i = 0; i < output.size(); ++i) {
    const char c = output[i];
    if (c == kEinsumEllipsis) continue;
    const bool in_input =
        std::any_of(subscripts.inputs.begin(), subscripts.inputs.end(),
                    [c](const std::string& t) { return t.find(c) != std::string::npos; });
    if (!in_input) {
      return absl::InvalidArgumentError(absl::StrCat("equation '", equation, "': output label '",
                                                     std::string(1, c), "' is in no input term"));
    }
  }
  return subscripts;
}

absl::StatusOr<EinsumDims> ResolveEinsumDims(const EinsumSubscripts& subscripts,
                                             absl::Span<const Shape> shapes) {
  const int n = static_cast<int>(subscripts.inputs.size());
  auto error = [&](const std::string& why) {
    std::vector<std::string> shape_strs;
    for (const Shape& s : shapes) shape_strs.push_back(s.str());
    return absl::InvalidArgumentError(absl::StrCat("equation '", subscripts.str(), "' with shapes ",
                                                   absl::StrJoin(shape_strs, " and "), ": ", why));
  };
  // Each operand's ellipsis dims, and their broadcast.
  std::vector<Shape> ellipsis(n);
  Shape broadcast;
  for (int i = 0; i < n; ++i) {
    const std::string& term = subscripts.inputs[i];
    const bool has_ellipsis = term.find(kEinsumEllipsis) != std::string::npos;
    const int named = static_cast<int>(term.size()) - (has_ellipsis ? 1 : 0);
    const int rank = shapes[i].rank();
    if (has_ellipsis ? rank < named : rank != named) {
      return error(absl::StrCat("the term '", TermString(term), "' names ", named,
                                " dims but operand ", i, " has rank ", rank));
    }
    const size_t at = term.find(kEinsumEllipsis);
    for (int d = 0; d < rank - named; ++d) ellipsis[i].push_back(shapes[i].dim(at + d));
    absl::StatusOr<Shape> joined = BroadcastShapes(broadcast, ellipsis[i]);
    if (!joined.ok()) {
      return error(absl::StrCat("the dims under '...' (", ellipsis[0].str(), " and ",
                                ellipsis[i].str(), ") do not broadcast"));
    }
    broadcast = *std::move(joined);
  }
  const int num_broadcast = broadcast.rank();
  if (num_broadcast > 0 && subscripts.output.find(kEinsumEllipsis) == std::string::npos) {
    return error(absl::StrCat("the operands have ", num_broadcast,
                              " dims under '...' but the output term '",
                              TermString(subscripts.output), "' has no '...'"));
  }
  EinsumDims dims;
  std::map<int, int64_t> size;  // label -> size (-1 unknown)
  std::map<int, int> first;     // label -> the operand it was first seen in
  for (int k = 0; k < num_broadcast; ++k) size[kEinsumEllipsisLabel + k] = broadcast.dim(k);
  for (int i = 0; i < n; ++i) {
    std::vector<int>& labels = dims.inputs.emplace_back();
    int axis = 0;
    for (char c : subscripts.inputs[i]) {
      if (c == kEinsumEllipsis) {
        const int count = ellipsis[i].rank();
        for (int k = num_broadcast - count; k < num_broadcast; ++k) {
          labels.push_back(kEinsumEllipsisLabel + k);
        }
        axis += count;
        continue;
      }
      const int64_t d = shapes[i].dim(axis++);
      labels.push_back(c);
      auto [it, inserted] = size.try_emplace(c, d);
      if (inserted) {
        first[c] = i;
      } else if (it->second == Shape::kUnknownDim) {
        it->second = d;
      } else if (d != Shape::kUnknownDim && d != it->second) {
        return error(absl::StrCat("label '", std::string(1, c), "' has size ", it->second,
                                  " in operand ", first[c], " but ", d, " in operand ", i,
                                  first[c] == i ? " (a diagonal needs equal sizes)" : ""));
      }
    }
  }
  for (char c : subscripts.output) {
    if (c == kEinsumEllipsis) {
      for (int k = 0; k < num_broadcast; ++k) dims.output.push_back(kEinsumEllipsisLabel + k);
    } else {
      dims.output.push_back(c);
    }
  }
  for (int label : dims.output) dims.output_shape.push_back(size[label]);
  return dims;
}

}  // namespace duet
