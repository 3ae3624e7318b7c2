//===- ext-opt.cpp - ext's optimizer driver -------------------------------===//
//
// mlir-opt with ext's dialects, passes and pipelines added to upstream's.
// Links libMLIR.so, so --load-pass-plugin / --load-dialect-plugin plugins
// built against the same MLIR share its globals.
//
//===----------------------------------------------------------------------===//

#include "ext/InitAll.h"
#include "ext/Support/ParserHazards.h"
#include "ext/Support/Plugins.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  ext::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary (and ext-gpu-host-pipeline) translate gpu.modules
  // to LLVM IR inside the pass.
  mlir::registerAllToLLVMIRTranslations(registry);
  ext::registerAllDialects(registry);

  // Upstream's options load plugins while parsing: a plugin built against
  // another ext is refused first, with both versions named.
  if (llvm::Error err = ext::checkPluginArguments(argc, argv)) {
    llvm::WithColor::error(llvm::errs(), "ext-opt")
        << llvm::toString(std::move(err)) << "\n";
    return 1;
  }
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "ext optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  // Listing dialects or passes reads no input: upstream's driver does it.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        argc, argv, inputFilename, outputFilename, registry));

  // Otherwise upstream's driver, but with the input scanned first for text
  // the installed parser crashes on (ext/Support/ParserHazards.h).
  llvm::InitLLVM y(argc, argv);
  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  llvm::SourceMgr scanned;
  scanned.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(input->getMemBufferRef(),
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  if (failed(ext::rejectParserHazards(scanned)))
    return 1;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (failed(mlir::MlirOptMain(output->os(), std::move(input), registry,
                               config)))
    return 1;
  output->keep();
  return 0;
}
