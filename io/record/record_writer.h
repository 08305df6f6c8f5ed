// Writing TFRecord files: each record framed as TensorFlow frames it (docs/data.md, "TFRecord").
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "io/record/compression.h"

namespace duet::io {

// A record is framed as
//   uint64 length (little-endian) | uint32 masked crc32c(length) | data | uint32 masked
//   crc32c(data)
// and the framed stream is optionally deflated (ZLIB or GZIP) as a whole. Writes are buffered;
// Flush() hands everything written so far to the OS, so that a reader sees whole records.
class RecordWriter {
 public:
  static absl::StatusOr<std::unique_ptr<RecordWriter>> Open(
      const std::string& path, Compression compression = Compression::kNone);
  ~RecordWriter();  // closes, ignoring errors: call Close() to see them
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  absl::Status Write(absl::string_view record);
  absl::Status Flush();
  // Finishes the compressed stream, writes the rest and closes the file (without fsync).
  absl::Status Close();

  const std::string& path() const { return path_; }

 private:
  struct Deflater;
  RecordWriter(std::string path, int fd, std::unique_ptr<Deflater> deflater);
  // Appends framed bytes to the buffer, compressing them first when the file is compressed.
  absl::Status Append(absl::string_view bytes);
  absl::Status Deflate(absl::string_view bytes, int flush_mode);
  absl::Status WriteBuffer();

  std::string path_;
  int fd_;
  std::unique_ptr<Deflater> deflater_;  // null for an uncompressed file
  std::string buffer_;                  // bytes waiting for the file
};

// The 12-byte header of a record of `length` bytes, and the 4-byte footer of its data.
std::string RecordHeader(uint64_t length);
std::string RecordFooter(absl::string_view data);

}  // namespace duet::io

namespace duet::data {

// A TFRecord file for writing, as tf.io.TFRecordWriter: `TFRecordWriter out("train.tfrecord");
// out.write(example.SerializeAsString());`. compression is "", "ZLIB" or "GZIP". Throws Error
// naming the file when it cannot be opened or written. The destructor closes the file.
class TFRecordWriter {
 public:
  explicit TFRecordWriter(const std::string& path, const std::string& compression = "");
  void write(absl::string_view record);
  void flush();
  void close();

 private:
  std::unique_ptr<io::RecordWriter> writer_;
};

}  // namespace duet::data
