// CUDA device discovery. Kernels on CUDA come in a later issue; the toolkit is linked now so the
// build proves it links on every machine.
#pragma once

namespace duet {

// Number of usable CUDA devices; 0 when there is no GPU or no driver (any CUDA error counts as
// zero devices, so machines without a GPU simply report none).
int num_gpus();

}  // namespace duet
