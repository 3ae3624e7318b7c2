//===- ExtDialect.h - the ext dialect ---------------------------*- C++ -*-===//

#ifndef EXT_DIALECT_EXT_IR_EXTDIALECT_H
#define EXT_DIALECT_EXT_IR_EXTDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dialect.h"

#include "ext/Dialect/Ext/IR/ExtOpsDialect.h.inc"

#endif // EXT_DIALECT_EXT_IR_EXTDIALECT_H
