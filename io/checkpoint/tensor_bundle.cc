#include "io/checkpoint/tensor_bundle.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/tensor_proto.h"
#include "io/crc32c.h"
#include "io/file.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/table.h"
#include "leveldb/table_builder.h"
#include "proto/tensor_bundle.pb.h"

namespace duet::io {
namespace {

constexpr const char* kDataSuffix = ".data-00000-of-00001";
constexpr const char* kIndexSuffix = ".index";
// Note [Chunked crc]: tensor bytes are checksummed and written (or read and checksummed) in
// chunks small enough to stay in cache between the two passes, so each byte comes from memory
// once.
constexpr size_t kChunkBytes = size_t{4} << 20;
constexpr size_t kBufferBytes = size_t{8} << 20;  // the data file's write buffer (TensorFlow's)
// TensorFlow's table::Options block size for the index (LevelDB's default is 4 KiB).
constexpr size_t kIndexBlockBytes = 262144;
constexpr int kBundleVersion = 1;  // TensorFlow's kTensorBundleVersion

[[noreturn]] void Throw(absl::Status status) { throw Error(std::move(status)); }

void PutVarint64(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// Parses a varint64 at *pos; false when it runs past `end` or past 10 bytes.
bool GetVarint64(const std::string& buf, size_t end, size_t* pos, uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && *pos < end; shift += 7) {
    const uint64_t byte = static_cast<uint8_t>(buf[(*pos)++]);
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

void PutFixed32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

uint32_t GetFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{static_cast<uint8_t>(p[i])} << (8 * i);
  return v;
}

// The TableBuilder writes the index into memory; the writer then writes it out with its own
// error handling (the index is small).
class StringWritableFile : public leveldb::WritableFile {
 public:
  leveldb::Status Append(const leveldb::Slice& data) override {
    contents.append(data.data(), data.size());
    return leveldb::Status::OK();
  }
  leveldb::Status Close() override { return leveldb::Status::OK(); }
  leveldb::Status Flush() override { return leveldb::Status::OK(); }
  leveldb::Status Sync() override { return leveldb::Status::OK(); }
  std::string contents;
};

// The index file, read whole, for leveldb::Table.
class StringRandomAccessFile : public leveldb::RandomAccessFile {
 public:
  explicit StringRandomAccessFile(const std::string& contents) : contents_(contents) {}
  leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result,
                       char* /*scratch*/) const override {
    if (offset > contents_.size()) {
      *result = leveldb::Slice();
      return leveldb::Status::IOError("read past the end of the index");
    }
    *result =
        leveldb::Slice(contents_.data() + offset, std::min<uint64_t>(n, contents_.size() - offset));
    return leveldb::Status::OK();
  }

 private:
  const std::string& contents_;
};

std::string RandomSuffix() {
  std::random_device rd;
  return absl::StrCat(".tempstate", (uint64_t{rd()} << 32) | rd());
}

std::string Dirname(const std::string& prefix) {
  return std::filesystem::path(prefix).parent_path().string();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// BundleWriter

// The data file being written: a write buffer for small tensors; large ones go straight from
// the tensor's memory to write(2).
class BundleWriter::DataFile {
 public:
  explicit DataFile(std::string path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) Throw(ErrnoError(errno, "cannot create", path_));
  }
  ~DataFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

  void Append(const void* data, size_t n) {
    CheckUsable();
    if (n == 0) return;
    failed_ = true;  // until the bytes are in: offsets after a failed write would be wrong
    if (n >= kBufferBytes / 2) {
      Flush();  // the buffered bytes come first
      WriteAll(fd_, data, n, path_);
    } else {
      if (buffer_.size() + n > kBufferBytes) Flush();
      if (buffer_.capacity() < kBufferBytes) buffer_.reserve(kBufferBytes);
      buffer_.append(static_cast<const char*>(data), n);
    }
    size_ += n;
    failed_ = false;
  }
  // Appends and returns `crc` extended over the bytes (Note [Chunked crc]).
  uint32_t AppendWithCrc(uint32_t crc, const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
      const size_t chunk = std::min(n, kChunkBytes);
      crc = Crc32cExtend(crc, p, chunk);
      Append(p, chunk);
      p += chunk;
      n -= chunk;
    }
    return crc;
  }
  void Close() {
    CheckUsable();
    failed_ = true;
    Flush();
    const int fd = fd_;
    fd_ = -1;
    SyncAndClose(fd, path_);
    failed_ = false;
  }

