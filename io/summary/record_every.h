// record_every_n_steps for training loops (tf.summary.record_if(step % n == 0)).
#pragma once

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "core/error.h"

namespace duet::summary {

// True at steps 0, n, 2n, ...: `summary::RecordEvery every(100);
// if (every(step)) w.histogram("w", model.d1.kernel(), step);` skips computing a summary on the
// other steps. FileWriterOptions::record_every_n_steps applies the same rule inside the writer,
// which also covers steps that are tensors in a traced function.
class RecordEvery {
 public:
  explicit RecordEvery(int64_t n) : n_(n) {
    if (n < 1) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("summary::RecordEvery needs a positive number of steps, got ", n)));
    }
  }
  bool operator()(int64_t step) const { return step % n_ == 0; }
  int64_t n() const { return n_; }

 private:
  int64_t n_;
};

}  // namespace duet::summary
