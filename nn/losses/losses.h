// The losses (namespace duet::losses): Keras 3's loss functions and loss objects.
#pragma once

#include "nn/losses/crossentropy.h"
#include "nn/losses/loss_objects.h"
#include "nn/losses/reduction.h"
#include "nn/losses/regression.h"