 private:
  void CheckUsable() const {
    if (failed_) {
      Throw(absl::FailedPreconditionError(
          absl::StrCat("an earlier write to ", path_, " failed: the bundle cannot be finished")));
    }
  }
  void Flush() {
    WriteAll(fd_, buffer_.data(), buffer_.size(), path_);
    buffer_.clear();
  }

  std::string path_;
  int fd_ = -1;
  std::string buffer_;
  uint64_t size_ = 0;
  bool failed_ = false;
};

BundleWriter::BundleWriter(std::string prefix) : prefix_(std::move(prefix)) {
  if (prefix_.empty()) Throw(absl::InvalidArgumentError("checkpoint prefix is empty"));
  const std::string dir = Dirname(prefix_);
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      Throw(ErrnoError(ec.value(),
                       absl::StrCat("checkpoint '", prefix_, "': cannot create directory"), dir));
    }
  }
  data_temp_ = absl::StrCat(prefix_, kDataSuffix, RandomSuffix());
  index_temp_ = absl::StrCat(prefix_, kIndexSuffix, RandomSuffix());
  data_ = std::make_unique<DataFile>(data_temp_);
}

BundleWriter::~BundleWriter() {
  if (finished_) return;
  data_.reset();  // closes the descriptor
  ::unlink(data_temp_.c_str());
  ::unlink(index_temp_.c_str());
}

void BundleWriter::CheckKey(const std::string& key) const {
  if (finished_) {
    Throw(absl::FailedPreconditionError(
        absl::StrCat("checkpoint '", prefix_, "': tensor '", key, "' added after finish()")));
  }
  if (key.empty()) {
    Throw(absl::InvalidArgumentError(absl::StrCat(
        "checkpoint '", prefix_, "': the empty key is reserved for the bundle's header")));
  }
  if (entries_.count(key) != 0) {
    Throw(absl::InvalidArgumentError(
        absl::StrCat("checkpoint '", prefix_, "': tensor '", key, "' added twice")));
  }
}

void BundleWriter::AddEntry(const std::string& key, int proto_dtype, const Shape& shape,
                            uint64_t offset, uint64_t size, uint32_t crc) {
  tensorflow::BundleEntryProto entry;
  entry.set_dtype(static_cast<tensorflow::DataType>(proto_dtype));
  ShapeToProto(shape, entry.mutable_shape());
  entry.set_shard_id(0);
  entry.set_offset(static_cast<int64_t>(offset));
  entry.set_size(static_cast<int64_t>(size));
  entry.set_crc32c(MaskCrc32c(crc));
  entries_[key] = entry.SerializeAsString();
}

void BundleWriter::add(const std::string& key, const Tensor& value) {
  CheckKey(key);
  const auto where = [&] {
    return absl::StrCat("checkpoint '", prefix_, "': tensor '", key, "': ");
  };
  if (!value.defined() || !value.has_value()) {
    if (value.defined() && value.num_elements() == 0 && !IsObjectDType(value.dtype()) &&
        !value.impl()->symbolic) {
      // An empty eager tensor may have no memory at all.
    } else {
      Throw(absl::InvalidArgumentError(
          absl::StrCat(where(), "has no value (an undefined or symbolic tensor)")));
    }
  }
  if (IsObjectDType(value.dtype())) {
    Throw(absl::InvalidArgumentError(absl::StrCat(where(), "a ", DTypeName(value.dtype()),
                                                  " tensor holds an object, not values")));
  }
  if (!value.shape().is_fully_defined()) {
    Throw(absl::InvalidArgumentError(
        absl::StrCat(where(), "shape ", value.shape().str(), " is not fully defined")));
  }
  if (value.dtype() == kString) return AddStrings(key, value);
  const Tensor cpu = value.device().is_host() || value.num_elements() == 0 ? value : value.cpu();
  const uint64_t offset = data_->size();
  const uint32_t crc = data_->AppendWithCrc(0, cpu.raw_data(), cpu.nbytes());
  AddEntry(key, ToProtoDataType(value.dtype()), value.shape(), offset, data_->size() - offset, crc);
}

