// The ops graph mode itself makes or looks for, as checked references (Note [Checked op
// references] in ops/op_ref.h).
#pragma once

#include "ops/op_ref.h"

namespace duet {

inline const OpRef kConstOp{"Const"};
inline const OpRef kPlaceholderOp{"Placeholder"};
inline const OpRef kIdentityOp{"Identity"};
inline const OpRef kNoOpOp{"NoOp"};
inline const OpRef kVarHandleOp{"VarHandleOp"};
inline const OpRef kReadVariableOp{"ReadVariableOp"};
inline const OpRef kCopyToDeviceOp{"DuetCopyToDevice"};
inline const OpRef kIfOp{"If"};
inline const OpRef kStatelessIfOp{"StatelessIf"};
inline const OpRef kWhileOp{"While"};
inline const OpRef kStatelessWhileOp{"StatelessWhile"};
inline const OpRef kPartitionedCallOp{"PartitionedCall"};
inline const OpRef kStatefulPartitionedCallOp{"StatefulPartitionedCall"};

}  // namespace duet
