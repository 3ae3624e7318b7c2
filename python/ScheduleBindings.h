//===- ScheduleBindings.h - ext's schedule attributes from Python values --===//
//
// Python builds #ext.schedule and its parts (#ext.cache, #ext.storage_align,
// #ext.swizzle, the fragment layouts, #ext.mma) from typed values through
// their ODS-generated getChecked, never as text. An AttributeValue keeps the
// values: it is made and verified in a context of its own as soon as Python
// asks (so a bad value is an error at the user's line) and made again in
// the context a program is built in. Text ("#dialect.name<...>") is the
// escape hatch for plugins' attributes, accepted wherever an attribute is.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_PYTHON_SCHEDULEBINDINGS_H
#define EXT_PYTHON_SCHEDULEBINDINGS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Diagnostics.h"

#include <pybind11/pybind11.h>

#include <functional>
#include <string>

namespace ext::python {

using EmitError = llvm::function_ref<mlir::InFlightDiagnostic()>;

/// While alive, keeps the message of the first diagnostic `ctx` reports:
/// what is wrong (a parser's follow-ups name its own grammar).
class FirstDiagnostic {
public:
  explicit FirstDiagnostic(mlir::MLIRContext *ctx)
      : handler(ctx, [this](mlir::Diagnostic &d) {
          if (message.empty())
            message = d.str();
          return mlir::success();
        }) {}
  std::string message;

private:
  mlir::ScopedDiagnosticHandler handler;
};

/// An attribute made from typed values, in any context on demand.
class AttributeValue {
public:
  /// Makes the attribute in `ctx`; null after reporting through the
  /// emitter (the attributes' getChecked do).
  using Maker = std::function<mlir::Attribute(mlir::MLIRContext *, EmitError)>;

  /// Makes the attribute in the schedule context: a pybind11::value_error
  /// with the first diagnostic if it is invalid.
  explicit AttributeValue(Maker make);

  /// The attribute in `ctx`; null after reporting through `emitError`.
  mlir::Attribute get(mlir::MLIRContext *ctx, EmitError emitError) const;

  /// As printed in IR.
  std::string str() const;

  /// The attribute in the schedule context (uniqued: equal values are the
  /// same attribute).
  mlir::Attribute attribute() const { return local; }

private:
  Maker make;
  mlir::Attribute local;
};

/// `value` (an AttributeValue, or attribute text parsed here) in `ctx`; null
/// after reporting through `emitError`.
mlir::Attribute getAttribute(const pybind11::handle &value,
                             mlir::MLIRContext *ctx, EmitError emitError);

/// Adds `ext._ext.schedules`: AttributeValue as `Attribute`, its makers and
/// the names ODS defines (schedule fields, mma instructions).
void bindSchedules(pybind11::module &m);

} // namespace ext::python

#endif // EXT_PYTHON_SCHEDULEBINDINGS_H
