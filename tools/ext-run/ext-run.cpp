//===- ext-run.cpp - run an MLIR module's @main ---------------------------===//
//
// ext-run FILE.mlir: lowers the module with ext-cpu-pipeline and runs its
// `func.func @main()` through MLIR's ExecutionEngine, with the runner
// utilities (printMemrefF32 and friends) and the CPU emulation runtime of gpu
// kernels loaded. Every failure is a diagnostic and a non-zero exit, never a
// crash.
//
//===----------------------------------------------------------------------===//

#include "CudaTarget.h"
#include "ext/InitAll.h"
#include "ext/Pipelines/Pipelines.h"
#include "ext/Support/ParserHazards.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include <cstdlib>

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;

namespace {
enum class Target { Cpu, Cuda };

llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                         llvm::cl::desc("<input .mlir>"),
                                         llvm::cl::init("-"));
llvm::cl::opt<Target> target(
    "target", llvm::cl::desc("where to run the module"),
    llvm::cl::values(clEnumValN(Target::Cpu, "cpu",
                                "the host CPU, through the ExecutionEngine"),
                     clEnumValN(Target::Cuda, "cuda",
                                "an NVIDIA GPU through the CUDA driver "
                                "(loaded at run time)")),
    llvm::cl::init(Target::Cpu));
llvm::cl::opt<std::string> entryPoint("entry",
                                      llvm::cl::desc("function to run"),
                                      llvm::cl::init("main"));
llvm::cl::list<std::string>
    sharedLibs("shared-libs",
               llvm::cl::desc("extra shared libraries to load"),
               llvm::cl::CommaSeparated);
llvm::cl::opt<unsigned> optLevel("O", llvm::cl::desc("LLVM optimization level"),
                                 llvm::cl::Prefix, llvm::cl::init(2));
llvm::cl::opt<std::string>
    chip("chip",
         llvm::cl::desc("--target=cuda: sm_NN to compile kernels for "
                        "(default: the device's); --target=cpu: the GPU the "
                        "kernels stand for, whose SM count sizes Stream-K "
                        "grids and #ext.auto"),
         llvm::cl::init(""));
// The emulation runtime reads its settings from the environment, so these
// flags and EXT_EMU_* variables (for mlir-runner users) are the same thing.
llvm::cl::opt<std::string> emuSeed(
    "emu-seed",
    llvm::cl::desc("gpu kernels: seed that permutes the interleaving of "
                   "threads (EXT_EMU_SEED; 0, the default, is thread order)"),
    llvm::cl::value_desc("N"));
llvm::cl::opt<std::string> emuSchedule(
    "emu-schedule",
    llvm::cl::desc("gpu kernels: how threads interleave at yield points: "
                   "random (default), round-robin or sequential "
                   "(EXT_EMU_SCHEDULE)"),
    llvm::cl::value_desc("policy"));
llvm::cl::opt<bool> racecheck(
    "racecheck",
    llvm::cl::desc("--target=cpu: detect shared- and global-memory races in "
                   "gpu kernels; races are reported and the run fails "
                   "(EXT_EMU_RACECHECK=1; global accesses instrumented)"),
    llvm::cl::init(false));
llvm::cl::opt<bool> reference(
    "reference",
    llvm::cl::desc("--target=cpu: ignore schedules, run every ext.compute as "
                   "plain loops (the reference)"),
    llvm::cl::init(false));
llvm::cl::opt<bool> reuseSharedMemory(
    "reuse-shared-memory",
    llvm::cl::desc("pack kernels' workgroup buffers (ext-reuse-shared-memory)"),
    llvm::cl::init(true));
llvm::cl::opt<int> dropBarrier(
    "drop-barrier",
    llvm::cl::desc("tests only: omit the N-th barrier ext-tile-ops-to-threads "
                   "inserts, to show the result going wrong"),
    llvm::cl::init(-1));
llvm::cl::opt<bool> dropHazardBarriers(
    "drop-hazard-barriers",
    llvm::cl::desc("tests only: omit the barriers shared-memory reuse needs"),
    llvm::cl::init(false));
llvm::cl::opt<int64_t> sms(
    "sms",
    llvm::cl::desc("--target=cpu: SM count for Stream-K grids and #ext.auto "
                   "(overrides --chip)"),
    llvm::cl::init(0));
llvm::cl::opt<bool>
    printLowered("print-lowered",
                 llvm::cl::desc("print the module after lowering, then run"),
                 llvm::cl::init(false));

