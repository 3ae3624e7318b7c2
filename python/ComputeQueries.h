//===- ComputeQueries.h - what Python's tuner reads of MLIR computes -*- C++ -*-===//
//
// The tuner (ext/tuning.py) works on computes written in MLIR as well as on
// TE graphs: these read an ext.compute's axes, operands and body shape out
// of a module, set a schedule on one, and remake a function's computes at
// other sizes (the tuner checks candidates at a reduced size).
//
//===----------------------------------------------------------------------===//

#ifndef EXT_PYTHON_COMPUTEQUERIES_H
#define EXT_PYTHON_COMPUTEQUERIES_H

#include "mlir/IR/BuiltinOps.h"

#include <pybind11/pybind11.h>

#include <map>
#include <string>

namespace ext::python {

/// Every ext.compute of every func.func, in order: a dict per compute with
/// its function, index in the function, name, axes (name, kind, extent or
/// None), operands (dtype, the axis positions each dimension reads,
/// whether a dimension reads a window of two axes, the function argument
/// it is, if one, the compute that writes it, if one, a number shared by
/// the operands that are the same memref), its number of
/// inputs, combiner, whether its body is a product of two reads (casts
/// allowed), and its schedule's text.
pybind11::list describeComputes(mlir::ModuleOp module);

/// Sets the schedule of compute `index` of @`function` to `schedule` (an
/// `ext._ext.schedules.Attribute`, or attribute text; "" removes every
/// schedule of the function), then verifies the module. Throws ValueError
/// naming what is wrong.
void setComputeSchedule(mlir::ModuleOp module, const std::string &function,
                        int64_t index, const pybind11::handle &schedule);

/// Gives the axes of @`function`'s computes named in `extents` those
/// extents ("axis": in every compute, "N.axis": in compute #N alone), and every memref of the function a dimension of which such an
/// axis alone indexes the matching size; other functions are erased unless
/// it calls them. Throws ValueError where that is
/// not consistent (a memref dimension read through a window of a resized
/// axis, two sizes for one dimension) or the result does not verify.
void resizeComputes(mlir::ModuleOp module, const std::string &function,
                    const std::map<std::string, int64_t> &extents);

} // namespace ext::python

#endif // EXT_PYTHON_COMPUTEQUERIES_H
