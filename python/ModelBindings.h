//===- ModelBindings.h - the hardware model in Python -----------*- C++ -*-===//
//
// ext/Model as Python sees it: the chip table, the matrix instruction
// table, the decompositions' cost model and the bank rule. Python's tuner,
// cost model and helpers read these instead of keeping tables of their own.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_PYTHON_MODELBINDINGS_H
#define EXT_PYTHON_MODELBINDINGS_H

#include <pybind11/pybind11.h>

namespace ext::python {

/// Adds chip_info, default_chip, matrix_instructions, predict_work,
/// choose_at_launch and bank_cost to `m`.
void bindModel(pybind11::module &m);

} // namespace ext::python

#endif // EXT_PYTHON_MODELBINDINGS_H
