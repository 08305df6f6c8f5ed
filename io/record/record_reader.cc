#include "io/record/record_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/base/internal/endian.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "io/crc32c.h"
#include "io/file.h"

namespace duet::io {
namespace {

constexpr size_t kHeaderBytes = 12;  // uint64 length, uint32 masked crc of the length
constexpr size_t kFooterBytes = 4;   // uint32 masked crc of the data
// No record is this long; a longer length (with a good CRC) is corrupt, and the sum with the
// header and footer cannot overflow.
constexpr uint64_t kMaxRecordBytes = uint64_t{1} << 62;

}  // namespace

struct RecordReader::Inflater {
  z_stream stream{};
  std::string input;  // compressed bytes, a chunk at a time
  Compression compression = Compression::kZlib;
  bool finished = false;
  ~Inflater() { inflateEnd(&stream); }
};

absl::StatusOr<std::unique_ptr<RecordReader>> RecordReader::Open(const std::string& path,
                                                                 Compression compression,
                                                                 size_t chunk_bytes) {
  chunk_bytes = std::max<size_t>(chunk_bytes, 1);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(errno, "cannot open TFRecord file", path);
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    const int err = errno;
    ::close(fd);
    return ErrnoError(err, "cannot stat TFRecord file", path);
  }
  std::unique_ptr<Inflater> inflater;
  if (compression != Compression::kNone) {
    inflater = std::make_unique<Inflater>();
    inflater->compression = compression;
    inflater->input.resize(chunk_bytes);
    if (inflateInit2(&inflater->stream, ZlibWindowBits(compression)) != Z_OK) {
      ::close(fd);
      return absl::InternalError(absl::StrCat("zlib could not start a stream for ", path));
    }
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<RecordReader>(new RecordReader(
      path, fd, static_cast<uint64_t>(info.st_size), chunk_bytes, std::move(inflater)));
}

RecordReader::RecordReader(std::string path, int fd, uint64_t file_size, size_t chunk_bytes,
                           std::unique_ptr<Inflater> inflater)
    : path_(std::move(path)),
      fd_(fd),
      file_size_(file_size),
      chunk_bytes_(chunk_bytes),
      inflater_(std::move(inflater)) {}

RecordReader::~RecordReader() { ::close(fd_); }

absl::Status RecordReader::ReadRecord(std::string* record) {
  absl::string_view view;
  DUET_RETURN_IF_ERROR(ReadRecord(&view));
  record->assign(view.data(), view.size());
  return absl::OkStatus();
}

absl::Status RecordReader::ReadRecord(absl::string_view* record) {
  if (stopped_) return absl::OutOfRangeError(absl::StrCat("end of TFRecord file ", path_));
  DUET_ASSIGN_OR_RETURN(const bool have_header, Fill(kHeaderBytes));
  if (!have_header) {
    if (end_ == pos_) return absl::OutOfRangeError(absl::StrCat("end of TFRecord file ", path_));
    return Corrupt(absl::StrCat("truncated record header (", end_ - pos_, " of ", kHeaderBytes,
                                " bytes before the end)"));
  }
  const char* header = buffer_.data() + pos_;
  const uint64_t length = absl::little_endian::Load64(header);
  if (UnmaskCrc32c(absl::little_endian::Load32(header + 8)) != Crc32c(header, 8)) {
    return Corrupt("length CRC mismatch");
  }
  const uint64_t left = inflater_ == nullptr ? file_size_ - std::min(file_size_, offset_) : 0;
  if (inflater_ == nullptr && length > left - std::min(left, kHeaderBytes + kFooterBytes)) {
    return Corrupt(absl::StrCat("length ", length, " runs past the end of the file (",
                                left - std::min(left, kHeaderBytes), " bytes follow the header)"));
  }
  if (length > kMaxRecordBytes) return Corrupt(absl::StrCat("implausible length ", length));
  const size_t framed = kHeaderBytes + static_cast<size_t>(length) + kFooterBytes;
  DUET_ASSIGN_OR_RETURN(const bool have_record, Fill(framed));
  if (!have_record) {
    return Corrupt(absl::StrCat("truncated record: its length is ", length, " but only ",
                                end_ - pos_ - std::min(end_ - pos_, kHeaderBytes),
                                " bytes follow the header, footer included"));
  }
  const char* data = buffer_.data() + pos_ + kHeaderBytes;
  const uint32_t stored_crc = absl::little_endian::Load32(data + length);
  const uint64_t record_offset = offset_;
  pos_ += framed;
  offset_ += framed;
  if (UnmaskCrc32c(stored_crc) != Crc32c(data, length)) {
    // Note [Reading on after an error]: the framing was sound, so the next record is intact.
    return absl::DataLossError(absl::StrCat("data CRC mismatch in the record at byte offset ",
                                            record_offset, Where(), " of TFRecord file ", path_));
  }
  *record = absl::string_view(data, length);
  return absl::OkStatus();
}

std::string RecordReader::Where() const {
  return inflater_ == nullptr ? ""
                              : absl::StrCat(" (in the uncompressed stream of this ",
                                             CompressionName(inflater_->compression), " file)");
}

absl::Status RecordReader::Corrupt(absl::string_view what) {
  stopped_ = true;
  return absl::DataLossError(absl::StrCat(what, " in the record at byte offset ", offset_, Where(),
                                          " of TFRecord file ", path_));
}

absl::StatusOr<bool> RecordReader::Fill(size_t n) {
  while (end_ - pos_ < n) {
    if (pos_ > 0) {
      std::memmove(buffer_.data(), buffer_.data() + pos_, end_ - pos_);
      end_ -= pos_;
      pos_ = 0;
    }
    // Grow only when the buffer is full of real data: a corrupt length cannot make the reader
    // allocate more than twice what the file holds.
    if (end_ == buffer_.size()) buffer_.resize(std::max(chunk_bytes_, 2 * buffer_.size()));
    absl::StatusOr<size_t> got = ReadSome(buffer_.data() + end_, buffer_.size() - end_);
    if (!got.ok()) {
      stopped_ = true;
      return got.status();
    }
    if (*got == 0) return false;
    end_ += *got;
  }
  return true;
}

absl::StatusOr<size_t> RecordReader::ReadSome(char* out, size_t n) {
  return inflater_ == nullptr ? ReadFile(out, n) : Inflate(out, n);
}

absl::StatusOr<size_t> RecordReader::ReadFile(char* out, size_t n) {
  while (true) {
    const ssize_t got = ::read(fd_, out, n);
    if (got >= 0) return static_cast<size_t>(got);
    if (errno != EINTR) return ErrnoError(errno, "cannot read TFRecord file", path_);
  }
}

absl::StatusOr<size_t> RecordReader::Inflate(char* out, size_t n) {
  z_stream& stream = inflater_->stream;
  stream.next_out = reinterpret_cast<Bytef*>(out);
  stream.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
  const uInt room = stream.avail_out;
  while (stream.avail_out > 0 && !inflater_->finished) {
    if (stream.avail_in == 0) {
      std::string& input = inflater_->input;
      DUET_ASSIGN_OR_RETURN(const size_t got, ReadFile(input.data(), input.size()));
      if (got == 0) {
        if (stream.avail_out < room) break;  // hand out what we have; the next call reports this
        return absl::DataLossError(absl::StrCat(
            "the ", CompressionName(inflater_->compression), " stream of TFRecord file ", path_,
            " ends without its end marker after ", stream.total_in,
            " compressed bytes (the file is truncated, or was not closed)"));
      }
      stream.next_in = reinterpret_cast<Bytef*>(input.data());
      stream.avail_in = static_cast<uInt>(got);
    }
    const int rc = inflate(&stream, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      inflater_->finished = true;
    } else if (rc != Z_OK && !(rc == Z_BUF_ERROR && stream.avail_in == 0)) {
      return absl::DataLossError(absl::StrCat("corrupt ", CompressionName(inflater_->compression),
                                              " stream in TFRecord file ", path_,
                                              " at compressed byte offset ", stream.total_in, ": ",
                                              stream.msg != nullptr ? stream.msg : "zlib error"));
    }
  }
  return room - stream.avail_out;
}

}  // namespace duet::io