int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "ext-run") << message << "\n";
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::registerAllPasses();
  ext::registerAllPasses();
  llvm::cl::ParseCommandLineOptions(argc, argv, "ext-run: run @main of an "
                                                "MLIR module\n");
  if (optLevel > 3)
    return fail("-O must be 0, 1, 2 or 3");
  if (emuSeed.getNumOccurrences()) {
    uint64_t seed;
    if (StringRef(emuSeed).getAsInteger(10, seed))
      return fail("--emu-seed must be a non-negative integer");
    setenv("EXT_EMU_SEED", emuSeed.c_str(), 1);
  }
  if (emuSchedule.getNumOccurrences()) {
    if (!llvm::is_contained({"random", "round-robin", "sequential"},
                            StringRef(emuSchedule)))
      return fail("--emu-schedule must be random, round-robin or sequential");
    setenv("EXT_EMU_SCHEDULE", emuSchedule.c_str(), 1);
  }
  if (racecheck) {
    if (target != Target::Cpu)
      return fail("--racecheck needs --target=cpu");
    setenv("EXT_EMU_RACECHECK", "1", 1);
  }

  DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  ext::registerAllDialects(registry);
  MLIRContext context(registry);

  std::string errorMessage;
  auto file = openInputFile(inputFilename, &errorMessage);
  if (!file)
    return fail(errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  if (failed(ext::rejectParserHazards(sourceMgr)))
    return 1;

  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail("could not parse '" + inputFilename + "'");

  auto entry = module->lookupSymbol<func::FuncOp>(entryPoint);
  if (!entry || entry.isExternal())
    return fail("'" + inputFilename + "' has no func.func @" + entryPoint +
                " with a body");
  if (entry.getFunctionType().getNumInputs() != 0 ||
      entry.getFunctionType().getNumResults() != 0) {
    entry.emitError() << "@" << entryPoint
                      << " must take no arguments and return nothing";
    return 1;
  }

  if (target == Target::Cuda) {
    ext::CudaRunOptions options;
    options.entry = entryPoint;
    options.chip = chip;
    options.optLevel = optLevel;
    options.printLowered = printLowered;
    options.sharedLibs = {EXT_RUNNER_UTILS_LIB, EXT_C_RUNNER_UTILS_LIB};
    for (const std::string &lib : sharedLibs)
      options.sharedLibs.push_back(lib);
    return ext::runOnCuda(*module, options);
  }

  PassManager pm(&context, module.get()->getName().getStringRef());
  ext::CpuPipelineOptions pipelineOptions;
  pipelineOptions.reference = reference;
  pipelineOptions.reuseSharedMemory = reuseSharedMemory;
  pipelineOptions.dropBarrier = dropBarrier;
  pipelineOptions.dropHazardBarriers = dropHazardBarriers;
  pipelineOptions.racecheck = racecheck;
  pipelineOptions.chip = chip.getValue();
  pipelineOptions.sms = static_cast<int64_t>(sms.getValue());
  ext::buildCpuPipeline(pm, pipelineOptions);
  if (failed(pm.run(*module)))
    return fail("lowering '" + inputFilename + "' with ext-cpu-pipeline failed");
  if (printLowered)
    module->print(llvm::outs());
  // Anything the pipeline left outside the LLVM dialect cannot be compiled:
  // name it here rather than failing later in translation.
  // Casts left by a partial conversion point at the op that stayed; report
  // that op rather than the cast.
  Operation *leftover = nullptr;
  module->walk([&](Operation *op) {
    if (op == module->getOperation() || isa<LLVM::LLVMDialect>(op->getDialect()))
      return WalkResult::advance();
    bool isCast = isa<UnrealizedConversionCastOp>(op);
    if (!leftover || (isa<UnrealizedConversionCastOp>(leftover) && !isCast))
      leftover = op;
    return isCast ? WalkResult::advance() : WalkResult::interrupt();
  });
  if (leftover) {
    leftover->emitError() << "'" << leftover->getName()
                          << "' was not lowered to the LLVM dialect by "
                             "ext-cpu-pipeline";
    return fail("lowering '" + inputFilename + "' with ext-cpu-pipeline failed");
  }

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  SmallVector<StringRef> libs = {EXT_RUNNER_UTILS_LIB, EXT_C_RUNNER_UTILS_LIB,
                                 EXT_CPU_EMULATION_LIB};
  for (const std::string &lib : sharedLibs)
    libs.push_back(lib);

  // ExecutionEngineOptions holds a function_ref: keep the callable alive.
  std::function<llvm::Error(llvm::Module *)> transformer =
      makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                /*targetMachine=*/nullptr);
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.sharedLibPaths = libs;
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine)
    return fail("could not compile the lowered module: " +
                llvm::toString(engine.takeError()));
  if (llvm::Error err = (*engine)->invokePacked(entryPoint))
    return fail("running @" + entryPoint +
                " failed: " + llvm::toString(std::move(err)));
  llvm::outs().flush();
  return 0;
}
