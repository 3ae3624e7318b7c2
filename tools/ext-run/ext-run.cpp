//===- ext-run.cpp - run an MLIR module's @main ---------------------------===//
//
// ext-run FILE.mlir: lowers the module with ext-cpu-pipeline and runs its
// `func.func @main()` through MLIR's ExecutionEngine, with the runner
// utilities (printMemrefF32 and friends) and the CPU emulation runtime of gpu
// kernels loaded. `--entry=NAME` runs another function; one taking memrefs
// gets them from .npy files (--inputs), seeded random values
// (--random-inputs) or zeros, and --print-outputs / --save-outputs show
// what it wrote. Every failure is a diagnostic and a non-zero exit, never a
// crash.
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"
#include "ext/InitAll.h"
#include "ext/Runner/Executable.h"
#include "ext/Runner/RuntimeLibraries.h"
#include "ext/Support/ParserHazards.h"
#include "ext/Support/Plugins.h"
#include "ext/Support/ToolCommandLine.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;

namespace {
enum class Target { Cpu, Cuda };

llvm::cl::OptionCategory &cat = ext::getToolOptionCategory();

llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                         llvm::cl::desc("<input .mlir>"),
                                         llvm::cl::init("-"), llvm::cl::cat(cat));
llvm::cl::opt<Target, false, ext::ValueListingParser<Target>> target(
    "target", llvm::cl::desc("where to run the module"),
    llvm::cl::values(clEnumValN(Target::Cpu, "cpu",
                                "the host CPU, through the ExecutionEngine"),
                     clEnumValN(Target::Cuda, "cuda",
                                "an NVIDIA GPU through the CUDA driver "
                                "(loaded at run time)")),
    llvm::cl::init(Target::Cpu), llvm::cl::cat(cat));
llvm::cl::opt<std::string> entryPoint(
    "entry",
    llvm::cl::desc("function to run; one taking memrefs gets them from "
                   "--inputs, --random-inputs or zeros"),
    llvm::cl::init("main"), llvm::cl::cat(cat));
llvm::cl::list<std::string> inputFiles(
    "inputs",
    llvm::cl::desc("--entry: .npy files for the first memref arguments, in "
                   "order (dtype and static sizes must match; a dynamic "
                   "memref takes the file's sizes, and needs a file)"),
    llvm::cl::value_desc("a.npy,b.npy"), llvm::cl::CommaSeparated,
    llvm::cl::cat(cat));
llvm::cl::opt<std::string> randomInputs(
    "random-inputs",
    llvm::cl::desc("--entry: fill memref arguments without a file with "
                   "values from this seed (floats in [-1, 1), integers in "
                   "[-8, 8]); without it they are zero"),
    llvm::cl::value_desc("SEED"), llvm::cl::cat(cat));
llvm::cl::opt<bool> printOutputs(
    "print-outputs",
    llvm::cl::desc("--entry: print each memref argument the run changed"),
    llvm::cl::init(false), llvm::cl::cat(cat));
llvm::cl::opt<std::string> saveOutputs(
    "save-outputs",
    llvm::cl::desc("--entry: write each memref argument the run changed to "
                   "DIR/argN.npy"),
    llvm::cl::value_desc("DIR"), llvm::cl::cat(cat));
llvm::cl::list<std::string>
    sharedLibs("shared-libs",
               llvm::cl::desc("extra shared libraries to load"),
               llvm::cl::CommaSeparated, llvm::cl::cat(cat));
// As in ext-opt; checked against ext's version (ext/Support/Plugins.h).
llvm::cl::list<std::string>
    dialectPlugins("load-dialect-plugin",
                   llvm::cl::desc("load a dialect plugin (a shared object)"),
                   llvm::cl::value_desc("path"), llvm::cl::cat(cat));
llvm::cl::list<std::string>
    passPlugins("load-pass-plugin",
                llvm::cl::desc("load a pass plugin (a shared object)"),
                llvm::cl::value_desc("path"), llvm::cl::cat(cat));
llvm::cl::opt<unsigned> optLevel("O", llvm::cl::desc("LLVM optimization level"),
                                 llvm::cl::Prefix, llvm::cl::init(2), llvm::cl::cat(cat));
llvm::cl::opt<std::string>
    chip("chip",
         llvm::cl::desc("--target=cuda: sm_NN to compile kernels for "
                        "(default: the device's); --target=cpu: the GPU the "
                        "kernels stand for, whose SM count sizes Stream-K "
                        "grids and #ext.auto, whose limits the kernels are "
                        "checked against, and whose warp size the emulator "
                        "uses (64 lanes for gfxNNN); default: the module's "
                        "#ext.target, else sm_80, as ext-opt's pipelines"),
         llvm::cl::init(""), llvm::cl::cat(cat));
