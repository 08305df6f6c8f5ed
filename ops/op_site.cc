#include "ops/op_site.h"

#include "absl/strings/str_cat.h"

namespace duet {

std::string OpSite::str() const {
  absl::string_view file = location.file_name();
  return absl::StrCat(file, ":", location.line());
}

}  // namespace duet
