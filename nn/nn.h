// The nn layer library: modules, layers, initializers and activations.
#pragma once

#include "nn/activation.h"
#include "nn/conv.h"
#include "nn/dense.h"
#include "nn/dropout.h"
#include "nn/embedding.h"
#include "nn/initializers.h"
#include "nn/layer.h"
#include "nn/module.h"
#include "nn/normalization.h"
#include "nn/pooling.h"
#include "nn/recurrent.h"
#include "nn/reshaping.h"
#include "nn/sequential.h"
