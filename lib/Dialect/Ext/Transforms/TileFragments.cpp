//===- TileFragments.cpp - ext.alloc_fragment to private buffers ----------===//
//
// A fragment is a tile whose points its layout spreads over the threads:
// each thread holds its own points in a private buffer of the layout's
// local shape, which the tile computes that use the fragment index by the
// thread's local indices.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

using namespace mlir;
using namespace ext;
using namespace ext::tile_lowering;

LogicalResult tile_lowering::lowerAllocFragment(LaunchState &state,
                                                AllocFragmentOp op) {
  auto type = cast<MemRefType>(op.getType());
  SmallVector<int64_t> local =
      op.getLayoutOrDefault().getLocalShape(type.getShape(), op.getThreads());
  // A private attribution of the launch: registers once its accesses use
  // constant indices.
  Value storage =
      state.addPrivateBuffer(op.getLoc(), local, type.getElementType());
  state.addFragment(op.getResult(), {storage, llvm::to_vector(type.getShape()),
                                     llvm::to_vector(op.getThreads()),
                                     op.getLayoutOrDefault()});
  return success();
}