// These flags reach the emulation runtime as typed options for this run; the
// EXT_EMU_* variables (for mlir-runner users) fill in what they leave unset.
llvm::cl::opt<std::string> emuSeed(
    "emu-seed",
    llvm::cl::desc("gpu kernels: seed that permutes the interleaving of "
                   "threads (EXT_EMU_SEED; 0, the default, is thread order)"),
    llvm::cl::value_desc("N"), llvm::cl::cat(cat));
llvm::cl::opt<std::string> emuSchedule(
    "emu-schedule",
    llvm::cl::desc("gpu kernels: how threads interleave at yield points: "
                   "random (default), round-robin or sequential "
                   "(EXT_EMU_SCHEDULE)"),
    llvm::cl::value_desc("policy"), llvm::cl::cat(cat));
llvm::cl::opt<std::string> emuThreads(
    "emu-threads",
    llvm::cl::desc("gpu kernels: worker threads a launch spreads its blocks "
                   "over (EXT_EMU_THREADS; 0, the default, is one per core; "
                   "results do not depend on it)"),
    llvm::cl::value_desc("N"), llvm::cl::cat(cat));
llvm::cl::opt<bool> racecheck(
    "racecheck",
    llvm::cl::desc("--target=cpu: detect shared- and global-memory races in "
                   "gpu kernels; races are reported and the run fails "
                   "(EXT_EMU_RACECHECK=1; global accesses instrumented)"),
    llvm::cl::init(false), llvm::cl::cat(cat));
llvm::cl::opt<bool> bankConflicts(
    "bank-conflicts",
    llvm::cl::desc("--target=cpu: count the shared-memory wavefronts of every "
                   "warp-wide workgroup access and print, per access site and "
                   "kernel, requests, wavefronts and the conflict ratio "
                   "(EXT_EMU_BANK_CONFLICTS=1; 32 banks x 4 B)"),
    llvm::cl::init(false), llvm::cl::cat(cat));
llvm::cl::opt<bool> reference(
    "reference",
    llvm::cl::desc("--target=cpu: ignore schedules, run every ext.compute as "
                   "plain loops (the reference)"),
    llvm::cl::init(false), llvm::cl::cat(cat));
llvm::cl::opt<bool> reuseSharedMemory(
    "reuse-shared-memory",
    llvm::cl::desc("pack kernels' workgroup buffers (ext-gpu-reuse-shared-memory)"),
    llvm::cl::init(true), llvm::cl::cat(cat));
llvm::cl::opt<int> dropBarrier(
    "drop-barrier",
    llvm::cl::desc("tests only: omit the N-th barrier ext-tile-ops-to-threads "
                   "inserts, to show the result going wrong"),
    llvm::cl::init(-1), llvm::cl::cat(cat));
llvm::cl::opt<bool> weakenAsyncWait(
    "weaken-async-wait",
    llvm::cl::desc("tests only: pipelined k-loops (stages >= 2) wait for one "
                   "copy group fewer than they must, or with wgmma groups "
                   "in flight copy one step too far ahead, to show the "
                   "result going wrong (async copies: --chip=sm_80 or "
                   "later)"),
    llvm::cl::init(false), llvm::cl::cat(cat));
llvm::cl::opt<bool> dropHazardBarriers(
    "drop-hazard-barriers",
    llvm::cl::desc("tests only: omit the barriers shared-memory reuse needs"),
    llvm::cl::init(false), llvm::cl::cat(cat));
llvm::cl::opt<int64_t> sms(
    "sms",
    llvm::cl::desc("--target=cpu: SM count for Stream-K grids and #ext.auto "
                   "(overrides --chip)"),
    llvm::cl::init(0), llvm::cl::cat(cat));
llvm::cl::opt<bool>
    printLowered("print-lowered",
                 llvm::cl::desc("print the module after lowering, then run"),
                 llvm::cl::init(false), llvm::cl::cat(cat));

int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "ext-run") << message << "\n";
  return 1;
}

