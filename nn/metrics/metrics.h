// The metrics (namespace duet::metrics): Keras' streaming metrics as modules.
#pragma once

#include "nn/metrics/accuracy.h"
#include "nn/metrics/auc.h"
#include "nn/metrics/mean.h"
#include "nn/metrics/metric.h"
#include "nn/metrics/precision_recall.h"
#include "nn/metrics/sum.h"
