// duet::Error: the exception the public eager surface throws; it carries an absl::Status.
#pragma once

#include <exception>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace duet {

// Thrown by op functions, operators and other public calls. what() is the status message, which
// names the op, its input dtypes and shapes (and, for graph ops, the user's source line).
class Error : public std::exception {
 public:
  explicit Error(absl::Status status);
  const absl::Status& status() const { return status_; }
  absl::StatusCode code() const { return status_.code(); }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  absl::Status status_;
  std::string message_;
};

// Returns the value, or throws Error with the status.
template <typename T>
T ValueOrThrow(absl::StatusOr<T> value) {
  if (!value.ok()) throw Error(value.status());
  return *std::move(value);
}

}  // namespace duet

// Returns from the enclosing function when `expr` (an absl::Status) is not OK.
#define DUET_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::absl::Status duet_status_ = (expr);        \
    if (!duet_status_.ok()) return duet_status_; \
  } while (0)

#define DUET_CONCAT_INNER_(a, b) a##b
#define DUET_CONCAT_(a, b) DUET_CONCAT_INNER_(a, b)

// `DUET_ASSIGN_OR_RETURN(auto x, StatusOrExpr());` assigns the value or returns the status.
#define DUET_ASSIGN_OR_RETURN(lhs, expr) \
  DUET_ASSIGN_OR_RETURN_IMPL_(DUET_CONCAT_(duet_statusor_, __LINE__), lhs, expr)
#define DUET_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = *std::move(tmp)
