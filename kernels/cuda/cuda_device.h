// CUDA device discovery, and the CUDA runtime behind core's public device calls (num_gpus,
// empty_cache: Note [Device runtimes] in core/device.cc).
#pragma once

namespace duet::cuda {

// Number of usable CUDA devices; 0 when there is no GPU or no driver (any CUDA error counts as
// zero devices, so machines without a GPU simply report none; a driver that is there but unusable
// says why once on stderr: Note [Why no GPU] in cuda_device.cc).
int DeviceCount();

}  // namespace duet::cuda
