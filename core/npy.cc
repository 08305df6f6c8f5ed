#include "core/npy.h"
