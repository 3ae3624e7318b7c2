//===- ext-translate.cpp - ext's translation driver -----------------------===//
//
// mlir-translate with ext's dialects registered, upstream's translations
// and ext's --ext-to-ptx / --ext-to-hsaco (serialize the target-attached
// gpu.modules that ext-gpu-pipeline leaves).
//
// Its own front door rather than upstream's mlirTranslateMain: the input is
// scanned for text the installed parser crashes on (ext/Support/
// ParserHazards.h) before any translation parses it, --help lists what a
// user of the tool needs, and an error shows its message and location
// without a dump of the op unless --mlir-print-op-on-diagnostic asks.
//
//===----------------------------------------------------------------------===//

#include "ext/InitAll.h"
#include "ext/Support/ParserHazards.h"
#include "ext/Support/ToolCommandLine.h"
#include "ext/Target/GPU/Serialize.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllTranslations.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

namespace {
llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                         llvm::cl::desc("<input file>"),
                                         llvm::cl::init("-"),
                                         llvm::cl::cat(ext::getToolOptionCategory()));
llvm::cl::opt<std::string> outputFilename(
    "o", llvm::cl::desc("Output file (default: stdout)"),
    llvm::cl::value_desc("filename"), llvm::cl::init("-"),
    llvm::cl::cat(ext::getToolOptionCategory()));
llvm::cl::opt<bool> allowUnregisteredDialects(
    "allow-unregistered-dialect",
    llvm::cl::desc("Allow ops of unregistered dialects (testing only)"),
    llvm::cl::init(false));
llvm::cl::opt<std::string> inputSplitMarker(
    "split-input-file", llvm::cl::ValueOptional,
    llvm::cl::desc("Translate each chunk between '// -----' markers (or the "
                   "given marker) separately"),
    llvm::cl::init(""), llvm::cl::cat(ext::getToolOptionCategory()));
llvm::cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    llvm::cl::desc("Check that emitted diagnostics match expected-* lines "
                   "in the input"),
    llvm::cl::init(false), llvm::cl::cat(ext::getToolOptionCategory()));

/// The parser-hazard scan, reported through the context so that
/// --verify-diagnostics sees it like any other error.
LogicalResult rejectParserHazards(llvm::SourceMgr &sourceMgr,
                                  MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  std::optional<ext::ParserHazard> hazard =
      ext::findParserHazard(buffer->getBuffer());
  if (!hazard)
    return success();
  auto [line, column] = sourceMgr.getLineAndColumn(
      llvm::SMLoc::getFromPointer(buffer->getBufferStart() + hazard->offset));
  return emitError(FileLineColLoc::get(context,
                                       buffer->getBufferIdentifier(), line,
                                       column))
         << hazard->message;
}

/// Parses, scans and translates one chunk of input.
LogicalResult translateBuffer(const Translation &translation,
                              std::unique_ptr<llvm::MemoryBuffer> buffer,
                              llvm::raw_ostream &os) {
  // Translations parse with the parser that expects a NUL-terminated buffer;
  // split chunks are not.
  if (!buffer->getBuffer().ends_with('\0'))
    buffer = llvm::MemoryBuffer::getMemBufferCopy(
        buffer->getBuffer(), buffer->getBufferIdentifier());
  MLIRContext context;
  context.allowUnregisteredDialects(allowUnregisteredDialects);
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  if (verifyDiagnostics) {
    SourceMgrDiagnosticVerifierHandler handler(*sourceMgr, &context);
    if (succeeded(rejectParserHazards(*sourceMgr, &context)))
      (void)translation(sourceMgr, os, &context);
    return handler.verify();
  }
  SourceMgrDiagnosticHandler handler(*sourceMgr, &context);
  if (failed(rejectParserHazards(*sourceMgr, &context)))
    return failure();
  return translation(sourceMgr, os, &context);
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAllTranslations();
  ext::registerGPUTranslations(ext::registerAllDialects);

  // Constructed after the translations are registered: each becomes a flag.
  llvm::cl::opt<const Translation *, false, TranslationParser> translation(
      "", llvm::cl::desc("Translation to perform"), llvm::cl::Required,
      llvm::cl::cat(ext::getToolOptionCategory()));
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerTranslationCLOptions();
  ext::showOnlyToolOptions({"ext-gpu-module", "ext-output-dir",
                            "ext-cuda-path", "ext-rocm-path",
                            "mlir-print-op-on-diagnostic",
                            "mlir-print-debuginfo"});
  llvm::SmallVector<char *> args = ext::withQuietDiagnostics(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      args.size(), args.data(),
      "ext translation driver: MLIR to PTX, HSACO or LLVM IR\n\n"
      "  ext-opt k.mlir --ext-gpu-pipeline=\"target=nvvm chip=sm_90\" | "
      "ext-translate --ext-to-ptx > k.ptx\n");
  if (inputSplitMarker.getNumOccurrences() && inputSplitMarker.empty())
    inputSplitMarker = kDefaultSplitMarker;

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input;
  if (std::optional<llvm::Align> align = translation->getInputAlignment())
    input = openInputFile(inputFilename, *align, &errorMessage);
  else
    input = openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  auto process = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                     llvm::raw_ostream &os) {
    return translateBuffer(*translation, std::move(chunk), os);
  };
  if (failed(splitAndProcessBuffer(std::move(input), process, output->os(),
                                   inputSplitMarker, /*outputSplitMarker=*/"")))
    return 1;
  output->keep();
  return 0;
}
