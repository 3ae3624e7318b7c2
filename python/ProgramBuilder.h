//===- ProgramBuilder.h - ext.compute ops from Python expression trees ----===//
//
// The Python layer (ext/te.py) describes a program as plain data: the
// function's memref arguments, and per compute its axes, its accesses (an
// operand and an affine index tree per dimension), its body as a list of
// expression nodes in dependence order, its combiner and schedule. This
// builds the func.func with one ext.compute per description through the C++
// API, each op located at the Python line that made it, and checks every
// type on the way so that bad input is an exception, never invalid IR.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_PYTHON_PROGRAMBUILDER_H
#define EXT_PYTHON_PROGRAMBUILDER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

namespace ext::python {

/// A user error found while building: the message names the Python line.
struct BuildError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// `file:line: ` for a location made from a Python frame, or the printed
/// location otherwise.
std::string describeLocation(mlir::Location loc);

/// `t` as MLIR prints it ("f32", "memref<4xf16>").
std::string typeName(mlir::Type t);

/// The MLIR type of a canonical dtype name (f16, bf16, f32, f64, i1, i8,
/// i16, i32, i64, index, and the low-bit types: ui8..ui64 as the signless
/// integers of their width, i4, i2, f8E4M3FN, f8E5M2, f4E2M1FN); null when
/// unknown.
mlir::Type parseDtype(mlir::MLIRContext *ctx, llvm::StringRef name);

/// Builds the module described by `program` (see ext/te.py, `_lower`).
/// Throws BuildError for input that cannot make valid IR.
mlir::OwningOpRef<mlir::ModuleOp> buildProgram(mlir::MLIRContext *ctx,
                                               const pybind11::dict &program);

} // namespace ext::python

#endif // EXT_PYTHON_PROGRAMBUILDER_H
