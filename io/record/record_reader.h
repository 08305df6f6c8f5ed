// Reading TFRecord files sequentially, as tf.data.TFRecordDataset does (docs/records.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "io/record/compression.h"

namespace duet::io {

// Reads the records of a TFRecord file (the framing is in record_writer.h) one after another,
// checking both CRCs. The file is read in large chunks (inflated chunk by chunk when compressed),
// so memory stays bounded by the chunk size and the largest record, whatever the file's size.
//
// Errors are DataLoss and name the file and the byte offset of the bad record's header. For a
// ZLIB or GZIP file that offset is in the uncompressed stream (the message says so); a corrupt
// deflate stream is reported at its compressed offset. Note [Reading on after an error]: after
// a data-CRC mismatch the reader stands after that record and the next ReadRecord reads the
// following one; after a length-CRC mismatch or a truncated record the framing cannot be
// trusted, so every later ReadRecord reports the end (OutOfRange).
class RecordReader {
 public:
  // The file is read (and inflated) `chunk_bytes` at a time; tests and the fuzzer make that
  // small so that records straddle chunks.
  static constexpr size_t kDefaultChunkBytes = 256 << 10;
  static absl::StatusOr<std::unique_ptr<RecordReader>> Open(
      const std::string& path, Compression compression = Compression::kNone,
      size_t chunk_bytes = kDefaultChunkBytes);
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  // The next record's bytes; OutOfRange at the end of the file.
  absl::Status ReadRecord(std::string* record);
  // The same without a copy: `record` views the reader's buffer until the next call.
  absl::Status ReadRecord(absl::string_view* record);

  const std::string& path() const { return path_; }
  // The offset of the next record in the (uncompressed) stream.
  uint64_t offset() const { return offset_; }

 private:
  struct Inflater;
  RecordReader(std::string path, int fd, uint64_t file_size, size_t chunk_bytes,
               std::unique_ptr<Inflater> inflater);
  // Makes `n` bytes available at buffer_[pos_]; returns false when the stream ends first.
  absl::StatusOr<bool> Fill(size_t n);
  absl::StatusOr<size_t> ReadSome(char* out, size_t n);  // 0 at the end of the stream
  absl::StatusOr<size_t> ReadFile(char* out, size_t n);
  absl::StatusOr<size_t> Inflate(char* out, size_t n);
  // A DataLoss error about the record at offset_, and the reader stops for good.
  absl::Status Corrupt(absl::string_view what);
  std::string Where() const;

  std::string path_;
  int fd_;
  uint64_t file_size_;
  size_t chunk_bytes_;
  std::unique_ptr<Inflater> inflater_;  // null for an uncompressed file
  std::string buffer_;                  // bytes read ahead: [pos_, end_) not yet used
  size_t pos_ = 0;
  size_t end_ = 0;
  uint64_t offset_ = 0;   // stream offset of buffer_[pos_]
  bool stopped_ = false;  // after an error the framing cannot recover from
};

}  // namespace duet::io