/// Per argument of `entry`: whether its body may write it (an op with a
/// write effect on it, or one whose effects are unknown, as a call, using
/// it). An output the run leaves equal to its initial contents is still an
/// output.
std::vector<bool> writtenArguments(func::FuncOp entry) {
  std::vector<bool> written(entry.getNumArguments(), false);
  for (BlockArgument arg : entry.getArguments()) {
    SmallVector<Value> aliases = {arg};
    for (unsigned i = 0; i < aliases.size() && !written[arg.getArgNumber()];
         ++i) {
      for (OpOperand &use : aliases[i].getUses()) {
        Operation *user = use.getOwner();
        // Views of it (subview, cast, ...) alias it.
        if (isa<ViewLikeOpInterface>(user)) {
          llvm::append_range(aliases, user->getResults());
          continue;
        }
        auto effects = dyn_cast<MemoryEffectOpInterface>(user);
        if (!effects && !user->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
          written[arg.getArgNumber()] = true; // unknown: a call, say
          break;
        }
        SmallVector<MemoryEffects::EffectInstance> instances;
        if (effects)
          effects.getEffectsOnValue(use.get(), instances);
        if (llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
              return isa<MemoryEffects::Write>(e.getEffect());
            })) {
          written[arg.getArgNumber()] = true;
          break;
        }
      }
    }
  }
  return written;
}

