#include "core/error.h"

namespace duet {

Error::Error(absl::Status status)
    : status_(std::move(status)), message_(std::string(status_.message())) {}

}  // namespace duet
