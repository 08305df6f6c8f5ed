#include "core/tensor_proto.h"
