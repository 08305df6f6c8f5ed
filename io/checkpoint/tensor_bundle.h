// TensorFlow's TensorBundle (checkpoint V2) files: `<prefix>.index`, a LevelDB-format table of
// BundleEntryProtos, and `<prefix>.data-00000-of-00001`, the tensors' bytes. docs/checkpoints.md,
// "The TensorBundle format".
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/shape.h"
#include "core/tensor.h"

namespace duet::io {

// What an index entry says about a tensor.
struct BundleEntry {
  int proto_dtype;  // TensorFlow DataType number (DT_FLOAT = 1, DT_STRING = 7, ...)
  Shape shape;
};

// Writes one bundle: single-shard, little-endian, readable by TensorFlow (tf.train.load_checkpoint,
// tf.train.Checkpoint.restore). Errors throw duet::Error naming the file (and the key).
class BundleWriter {
 public:
  // Writes <prefix>.index and <prefix>.data-00000-of-00001. Nothing appears under those names
  // until finish(): the files are written as temporaries beside them, fsynced, then renamed
  // (data first, then index) and the directory fsynced. Creates the prefix's directory if missing.
  explicit BundleWriter(std::string prefix);
  ~BundleWriter();  // without finish(): removes the temporaries
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;

  // A dense tensor of a numeric dtype (any device: copied to the CPU if needed) or of kString
  // (TensorFlow's string layout, Note [String tensor layout]). Keys may come in any order; ""
  // (the header's key) and a key added before are InvalidArgument.
  void add(const std::string& key, const Tensor& value);
  // Writes the index and publishes both files; throws duet::Error on any I/O failure, naming the
  // file. Nothing may be added afterwards.
  void finish();

 private:
  class DataFile;
  void AddEntry(const std::string& key, int proto_dtype, const Shape& shape, uint64_t offset,
                uint64_t size, uint32_t crc);
  void AddStrings(const std::string& key, const Tensor& strings);
  void CheckKey(const std::string& key) const;

  std::string prefix_;
  std::string data_temp_, index_temp_;
  std::unique_ptr<DataFile> data_;
  std::map<std::string, std::string> entries_;  // key -> serialized BundleEntryProto
  bool finished_ = false;
};

// Reads a bundle written by TensorFlow or BundleWriter. The index is read whole at open; the data
// file stays open and tensors are read from it with pread, straight into the new tensor's memory.
// Every read checks the entry against the data file's size before allocating, and the crc32c.
class BundleReader {
 public:
  // Throws Error: NotFound for a missing index or data file; DataLoss for a truncated or corrupt
  // index; Unimplemented for a sharded (num_shards != 1) or big-endian bundle.
  explicit BundleReader(std::string prefix);
  ~BundleReader();
  BundleReader(const BundleReader&) = delete;
  BundleReader& operator=(const BundleReader&) = delete;

  const std::string& prefix() const { return prefix_; }
  std::vector<std::string> keys() const;  // sorted, without the header key ""
  bool contains(const std::string& key) const { return entries_.count(key) != 0; }
  // Throws Error naming the prefix and key: NotFound if absent, DataLoss for a malformed entry.
  BundleEntry entry(const std::string& key) const;
  // The tensor, numeric or kString. Checks that size is the bytes of dtype x shape (for strings:
  // the lengths' checksum and that they add up), that the bytes lie within the data file, and
  // their crc32c (DataLoss naming the key, the file and the offset).
  Tensor read(const std::string& key) const;

 private:
  struct Located;  // a parsed entry whose byte range was checked against the data file
  Located Locate(const std::string& key) const;
  Tensor ReadStrings(const std::string& key, const Located& e) const;

  std::string prefix_;
  std::string data_path_;
  int data_fd_ = -1;
  uint64_t data_size_ = 0;
  std::map<std::string, std::string> entries_;  // key -> serialized BundleEntryProto
};

}  // namespace duet::io
