// The optimizers library: SGD, Adam, AdamW, RMSProp, Adagrad, learning-rate schedules, clipping.
#pragma once

#include "optimizers/adagrad.h"
#include "optimizers/adam.h"
#include "optimizers/clipping.h"
#include "optimizers/learning_rate.h"
#include "optimizers/optimizer.h"
#include "optimizers/rmsprop.h"
#include "optimizers/sgd.h"