/// --print-outputs and --save-outputs: the arguments the run changed, or
/// that the function writes.
int reportOutputs(const std::vector<ext::MemRefArgument> &arguments,
                  const std::vector<bool> &written) {
  bool anyChanged = false;
  for (auto [index, arg] : llvm::enumerate(arguments)) {
    if (!arg.changed() && !(index < written.size() && written[index]))
      continue;
    anyChanged = true;
    std::string name = "arg" + std::to_string(index);
    if (printOutputs)
      ext::printArgument(llvm::outs(), "%" + name, arg);
    if (saveOutputs.empty())
      continue;
    if (std::error_code ec = llvm::sys::fs::create_directories(saveOutputs))
      return fail("cannot create '" + saveOutputs + "': " + ec.message());
    SmallString<128> path(saveOutputs.getValue());
    llvm::sys::path::append(path, name + ".npy");
    std::string error;
    if (!ext::writeNpy(path, arg, error))
      return fail("cannot write '" + path + "': " + error);
  }
  if (printOutputs && !anyChanged && !arguments.empty())
    llvm::outs() << "(the run changed no argument)\n";
  llvm::outs().flush();
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::registerAllPasses();
  ext::registerAllPasses();
  // The context reads --mlir-print-op-on-diagnostic (off unless asked).
  mlir::registerMLIRContextCLOptions();
  ext::showOnlyToolOptions({"mlir-print-op-on-diagnostic"});
  llvm::SmallVector<char *> args = ext::withQuietDiagnostics(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      args.size(), args.data(),
      "ext-run: run @main (or --entry) of an MLIR module on the CPU, gpu "
      "kernels on ext's emulator, or on an NVIDIA GPU\n\n"
      "  ext-run gemm.mlir\n"
      "  ext-run --entry=gemm --random-inputs=1 --print-outputs gemm.mlir\n");
  std::optional<uint64_t> seed;
  if (randomInputs.getNumOccurrences()) {
    uint64_t value;
    if (StringRef(randomInputs).getAsInteger(10, value))
      return fail("--random-inputs must be a non-negative integer seed");
    seed = value;
  }
  if (optLevel > 3)
    return fail("-O must be 0, 1, 2 or 3");
  // Typed options for the emulator of this process' calls; what a flag
  // leaves unset the runtime takes from EXT_EMU_* (as mlir-runner users do).
  ext::runner::EmulatorOptions emulator;
  if (emuSeed.getNumOccurrences()) {
    uint64_t seed;
    if (StringRef(emuSeed).getAsInteger(10, seed))
      return fail("--emu-seed must be a non-negative integer");
    emulator.seed = seed;
  }
  if (emuSchedule.getNumOccurrences()) {
    emulator.schedule = ext::runner::parseSchedule(emuSchedule);
    if (!emulator.schedule)
      return fail("--emu-schedule must be random, round-robin or sequential");
  }
  if (emuThreads.getNumOccurrences()) {
    uint64_t threads;
    if (StringRef(emuThreads).getAsInteger(10, threads) || threads > 4096)
      return fail("--emu-threads must be an integer from 0 to 4096");
    emulator.threads = threads;
  }
  if (racecheck) {
    if (target != Target::Cpu)
      return fail("--racecheck needs --target=cpu");
    emulator.racecheck = true;
  }
  if (bankConflicts) {
    if (target != Target::Cpu)
      return fail("--bank-conflicts needs --target=cpu");
    emulator.bankConflicts = true;
  }

  DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  ext::registerAllDialects(registry);
  for (const std::string &path : dialectPlugins)
    if (llvm::Error err = ext::loadDialectPlugin(path, registry))
      return fail(llvm::toString(std::move(err)));
  for (const std::string &path : passPlugins)
    if (llvm::Error err = ext::loadPassPlugin(path))
      return fail(llvm::toString(std::move(err)));
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
  bool takesArguments = entry.getFunctionType().getNumInputs() != 0;
  if (!takesArguments && entry.getFunctionType().getNumResults() != 0) {
    entry.emitError() << "@" << entryPoint << " must return nothing";
    return 1;
  }
  if (takesArguments && entryPoint == "main" &&
      !entryPoint.getNumOccurrences()) {
    entry.emitError() << "@main must take no arguments and return nothing "
                         "(to run a function on generated or .npy inputs: "
                         "--entry=NAME --random-inputs=SEED or --inputs=...)";
    return 1;
  }
  if (!takesArguments && (inputFiles.getNumOccurrences() || seed))
    return fail("@" + entryPoint + " takes no arguments to fill");
  if (takesArguments && target == Target::Cuda)
    return fail("--target=cuda runs functions without arguments; run @" +
                entryPoint + " on --target=cpu");
  // Before lowering: which arguments the function writes.
  std::vector<bool> written = writtenArguments(entry);
  std::vector<ext::MemRefArgument> arguments;
  if (takesArguments) {
    ext::ArgumentOptions argumentOptions;
    argumentOptions.randomSeed = seed;
    argumentOptions.inputFiles.assign(inputFiles.begin(), inputFiles.end());
    FailureOr<std::vector<ext::MemRefArgument>> made =
        ext::makeArguments(entry, argumentOptions);
    if (failed(made))
      return 1;
    arguments = std::move(*made);
  }

  namespace runner = ext::runner;
  runner::CompileOptions options;
  options.target =
      target == Target::Cuda ? runner::Target::Cuda : runner::Target::Cpu;
  options.optLevel = optLevel;
  options.sharedLibs.assign(sharedLibs.begin(), sharedLibs.end());
  options.cudaChip = chip;
  options.cpu.reference = reference;
  options.cpu.reuseSharedMemory = reuseSharedMemory;
  options.cpu.dropBarrier = dropBarrier;
  options.cpu.dropHazardBarriers = dropHazardBarriers;
  options.cpu.weakenAsyncWait = weakenAsyncWait;
  options.cpu.racecheck = racecheck;
  options.cpu.chip = chip.getValue();
  options.cpu.sms = static_cast<int64_t>(sms.getValue());
  // Ask for the driver before lowering (the device picks the chip), but
  // lower either way, so --print-lowered works on machines without a GPU.
  const runner::CudaRuntime *cuda = nullptr;
  if (target == Target::Cuda) {
    cuda = &runner::getCudaRuntime();
    if (!cuda->loadError.empty())
      return fail(cuda->loadError);
    if (!cuda->deviceName.empty())
      llvm::errs() << "ext-run: running on " << cuda->deviceName << " ("
                   << cuda->chip << ")\n";
  }
  // A chip's kernels run on its warps or waves, as the chip model gives
  // them (CDNA 64 lanes, RDNA and NVIDIA 32): gpu.subgroup_size, lane ids,
  // warp collectives and amdgpu.mfma all see them. The chip is --chip or
  // the module's own #ext.target.
  if (target == Target::Cpu)
    emulator.warpSize = runner::emulatorOptionsFor(*module, options).warpSize;
  std::string error;
  if (failed(runner::lower(*module, options, error))) {
    if (!error.empty())
      return fail(error);
    return fail(cuda ? "lowering for --target=cuda failed"
                     : "lowering '" + inputFilename +
                           "' with ext-cpu-pipeline failed");
  }
  if (printLowered)
    module->print(llvm::outs());
  if (cuda && !cuda->deviceError.empty())
    return fail("--target=cuda needs an NVIDIA GPU and its driver: " +
                cuda->deviceError);

  auto executable = runner::Executable::create(*module, options);
  if (!executable)
    return fail("could not compile the lowered module: " +
                llvm::toString(executable.takeError()));
  SmallVector<runner::MemRefDescriptor> descriptors;
  for (ext::MemRefArgument &arg : arguments)
    descriptors.push_back(arg.descriptor);
  runner::CallOptions call;
  call.emulator = emulator;
  // A failed launch ends the process with the runtime's own report.
  call.returnEmulatorErrors = false;
  llvm::Error err = (*executable)->call(entryPoint, descriptors, call);
  if (cuda) {
    llvm::outs().flush();
    fflush(stdout);
    cuda->reportTimings();
  }
  if (err)
    return fail(llvm::toString(std::move(err)));
  return reportOutputs(arguments, written);
}