void BundleWriter::AddStrings(const std::string& key, const Tensor& strings) {
  const absl::Span<const std::string> values(
      strings.num_elements() == 0 ? nullptr : strings.data<std::string>(),
      static_cast<size_t>(strings.num_elements()));
  // Note [String tensor layout]: TensorFlow writes the lengths as varint64s, then the masked
  // crc32c of the lengths, each taken as a little-endian uint32 (uint64 past 4 GiB) rather than
  // as its varint bytes, then the strings' bytes. The entry's crc32c continues that crc over the
  // 4 checksum bytes and the strings (not over the varint bytes).
  std::string header;
  uint32_t crc = 0;
  for (const std::string& s : values) {
    const uint64_t length = s.size();
    PutVarint64(&header, length);
    char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(length >> (8 * i));
    crc = Crc32cExtend(crc, bytes, length <= UINT32_MAX ? 4 : 8);
  }
  const size_t checksum_at = header.size();
  PutFixed32(&header, MaskCrc32c(crc));
  crc = Crc32cExtend(crc, header.data() + checksum_at, 4);
  const uint64_t offset = data_->size();
  data_->Append(header.data(), header.size());
  for (const std::string& s : values) crc = data_->AppendWithCrc(crc, s.data(), s.size());
  AddEntry(key, ToProtoDataType(kString), strings.shape(), offset, data_->size() - offset, crc);
}

