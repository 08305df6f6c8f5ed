// Multi-device test cases, written once for any device other than the host: the GPU tests run
// them on cuda:0 (tests/kernels/cuda/cuda_device_test.cc, skipped without a GPU), and every test
// run on the virtual device cpu:1 (tests/eager/virtual_device_test.cc; Note [Virtual devices] in
// core/device.cc), so placement, copies and the device check are tested on machines without a
// GPU. Each case compares the work on `device` with the same work on the host.
#pragma once

#include "core/device.h"

namespace duet::testing {

// True (after a Catch2 WARN saying why) when cpu:1 does not exist: DUET_VIRTUAL_DEVICES is unset
// (the test rules set it to 2; a binary run by hand may not). Use as
// `if (SkipWithoutVirtualDevice()) return;`.
bool SkipWithoutVirtualDevice();

// Eager execution.
void CheckCopiesEveryDtype(Device device);
void CheckReadingAndPrintingCopyBack(Device device);
void CheckOpsRunWhereInputsAre(Device device);
// ConcatV2 of 70 values: its axis, a host input after the values, stays on the host.
void CheckConcatOfManyValues(Device device);
void CheckDeviceScope(Device device);
void CheckGradientsThroughCopies(Device device);
void CheckVariablesLiveOnTheirDevice(Device device);

// Graphs and sessions.
void CheckSessionOnDevice(Device device);
void CheckSessionVariablesOnDevice(Device device);
// A fused elementwise chain with host scalar operands, in a session and in a function.
void CheckFusedElementwiseWithHostScalars(Device device);
// Values on the device that host code must read through a copy (Note [Host reads of device
// memory]): eager tensors captured into a session's graph, which the passes and shape functions
// leave alone (Note [Constants on devices]), fetches the shadow check compares, and the draw the
// orthogonal initializer decomposes on the host.
void CheckDeviceValuesReadThroughCopies(Device device);

// Traced functions: a hand-written training step, control flow and nested calls with their
// gradients, and models with optimizers.
void CheckTracedTrainingStep(Device device);
void CheckTracedControlFlow(Device device);
void CheckNestedCallsAndTheirGradients(Device device);
void CheckTracedModelTraining(Device device);
// A frozen GraphDef of a function traced on `device` imports and runs there again.
void CheckFrozenExportOfAFunctionTracedThere(Device device);

}  // namespace duet::testing
