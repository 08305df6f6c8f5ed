#include "io/formats/npz.h"

#include <zip.h>

#include <memory>
#include <new>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/npy.h"

namespace duet::io {
namespace {

struct ArchiveCloser {
  void operator()(zip_t* archive) const { zip_discard(archive); }  // read-only: nothing to write
};
struct MemberCloser {
  void operator()(zip_file_t* member) const { zip_fclose(member); }
};

absl::Status ZipError(const std::string& path, const std::string& what, zip_error_t* error) {
  std::string message = absl::StrCat(path, ": ", what, ": ", zip_error_strerror(error));
  return zip_error_code_zip(error) == ZIP_ER_NOENT || zip_error_code_zip(error) == ZIP_ER_OPEN
             ? absl::NotFoundError(message)
             : absl::DataLossError(message);
}

// The bytes of member `index`, inflated; the checksum is checked by libzip at the end.
absl::StatusOr<std::string> ReadMember(zip_t* archive, zip_uint64_t index, const zip_stat_t& stat,
                                       const std::string& where) {
  std::unique_ptr<zip_file_t, MemberCloser> member(zip_fopen_index(archive, index, 0));
  if (member == nullptr) return ZipError(where, "cannot open", zip_get_error(archive));
  std::string bytes;
  try {
    bytes.resize(stat.size);  // the size the archive claims, which may be a lie
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat(where, ": claims ", stat.size, " bytes"));
  }
  size_t done = 0;
  while (done < bytes.size()) {
    zip_int64_t got = zip_fread(member.get(), bytes.data() + done, bytes.size() - done);
    if (got < 0) return ZipError(where, "cannot read", zip_file_get_error(member.get()));
    if (got == 0) return absl::DataLossError(absl::StrCat(where, ": truncated"));
    done += static_cast<size_t>(got);
  }
  return bytes;
}

}  // namespace

absl::StatusOr<std::map<std::string, Tensor>> ReadNpz(const std::string& path) {
  int code = 0;
  std::unique_ptr<zip_t, ArchiveCloser> archive(zip_open(path.c_str(), ZIP_RDONLY, &code));
  if (archive == nullptr) {
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    absl::Status status = ZipError(path, "cannot open .npz archive", &error);
    zip_error_fini(&error);
    return status;
  }
  std::map<std::string, Tensor> arrays;
  const zip_int64_t count = zip_get_num_entries(archive.get(), 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    zip_stat_t stat;
    if (zip_stat_index(archive.get(), i, 0, &stat) != 0 || (stat.valid & ZIP_STAT_SIZE) == 0) {
      return ZipError(path, "cannot read the member list", zip_get_error(archive.get()));
    }
    std::string name = stat.name;
    const std::string where = absl::StrCat(path, " member ", name);
    DUET_ASSIGN_OR_RETURN(std::string bytes, ReadMember(archive.get(), i, stat, where));
    absl::StatusOr<Tensor> array = DecodeNpy(bytes);
    if (!array.ok()) {
      return absl::Status(array.status().code(),
                          absl::StrCat(where, ": ", array.status().message()));
    }
    if (absl::EndsWith(name, ".npy")) name.resize(name.size() - 4);
    arrays.emplace(std::move(name), *std::move(array));
  }
  return arrays;
}

}  // namespace duet::io

namespace duet::data {

std::map<std::string, Tensor> load_npz(const std::string& path) {
  return ValueOrThrow(io::ReadNpz(path));
}

}  // namespace duet::data