void BundleWriter::finish() {
  if (finished_) {
    Throw(absl::FailedPreconditionError(
        absl::StrCat("checkpoint '", prefix_, "': finish() called twice")));
  }
  data_->Close();

  tensorflow::BundleHeaderProto header;
  header.set_num_shards(1);
  header.set_endianness(tensorflow::BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(kBundleVersion);
  StringWritableFile index;
  {
    leveldb::Options options;
    options.compression = leveldb::kNoCompression;
    options.block_size = kIndexBlockBytes;
    leveldb::TableBuilder builder(options, &index);
    builder.Add("", header.SerializeAsString());
    for (const auto& [key, entry] : entries_) builder.Add(key, entry);
    const leveldb::Status status = builder.Finish();
    if (!status.ok()) {
      Throw(absl::InternalError(absl::StrCat("checkpoint '", prefix_, "': building the index ",
                                             index_temp_, ": ", status.ToString())));
    }
  }
  const int fd = ::open(index_temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) Throw(ErrnoError(errno, "cannot create", index_temp_));
  try {
    WriteAll(fd, index.contents.data(), index.contents.size(), index_temp_);
  } catch (...) {
    ::close(fd);
    throw;
  }
  SyncAndClose(fd, index_temp_);

  const std::string data_path = absl::StrCat(prefix_, kDataSuffix);
  const std::string index_path = absl::StrCat(prefix_, kIndexSuffix);
  if (::rename(data_temp_.c_str(), data_path.c_str()) != 0) {
    Throw(ErrnoError(errno, absl::StrCat("cannot rename ", data_temp_, " to"), data_path));
  }
  if (::rename(index_temp_.c_str(), index_path.c_str()) != 0) {
    Throw(ErrnoError(errno, absl::StrCat("cannot rename ", index_temp_, " to"), index_path));
  }
  finished_ = true;
  SyncDirectory(Dirname(prefix_));  // the renames are durable once the directory is
}

// ---------------------------------------------------------------------------------------------
// BundleReader

struct BundleReader::Located {
  int proto_dtype;
  Shape shape;
  int64_t num_elements;
  uint64_t offset, size;
  uint32_t crc;  // unmasked
};

namespace {

std::string Where(const std::string& prefix, const std::string& key) {
  return absl::StrCat("checkpoint '", prefix, "': tensor '", key, "': ");
}

// Reads n bytes at `offset`; a short read (the file shrank) is DataLoss.
void PreadAll(int fd, void* data, size_t n, uint64_t offset, const std::string& path) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t got = ::pread(fd, p, std::min(n, size_t{1} << 30), static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      Throw(ErrnoError(errno, "cannot read", path));
    }
    if (got == 0) {
      Throw(absl::DataLossError(
          absl::StrCat("unexpected end of file ", path, " at offset ", offset)));
    }
    p += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
}

absl::Status IndexError(const std::string& prefix, const std::string& path,
                        const std::string& detail) {
  return absl::DataLossError(absl::StrCat("checkpoint '", prefix, "': index file ", path, " ",
                                          detail, ": the file is truncated or corrupt"));
}

// Note [Checking the index table before LevelDB reads it]: LevelDB allocates a block's size, as
// a block handle states it, before reading the block, and decompresses blocks marked compressed;
// a corrupt or crafted index could make it allocate terabytes. So before leveldb::Table::Open sees
// the index, every block handle is checked to lie inside the file and every block to be stored
// uncompressed: the footer's two handles (metaindex block, index block), then each data block
// handle in the index block, parsed as LevelDB parses it (entries from the block's start; each
// restart point must be an entry's start, so that LevelDB's parse from any of them agrees). The
// metaindex block, which LevelDB reads only for filters (bundles have none), and the footer's
// padding are checked here too, so that no byte of the index goes unchecked. Returns what is
// wrong, or "" for a sound layout.
std::string CheckIndexLayout(const std::string& index) {
  constexpr size_t kFooterBytes = 48, kTrailerBytes = 5;  // trailer: type byte, masked crc32c
  if (index.size() < kFooterBytes) return "is shorter than a table footer";
  const size_t footer = index.size() - kFooterBytes;
  // A block [offset, offset + size) and its trailer inside the file before the footer, stored
  // uncompressed (type 0).
  const auto block_ok = [&](uint64_t offset, uint64_t size) {
    return offset <= footer && size <= footer - offset && footer - offset - size >= kTrailerBytes &&
           index[offset + size] == 0;
  };
  const auto crc_ok = [&](uint64_t offset, uint64_t size) {
    const char* block = index.data() + offset;
    return Crc32c(block, size + 1) == UnmaskCrc32c(GetFixed32(block + size + 1));
  };
  size_t pos = footer;
  uint64_t meta_offset = 0, meta_size = 0, index_offset = 0, index_size = 0;
  if (!GetVarint64(index, index.size(), &pos, &meta_offset) ||
      !GetVarint64(index, index.size(), &pos, &meta_size) ||
      !GetVarint64(index, index.size(), &pos, &index_offset) ||
      !GetVarint64(index, index.size(), &pos, &index_size)) {
    return "has a malformed footer";
  }
  for (size_t i = pos; i < index.size() - 8; ++i) {
    if (index[i] != 0) return "has a malformed footer";  // the padding before the magic number
  }
  if (!block_ok(meta_offset, meta_size) || !crc_ok(meta_offset, meta_size)) {
    return "has a corrupt metaindex block";
  }
  if (!block_ok(index_offset, index_size) || !crc_ok(index_offset, index_size) || index_size < 4) {
    return "has a corrupt block index";
  }
  // The index block: entries (varint32 shared key bytes, non-shared key bytes, value bytes; the
  // key's bytes; the value, a block handle), then the restart offsets, then their count.
  const size_t begin = index_offset, end = index_offset + index_size;
  const uint32_t restarts = GetFixed32(index.data() + end - 4);
  if (restarts > (index_size - 4) / 4) return "has a corrupt block index";
  const size_t entries_end = end - 4 - size_t{4} * restarts;
  std::vector<uint32_t> starts;
  for (size_t p = begin; p < entries_end;) {
    starts.push_back(static_cast<uint32_t>(p - begin));
    uint64_t shared = 0, non_shared = 0, value_size = 0;
    if (!GetVarint64(index, entries_end, &p, &shared) ||
        !GetVarint64(index, entries_end, &p, &non_shared) ||
        !GetVarint64(index, entries_end, &p, &value_size) || non_shared > entries_end - p ||
        value_size > entries_end - p - non_shared || shared > UINT32_MAX) {
      return "has a corrupt block index";
    }
    p += non_shared;
    const size_t value_end = p + value_size;
    uint64_t offset = 0, size = 0;
    if (!GetVarint64(index, value_end, &p, &offset) || !GetVarint64(index, value_end, &p, &size) ||
        !block_ok(offset, size)) {
      return "has a block handle outside the file or a compressed block";
    }
    p = value_end;
  }
  for (uint32_t i = 0; i < restarts; ++i) {
    const uint32_t restart = GetFixed32(index.data() + entries_end + size_t{4} * i);
    if (!std::binary_search(starts.begin(), starts.end(), restart)) {
      return "has a corrupt block index";
    }
  }
  return "";
}

}  // namespace

