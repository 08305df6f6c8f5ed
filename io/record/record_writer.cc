#include "io/record/record_writer.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "absl/base/internal/endian.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "io/crc32c.h"
#include "io/file.h"

namespace duet::io {
namespace {

// Buffered bytes are written once they pass this size: large writes, bounded memory.
constexpr size_t kBufferBytes = 256 << 10;

}  // namespace

struct RecordWriter::Deflater {
  z_stream stream{};
  ~Deflater() { deflateEnd(&stream); }
};

std::string RecordHeader(uint64_t length) {
  char header[12];
  absl::little_endian::Store64(header, length);
  absl::little_endian::Store32(header + 8, MaskCrc32c(Crc32c(header, 8)));
  return std::string(header, sizeof(header));
}

std::string RecordFooter(absl::string_view data) {
  char footer[4];
  absl::little_endian::Store32(footer, MaskCrc32c(Crc32c(data.data(), data.size())));
  return std::string(footer, sizeof(footer));
}

absl::StatusOr<std::unique_ptr<RecordWriter>> RecordWriter::Open(const std::string& path,
                                                                 Compression compression) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError(errno, "cannot create TFRecord file", path);
  std::unique_ptr<Deflater> deflater;
  if (compression != Compression::kNone) {
    deflater = std::make_unique<Deflater>();
    if (deflateInit2(&deflater->stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED,
                     ZlibWindowBits(compression), /*memLevel=*/9, Z_DEFAULT_STRATEGY) != Z_OK) {
      ::close(fd);
      return absl::InternalError(absl::StrCat("zlib could not start a stream for ", path));
    }
  }
  return std::unique_ptr<RecordWriter>(new RecordWriter(path, fd, std::move(deflater)));
}

RecordWriter::RecordWriter(std::string path, int fd, std::unique_ptr<Deflater> deflater)
    : path_(std::move(path)), fd_(fd), deflater_(std::move(deflater)) {}

RecordWriter::~RecordWriter() { Close().IgnoreError(); }

absl::Status RecordWriter::Write(absl::string_view record) {
  if (fd_ < 0) return absl::FailedPreconditionError(absl::StrCat(path_, " is closed"));
  DUET_RETURN_IF_ERROR(Append(RecordHeader(record.size())));
  DUET_RETURN_IF_ERROR(Append(record));
  DUET_RETURN_IF_ERROR(Append(RecordFooter(record)));
  return buffer_.size() >= kBufferBytes ? WriteBuffer() : absl::OkStatus();
}

absl::Status RecordWriter::Flush() {
  if (fd_ < 0) return absl::FailedPreconditionError(absl::StrCat(path_, " is closed"));
  // Z_SYNC_FLUSH ends the deflate block, so a reader can inflate everything written so far.
  if (deflater_ != nullptr) DUET_RETURN_IF_ERROR(Deflate({}, Z_SYNC_FLUSH));
  return WriteBuffer();
}

absl::Status RecordWriter::Close() {
  if (fd_ < 0) return absl::OkStatus();
  absl::Status status = deflater_ != nullptr ? Deflate({}, Z_FINISH) : absl::OkStatus();
  if (status.ok()) status = WriteBuffer();
  if (::close(fd_) != 0 && status.ok()) status = ErrnoError(errno, "cannot close", path_);
  fd_ = -1;
  deflater_.reset();
  return status;
}

absl::Status RecordWriter::Append(absl::string_view bytes) {
  if (deflater_ != nullptr) return Deflate(bytes, Z_NO_FLUSH);
  buffer_.append(bytes.data(), bytes.size());
  return absl::OkStatus();
}

absl::Status RecordWriter::Deflate(absl::string_view bytes, int flush_mode) {
  z_stream& stream = deflater_->stream;
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  // Deflate into the buffer's spare room until zlib has taken all input and has nothing left.
  while (true) {
    size_t used = buffer_.size();
    size_t room = std::max<size_t>(bytes.size() / 2 + 64, 16 << 10);
    buffer_.resize(used + room);
    stream.next_out = reinterpret_cast<Bytef*>(buffer_.data() + used);
    stream.avail_out = static_cast<uInt>(room);
    int rc = deflate(&stream, flush_mode);
    buffer_.resize(used + room - stream.avail_out);
    if (rc == Z_STREAM_ERROR) {
      return absl::InternalError(absl::StrCat("zlib failed compressing ", path_));
    }
    bool finished = flush_mode == Z_FINISH ? rc == Z_STREAM_END : stream.avail_out != 0;
    if (stream.avail_in == 0 && finished) return absl::OkStatus();
  }
}

absl::Status RecordWriter::WriteBuffer() {
  try {
    WriteAll(fd_, buffer_.data(), buffer_.size(), path_);
  } catch (const Error& e) {
    return e.status();
  }
  buffer_.clear();
  return absl::OkStatus();
}

}  // namespace duet::io

namespace duet::data {

TFRecordWriter::TFRecordWriter(const std::string& path, const std::string& compression)
    : writer_(ValueOrThrow(
          io::RecordWriter::Open(path, ValueOrThrow(io::ParseCompression(compression))))) {}

void TFRecordWriter::write(absl::string_view record) {
  absl::Status status = writer_->Write(record);
  if (!status.ok()) throw Error(status);
}

void TFRecordWriter::flush() {
  absl::Status status = writer_->Flush();
  if (!status.ok()) throw Error(status);
}

void TFRecordWriter::close() {
  absl::Status status = writer_->Close();
  if (!status.ok()) throw Error(status);
}

}  // namespace duet::data
