#include "io/checkpoint/checkpoint_state.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "google/protobuf/text_format.h"

namespace duet::checkpoint_internal {
namespace {

namespace fs = std::filesystem;

constexpr char kStateFile[] = "checkpoint";

Error IoError(const std::string& what, const std::string& path) {
  return Error(absl::InternalError(absl::StrCat(what, " '", path, "': ", std::strerror(errno))));
}

void SyncDirectory(const std::string& directory) {
  const int fd = ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) throw IoError("cannot open directory", directory);
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void WriteFileAtomically(const std::string& path, const std::string& contents) {
  const std::string temporary = absl::StrCat(path, ".tmp", ::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw IoError("cannot create", temporary);
  size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      ::unlink(temporary.c_str());
      throw IoError("cannot write", temporary);
    }
    written += n;
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(temporary.c_str());
    throw IoError("cannot sync", temporary);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    ::unlink(temporary.c_str());
    throw IoError("cannot rename a file to", path);
  }
  SyncDirectory(fs::path(path).parent_path().string());
}

std::string RelativeTo(const std::string& directory, const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  if (fs::path(directory).lexically_normal() == parent.lexically_normal()) {
    return fs::path(path).filename().string();
  }
  return path;
}

std::string ResolveIn(const std::string& directory, const std::string& path) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(directory) / path).string();
}

tensorflow::CheckpointState ReadCheckpointState(const std::string& directory) {
  tensorflow::CheckpointState state;
  const std::string file = (fs::path(directory) / kStateFile).string();
  std::ifstream in(file);
  if (!in) return state;
  std::stringstream text;
  text << in.rdbuf();
  if (!google::protobuf::TextFormat::ParseFromString(text.str(), &state)) {
    throw Error(absl::DataLossError(
        absl::StrCat("'", file,
                     "' is not a CheckpointState in text format: the directory's checkpoint list "
                     "is corrupt (delete the file to start over, or fix it by hand)")));
  }
  return state;
}

void WriteCheckpointState(const std::string& directory, const tensorflow::CheckpointState& state) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(state, &text);
  WriteFileAtomically((fs::path(directory) / kStateFile).string(), text);
}

}  // namespace duet::checkpoint_internal