BundleReader::BundleReader(std::string prefix) : prefix_(std::move(prefix)) {
  const std::string index_path = absl::StrCat(prefix_, kIndexSuffix);
  data_path_ = absl::StrCat(prefix_, kDataSuffix);

  std::string contents;
  {
    const int fd = ::open(index_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      Throw(ErrnoError(errno, absl::StrCat("checkpoint '", prefix_, "': cannot open index file"),
                       index_path));
    }
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      const int err = errno;
      ::close(fd);
      Throw(ErrnoError(err, "cannot stat", index_path));
    }
    try {
      contents.resize(static_cast<size_t>(st.st_size));
      PreadAll(fd, contents.data(), contents.size(), 0, index_path);
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
  }

  {
    StringRandomAccessFile file(contents);
    leveldb::Options options;
    options.paranoid_checks = true;  // Table::Open verifies the index block's checksum
    leveldb::Table* raw_table = nullptr;
    // Note [Checking the index table before LevelDB reads it].
    const std::string layout_error = CheckIndexLayout(contents);
    if (!layout_error.empty()) Throw(IndexError(prefix_, index_path, layout_error));
    const leveldb::Status opened =
        leveldb::Table::Open(options, &file, contents.size(), &raw_table);
    if (!opened.ok()) Throw(IndexError(prefix_, index_path, opened.ToString()));
    std::unique_ptr<leveldb::Table> table(raw_table);
    leveldb::ReadOptions read_options;
    read_options.verify_checksums = true;
    read_options.fill_cache = false;
    std::unique_ptr<leveldb::Iterator> it(table->NewIterator(read_options));
    it->SeekToFirst();
    if (!it->Valid() || !it->key().empty()) {
      Throw(IndexError(prefix_, index_path,
                       it->status().ok() ? "has no header entry" : it->status().ToString()));
    }
    tensorflow::BundleHeaderProto header;
    if (!header.ParseFromArray(it->value().data(), static_cast<int>(it->value().size()))) {
      Throw(IndexError(prefix_, index_path, "has a malformed header"));
    }
    if (header.num_shards() != 1) {
      Throw(absl::UnimplementedError(
          absl::StrCat("checkpoint '", prefix_, "': bundles of ", header.num_shards(),
                       " data files (num_shards) are not supported, only of 1")));
    }
    if (header.endianness() != tensorflow::BundleHeaderProto::LITTLE) {
      Throw(absl::UnimplementedError(
          absl::StrCat("checkpoint '", prefix_, "': big-endian bundles are not supported")));
    }
    const auto& version = header.version();
    if (version.min_consumer() > kBundleVersion ||
        std::find(version.bad_consumers().begin(), version.bad_consumers().end(), kBundleVersion) !=
            version.bad_consumers().end()) {
      Throw(absl::UnimplementedError(absl::StrCat(
          "checkpoint '", prefix_, "': written by a newer TensorBundle version (producer ",
          version.producer(), ", min_consumer ", version.min_consumer(), "); duet reads version ",
          kBundleVersion)));
    }
    for (it->Next(); it->Valid(); it->Next()) {
      entries_.emplace(it->key().ToString(), it->value().ToString());
    }
    if (!it->status().ok()) Throw(IndexError(prefix_, index_path, it->status().ToString()));
  }

  data_fd_ = ::open(data_path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (data_fd_ < 0) {
    Throw(ErrnoError(errno, absl::StrCat("checkpoint '", prefix_, "': cannot open data file"),
                     data_path_));
  }
  struct stat st;
  if (::fstat(data_fd_, &st) != 0) {
    const int err = errno;
    ::close(data_fd_);
    Throw(ErrnoError(err, "cannot stat", data_path_));
  }
  data_size_ = static_cast<uint64_t>(st.st_size);
}

BundleReader::~BundleReader() {
  if (data_fd_ >= 0) ::close(data_fd_);
}

std::vector<std::string> BundleReader::keys() const {
  std::vector<std::string> keys;
  keys.reserve(entries_.size());
  for (const auto& [key, entry] : entries_) keys.push_back(key);
  return keys;
}

BundleEntry BundleReader::entry(const std::string& key) const {
  Located located = Locate(key);
  return BundleEntry{located.proto_dtype, std::move(located.shape)};
}

BundleReader::Located BundleReader::Locate(const std::string& key) const {
  const auto it = entries_.find(key);
  if (it == entries_.end()) {
    Throw(absl::NotFoundError(absl::StrCat(Where(prefix_, key), "not in the checkpoint")));
  }
  const auto corrupt = [&](const std::string& detail) {
    Throw(absl::DataLossError(absl::StrCat(Where(prefix_, key), detail, " (index file ", prefix_,
                                           kIndexSuffix, "): the file is corrupt")));
  };
  tensorflow::BundleEntryProto proto;
  if (!proto.ParseFromString(it->second)) corrupt("malformed index entry");
  if (proto.slices_size() > 0) {
    Throw(absl::UnimplementedError(
        absl::StrCat(Where(prefix_, key), "partitioned (sliced) tensors are not supported")));
  }
  if (proto.shard_id() != 0) {
    corrupt(absl::StrCat("entry names data file ", proto.shard_id(), " of a 1-file bundle"));
  }
  absl::StatusOr<Shape> shape = ShapeFromProto(proto.shape());
  if (!shape.ok()) corrupt(absl::StrCat("bad shape: ", shape.status().message()));
  if (!shape->is_fully_defined()) corrupt(absl::StrCat("shape ", shape->str(), " is not known"));
  int64_t n = 1;
  for (const int64_t d : shape->dims()) {
    if (d != 0 && n > (int64_t{1} << 62) / d) {
      corrupt(absl::StrCat("shape ", shape->str(), " is too large"));
    }
    n *= d;
  }
  if (proto.offset() < 0 || proto.size() < 0) {
    corrupt(absl::StrCat("negative offset ", proto.offset(), " or size ", proto.size()));
  }
  Located located{static_cast<int>(proto.dtype()),
                  *std::move(shape),
                  n,
                  static_cast<uint64_t>(proto.offset()),
                  static_cast<uint64_t>(proto.size()),
                  UnmaskCrc32c(proto.crc32c())};
  return located;
}

Tensor BundleReader::read(const std::string& key) const {
  const Located e = Locate(key);
  if (e.proto_dtype == ToProtoDataType(kString)) return ReadStrings(key, e);
  absl::StatusOr<DType> dtype = FromProtoDataType(e.proto_dtype);
  if (!dtype.ok() || IsObjectDType(*dtype)) {
    Throw(absl::UnimplementedError(absl::StrCat(Where(prefix_, key), "TensorFlow DataType ",
                                                e.proto_dtype, " is not supported")));
  }
  const uint64_t bytes = static_cast<uint64_t>(e.num_elements) * DTypeSize(*dtype);
  if (bytes / DTypeSize(*dtype) != static_cast<uint64_t>(e.num_elements) || bytes != e.size) {
    Throw(absl::DataLossError(absl::StrCat(Where(prefix_, key), "the index says ", e.size,
                                           " bytes, but ", DTypeName(*dtype), " ", e.shape.str(),
                                           " is ", bytes, " (index file ", prefix_, kIndexSuffix,
                                           "): the file is corrupt")));
  }
  if (e.offset > data_size_ || e.size > data_size_ - e.offset) {
    Throw(absl::DataLossError(absl::StrCat(Where(prefix_, key), "bytes [", e.offset, ", ",
                                           e.offset + e.size, ") lie beyond the end of ",
                                           data_path_, " (", data_size_,
                                           " bytes): the file is truncated or corrupt")));
  }
  Tensor t = ValueOrThrow(Tensor::TryEmpty(*dtype, e.shape));
  char* p = static_cast<char*>(t.raw_data());
  uint32_t crc = 0;
  for (uint64_t done = 0; done < e.size;) {  // Note [Chunked crc]
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(e.size - done, kChunkBytes));
    PreadAll(data_fd_, p + done, chunk, e.offset + done, data_path_);
    crc = Crc32cExtend(crc, p + done, chunk);
    done += chunk;
  }
  if (crc != e.crc) {
    Throw(absl::DataLossError(absl::StrCat(Where(prefix_, key), "crc32c mismatch (file ",
                                           data_path_, ", offset ", e.offset, ", ", e.size,
                                           " bytes): the file is corrupt")));
  }
  return t;
}

