// POSIX file writing with durable results, shared by the formats under io/: every error an
// Error naming the file, every write retried on EINTR, fsync before a file counts as written.
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/status.h"

namespace duet::io {

// An errno from a call on `path` as a Status naming both (NotFound, PermissionDenied,
// ResourceExhausted for a full disk, Unknown otherwise).
absl::Status ErrnoError(int err, const std::string& what, const std::string& path);

// Writes all `n` bytes to `fd`; throws Error naming `path`.
void WriteAll(int fd, const void* data, size_t n, const std::string& path);
// fsyncs and closes `fd` (closing it even when the fsync fails); throws Error naming `path`.
void SyncAndClose(int fd, const std::string& path);
// fsyncs `directory` ("" is the working directory), so that renames in it are durable.
void SyncDirectory(const std::string& directory);

// Writes `contents` to `path` atomically: a temporary beside it, fsynced, renamed over it, the
// directory fsynced. Readers see the old file or the new one, even if the process dies.
void WriteFileAtomically(const std::string& path, const std::string& contents);

}  // namespace duet::io
