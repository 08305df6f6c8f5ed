#include "io/file.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "core/error.h"

namespace duet::io {

absl::Status ErrnoError(int err, const std::string& what, const std::string& path) {
  const std::string message = absl::StrCat(what, " ", path, ": ", std::strerror(err));
  switch (err) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    case ENOSPC:
    case EDQUOT:
      return absl::ResourceExhaustedError(message);
    default:
      return absl::UnknownError(message);
  }
}

void WriteAll(int fd, const void* data, size_t n, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t written = ::write(fd, p, std::min(n, size_t{1} << 30));
    if (written < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrnoError(errno, "cannot write", path));
    }
    p += written;
    n -= static_cast<size_t>(written);
  }
}

void SyncAndClose(int fd, const std::string& path) {
  const bool synced = ::fsync(fd) == 0;
  const int sync_errno = errno;
  const bool closed = ::close(fd) == 0;
  if (!synced) throw Error(ErrnoError(sync_errno, "cannot fsync", path));
  if (!closed) throw Error(ErrnoError(errno, "cannot close", path));
}

void SyncDirectory(const std::string& directory) {
  const std::string dir = directory.empty() ? "." : directory;
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw Error(ErrnoError(errno, "cannot open directory", dir));
  SyncAndClose(fd, dir);
}

void WriteFileAtomically(const std::string& path, const std::string& contents) {
  const std::string temporary = absl::StrCat(path, ".tmp", ::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(ErrnoError(errno, "cannot create", temporary));
  try {
    WriteAll(fd, contents.data(), contents.size(), temporary);
  } catch (...) {
    ::close(fd);
    ::unlink(temporary.c_str());
    throw;
  }
  try {
    SyncAndClose(fd, temporary);
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temporary.c_str());
    throw Error(ErrnoError(err, absl::StrCat("cannot rename ", temporary, " to"), path));
  }
  SyncDirectory(std::filesystem::path(path).parent_path().string());
}

}  // namespace duet::io
