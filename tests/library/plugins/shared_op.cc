// Two libraries built from this source both declare LibTestShared
// identically (as two plugins bundling one op do); each has its own op
// LIB_OP too.
#include "opkit/op/op.h"

REGISTER_OP("LibTestShared").Input("x: float").Output("y: float");
REGISTER_OP(LIB_OP);
