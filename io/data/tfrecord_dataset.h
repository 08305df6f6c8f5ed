// TFRecordDataset: the records of TFRecord files as scalar string tensors (tf.data's
// TFRecordDataset; the framing and its checks are io/record/record_reader.h's).
#pragma once

#include <string>
#include <vector>

#include "io/data/dataset.h"

namespace duet::data {

// One element per record, a scalar kString tensor holding the record's bytes, file after file.
// compression: "" (or "NONE"), "ZLIB" or "GZIP"; anything else throws Error here. A file that
// cannot be opened or a corrupt record is an error naming the file (and the byte offset); the
// iteration then goes on with the next record that can be trusted, or the next file (so
// ignore_errors() skips them).
Dataset TFRecordDataset(std::vector<std::string> files, const std::string& compression = "");
inline Dataset TFRecordDataset(const std::string& file, const std::string& compression = "") {
  return TFRecordDataset(std::vector<std::string>{file}, compression);
}
inline Dataset TFRecordDataset(const char* file, const std::string& compression = "") {
  return TFRecordDataset(std::vector<std::string>{file}, compression);
}

}  // namespace duet::data