Tensor BundleReader::ReadStrings(const std::string& key, const Located& e) const {
  const auto corrupt = [&](const std::string& detail) {
    Throw(absl::DataLossError(absl::StrCat(Where(prefix_, key), detail, " (file ", data_path_,
                                           ", offset ", e.offset, ", ", e.size,
                                           " bytes): the file is corrupt")));
  };
  if (e.offset > data_size_ || e.size > data_size_ - e.offset) {
    Throw(absl::DataLossError(absl::StrCat(Where(prefix_, key), "bytes [", e.offset, ", ",
                                           e.offset + e.size, ") lie beyond the end of ",
                                           data_path_, " (", data_size_,
                                           " bytes): the file is truncated or corrupt")));
  }
  const uint64_t n = static_cast<uint64_t>(e.num_elements);
  if (n == 0 && e.size == 0) {  // older writers wrote nothing for no strings
    return ValueOrThrow(Tensor::TryEmpty(kString, e.shape));
  }
  // At least a byte per length and the 4-byte checksum: checked before allocating anything.
  if (e.size < 4 || n > e.size - 4) {
    corrupt(absl::StrCat(e.size, " bytes cannot hold ", n, " strings"));
  }
  std::string buf(static_cast<size_t>(e.size), '\0');
  PreadAll(data_fd_, buf.data(), buf.size(), e.offset, data_path_);

  // Note [String tensor layout] in BundleWriter::AddStrings.
  std::vector<uint64_t> lengths(static_cast<size_t>(n));
  size_t pos = 0;
  uint32_t crc = 0;
  for (uint64_t& length : lengths) {
    if (!GetVarint64(buf, buf.size(), &pos, &length)) corrupt("malformed string length");
    char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(length >> (8 * i));
    crc = Crc32cExtend(crc, bytes, length <= UINT32_MAX ? 4 : 8);
  }
  if (buf.size() - pos < 4) corrupt("the string lengths run past the entry's bytes");
  const uint32_t stored = GetFixed32(buf.data() + pos);
  if (UnmaskCrc32c(stored) != crc) corrupt("the string lengths' checksum does not match");
  crc = Crc32cExtend(crc, buf.data() + pos, 4);
  pos += 4;
  uint64_t remaining = buf.size() - pos;
  for (const uint64_t length : lengths) {
    if (length > remaining) corrupt("the string lengths add up to more than the entry's bytes");
    remaining -= length;
  }
  if (remaining != 0) corrupt("the string lengths add up to less than the entry's bytes");
  crc = Crc32cExtend(crc, buf.data() + pos, buf.size() - pos);
  if (crc != e.crc) corrupt("crc32c mismatch");
  Tensor t = ValueOrThrow(Tensor::TryEmpty(kString, e.shape));
  std::string* values = t.mutable_data<std::string>();
  for (size_t i = 0; i < lengths.size(); ++i) {
    values[i].assign(buf.data() + pos, static_cast<size_t>(lengths[i]));
    pos += static_cast<size_t>(lengths[i]);
  }
  return t;
}

}  // namespace duet::io
