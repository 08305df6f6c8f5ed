#include "io/data/tfrecord_dataset.h"

#include "absl/strings/str_cat.h"
#include "io/record/compression.h"
#include "io/record/record_reader.h"

namespace duet::data {
namespace {

class TFRecordNode final : public DatasetNode {
 public:
  TFRecordNode(std::vector<std::string> files, io::Compression compression)
      : files_(std::move(files)), compression_(compression) {}

  std::unique_ptr<ElementIterator> MakeIterator(std::shared_ptr<IterationContext>) const override {
    return std::make_unique<Iterator>(this);
  }

  // Note [File sharding] (io/data/dataset_node.h).
  std::shared_ptr<const DatasetNode> ShardFiles(int64_t num_shards, int64_t index) const override {
    if (static_cast<int64_t>(files_.size()) < num_shards) return nullptr;
    std::vector<std::string> mine;
    for (size_t i = index; i < files_.size(); i += num_shards) mine.push_back(files_[i]);
    return std::make_shared<TFRecordNode>(std::move(mine), compression_);
  }

 private:
  // Note [TFRecord errors]: RecordReader reports a corrupt record and then either stands after
  // it (data CRC) or reports the end for good (framing); both let this iterator go on, with the
  // next record or the next file, so that one bad record costs one element.
  class Iterator final : public ElementIterator {
   public:
    explicit Iterator(const TFRecordNode* node) : node_(node) {}

    absl::Status GetNext(Element* out, bool* end) override {
      *end = false;
      while (true) {
        if (!reader_) {
          if (next_file_ >= node_->files_.size()) {
            *end = true;
            return absl::OkStatus();
          }
          const std::string& path = node_->files_[next_file_++];
          absl::StatusOr<std::unique_ptr<io::RecordReader>> opened =
              io::RecordReader::Open(path, node_->compression_);
          if (!opened.ok()) {
            return absl::Status(opened.status().code(),
                                absl::StrCat("TFRecordDataset: ", opened.status().message()));
          }
          reader_ = *std::move(opened);
        }
        absl::string_view record;
        const absl::Status read = reader_->ReadRecord(&record);
        if (absl::IsOutOfRange(read)) {
          reader_.reset();
          continue;
        }
        if (!read.ok()) {
          return absl::Status(read.code(), absl::StrCat("TFRecordDataset: ", read.message()));
        }
        Tensor value = Tensor::Empty(kString, Shape{});
        value.mutable_data<std::string>()->assign(record.data(), record.size());
        *out = Element{std::move(value)};
        return absl::OkStatus();
      }
    }

   private:
    const TFRecordNode* node_;
    size_t next_file_ = 0;
    std::unique_ptr<io::RecordReader> reader_;
  };

  std::vector<std::string> files_;
  io::Compression compression_;
};

}  // namespace

Dataset TFRecordDataset(std::vector<std::string> files, const std::string& compression) {
  const absl::StatusOr<io::Compression> parsed = io::ParseCompression(compression);
  if (!parsed.ok()) {
    throw Error(absl::Status(parsed.status().code(),
                             absl::StrCat("TFRecordDataset: ", parsed.status().message())));
  }
  return Dataset(std::make_shared<TFRecordNode>(std::move(files), *parsed));
}

}  // namespace duet::data
