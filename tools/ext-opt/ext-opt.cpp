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
#include "ext/Support/ReportSvg.h"
#include "ext/Support/ToolCommandLine.h"

#include "mlir/Debug/Counter.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
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
  // Pictures of decomposition plans and shared-memory packings, drawn by
  // the passes that decide them (ext/Support/ReportSvg.h).
  static llvm::cl::opt<std::string> reportSvg(
      "ext-report-svg",
      llvm::cl::desc("Write an SVG of every kernel's decomposition plan "
                     "(<function>.<line>.decomposition.svg: CTAs x "
                     "iterations, fixup waits) and shared-memory packing "
                     "(<kernel>.smem.svg: buffers' lifetimes x bytes) into "
                     "this directory"),
      llvm::cl::value_desc("dir"),
      llvm::cl::cb<void, std::string>(
          [](const std::string &dir) { ext::setReportSvgDirectory(dir); }));
  // Register every option first so that --help can show only what a user of
  // ext-opt needs (each registration is idempotent; registerAndParseCLIOptions
  // repeats them) and the pass list can name ext's passes.
  mlir::MlirOptMainConfig::registerCLOptions(registry);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  mlir::tracing::DebugCounter::registerCLOptions();
  std::string overview =
      "ext optimizer driver: ext's and upstream MLIR's passes\n\n"
      "  ext-opt k.mlir --ext-gpu-pipeline=\"target=nvvm chip=sm_90\" | "
      "ext-translate --ext-to-ptx\n\n" +
      ext::describeExtPasses() +
      "\nEvery pass and pipeline runs as --NAME or --NAME=\"OPTIONS\"; "
      "--list-passes lists all of them (upstream's too) with their "
      "options.\n";
  ext::showOnlyToolOptions(
      {"pass-pipeline", "split-input-file", "verify-diagnostics",
       "ext-report-svg",
       "list-passes", "show-dialects", "load-pass-plugin",
       "load-dialect-plugin", "allow-unregistered-dialect", "emit-bytecode",
       "dump-pass-pipeline", "verify-each", "mlir-print-ir-after-all",
       "mlir-print-ir-before-all", "mlir-print-ir-after-failure",
       "mlir-print-op-on-diagnostic", "mlir-print-debuginfo", "mlir-timing",
       "mlir-pass-statistics", "mlir-disable-threading",
       "mlir-pass-pipeline-crash-reproducer"});
  llvm::SmallVector<char *> args = ext::withQuietDiagnostics(argc, argv);
  argc = args.size();
  argv = args.data();
  auto [inputFilename, outputFilename] =
      mlir::registerAndParseCLIOptions(argc, argv, overview, registry);
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
