// The training loop (fit) and its callbacks.
#pragma once

#include "train/callback.h"
#include "train/early_stopping.h"
#include "train/fit.h"
#include "train/model_checkpoint.h"
#include "train/monitor.h"
#include "train/progress_bar.h"
#include "train/tensorboard_callback.h"
