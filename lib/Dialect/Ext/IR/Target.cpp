//===- Target.cpp - the chip a module is compiled for ---------------------===//

#include "ext/Dialect/Ext/IR/Target.h"
#include "ext/Dialect/Ext/IR/ExtDialect.h"

#include <limits>

using namespace mlir;
using namespace ext;

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef chip, int64_t sms) {
  if (!lookupChipInfo(chip))
    return emitError() << "target chip '" << chip << "' "
                       << unknownChipMessage();
  if (sms < 0 || sms > std::numeric_limits<int32_t>::max())
    return emitError() << "target sms must be an SM count in [1, 2147483647] "
                          "(0: the chip's), got "
                       << sms;
  return success();
}

ChipInfo TargetAttr::getInfo() const {
  ChipInfo info = *lookupChipInfo(getChip());
  if (getSms() > 0)
    info.multiprocessors = getSms();
  return info;
}

TargetAttr ext::getTargetAttr(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto target = op->getAttrOfType<TargetAttr>(kTargetAttrName))
      return target;
  return {};
}

FailureOr<DeviceFacts> ext::resolveDevice(Operation *op, StringRef passName,
                                          StringRef chipOption,
                                          int64_t smsOption,
                                          StringRef fallbackChip) {
  if (smsOption < 0)
    return op->emitError() << passName << ": sms must be positive, got "
                           << smsOption;
  TargetAttr target = getTargetAttr(op);
  std::optional<ChipInfo> chip;
  if (!chipOption.empty()) {
    chip = lookupChipInfo(chipOption);
    if (!chip)
      return op->emitError() << passName << ": chip '" << chipOption << "' "
                             << unknownChipMessage();
    if (target && target.getChip() != chipOption)
      return op->emitError()
             << passName << ": chip=" << chipOption
             << " contradicts the module's " << target
             << "; give the same chip or drop the option";
    if (target && target.getSms() > 0)
      chip->multiprocessors = target.getSms();
  } else if (target) {
    chip = target.getInfo();
  } else if (!fallbackChip.empty()) {
    chip = lookupChipInfo(fallbackChip);
  }
  return DeviceFacts::of(std::move(chip), smsOption);
}

LogicalResult ext::setTarget(ModuleOp module, StringRef chip, int64_t sms) {
  auto emitError = [&]() { return module.emitError() << "ext-set-target: "; };
  if (failed(TargetAttr::verifyInvariants(emitError, chip, sms)))
    return failure();
  if (TargetAttr existing = getTargetAttr(module)) {
    if (existing.getChip() != chip || (sms > 0 && existing.getSms() != sms))
      return emitError() << "the module is already for " << existing
                         << ", not chip " << chip
                         << (sms > 0 ? " with sms " + std::to_string(sms)
                                     : std::string());
    return success();
  }
  module->setAttr(kTargetAttrName,
                  TargetAttr::get(module.getContext(), chip, sms));
  return success();
}

LogicalResult ExtDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  // Passes keep facts in other ext.* attributes (ext.workspace_bytes, ...);
  // only the target has rules.
  if (attr.getName() != kTargetAttrName)
    return success();
  if (!isa<TargetAttr>(attr.getValue()))
    return op->emitError() << "'" << kTargetAttrName
                           << "' must be an #ext.target, got "
                           << attr.getValue();
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'" << kTargetAttrName
                           << "' belongs on a builtin.module";
  return success();
}
