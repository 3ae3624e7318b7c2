//===- ext-fuzz.cpp - a fuzz target over ext's parser, verifiers, passes --===//
//
// One input is one MLIR file. It is parsed with ext's and upstream's dialects
// registered (the same registry as ext-opt) and verified; when it verifies,
// every ext pass and pipeline in the global pass registry runs on a clone of
// it, and the result is printed. A finding is anything that is not a
// diagnostic:
//
//  - a crash, an assert, a sanitizer report (the build adds ASan and UBSan);
//  - a pass that succeeds and leaves IR that does not verify (checked after
//    every pass of a pipeline, so the pass to blame is named);
//  - a pass that fails without reporting an error.
//
// The last two abort() with a message on stderr, which libFuzzer records as a
// crash. Passes are discovered, not listed: every registry entry whose
// argument starts with "ext-" is run, so a pass registered later is fuzzed
// without a change here. A pipeline runs up to, not including, its first
// serialization pass (gpu-module-to-binary needs external tools).
//
// The same file builds into libFuzzer's `ext-fuzz` (the fuzz build) and into
// `ext-fuzz-replay` (every build, a plain main that runs files through this
// entry point), which CI uses to replay the corpus.
//
// EXT_FUZZ_VERBOSE=1 prints the diagnostics and which pipelines ran.
//
//===----------------------------------------------------------------------===//

#include "ext/InitAll.h"
#include "ext/Support/ParserHazards.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// Passes that leave the compiler (they need ptxas, ld.lld, a toolkit): a
/// pipeline is fuzzed up to the first of them.
const char *const kSerializationPasses[] = {"gpu-module-to-binary"};

struct FuzzSetup {
  DialectRegistry registry;
  /// (name, textual pipeline) for every ext pass and pipeline.
  std::vector<std::pair<std::string, std::string>> pipelines;
  bool verbose = false;
};

FuzzSetup *setup = nullptr;

/// The textual form of `pm`'s top-level passes up to its first serialization
/// pass; `truncated` says whether one was dropped.
std::string textUpToSerialization(OpPassManager &pm, bool &truncated) {
  std::string text;
  llvm::raw_string_ostream os(text);
  truncated = false;
  bool first = true;
  for (Pass &pass : pm.getPasses()) {
    if (llvm::is_contained(kSerializationPasses, pass.getArgument())) {
      truncated = true;
      break;
    }
    if (!first)
      os << ",";
    first = false;
    pass.printAsTextualPipeline(os);
  }
  return text;
}

void discoverExtPipelines(FuzzSetup &s) {
  // A PassPipelineCLParser with no argument name registers one command-line
  // flag per registered pass and pipeline (as ext-opt's --ext-compute-to-loops):
  // that is the only public enumeration of the pass registry.
  static PassPipelineCLParser parser("", "ext-fuzz: registered passes");
  std::vector<std::string> names;
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    StringRef name = entry.first;
    if (name.starts_with("ext-") &&
        (PassInfo::lookup(name) || PassPipelineInfo::lookup(name)))
      names.push_back(name.str());
  }
  llvm::sort(names);

  MLIRContext ctx(s.registry, MLIRContext::Threading::DISABLED);
  /// (name, textual pipeline) of each ext pass, and of each pipeline.
  std::vector<std::pair<std::string, std::string>> passes, pipelines;
  for (const std::string &name : names) {
    PassManager pm(&ctx);
    if (failed(parsePassPipeline(name, pm, llvm::errs()))) {
      llvm::errs() << "ext-fuzz: cannot build " << name << "\n";
      std::abort();
    }
    bool truncated;
    std::string text = textUpToSerialization(pm, truncated);
    if (text.empty())
      continue;
    if (PassInfo::lookup(name)) {
      // A pass anchored on an op nested in the module (gpu.module) runs
      // nested, as a pipeline author writes it: at the top level it would only
      // fail to schedule.
      std::optional<StringRef> anchor = pm.getPasses().begin()->getOpName();
      if (anchor && *anchor != ModuleOp::getOperationName())
        text = (*anchor + "(" + text + ")").str();
      passes.push_back({name, text});
      s.pipelines.push_back({name, text});
      // The same pass with every boolean option on (reports, debugging
      // switches): those paths are code too.
      std::string allOn = text;
      size_t pos;
      while ((pos = allOn.find("=false")) != std::string::npos)
        allOn.replace(pos, 6, "=true");
      if (allOn != text)
        s.pipelines.push_back({name + " (boolean options on)", allOn});
      continue;
    }
    pipelines.push_back({name + (truncated ? " (to serialization)" : ""), text});
  }
  for (auto &[name, text] : pipelines) {
    s.pipelines.push_back({name, text});
    // A pipeline followed by the ext passes it lacks (ext-schedule-to-gpu
    // leaves workgroup buffers to ext-gpu-reuse-shared-memory): a pass then sees
    // what another produced, not only what a test author wrote.
    std::string chain = text;
    for (auto &[passName, passText] : passes)
      if (text.find(passName) == std::string::npos)
        chain += "," + passText;
    if (chain != text)
      s.pipelines.push_back({name + " + the other ext passes", chain});
  }
  if (s.pipelines.empty()) {
    llvm::errs() << "ext-fuzz: no ext pass is registered\n";
    std::abort();
  }
}

/// Verifies after every pass that succeeded (the pass manager's own verifier
/// is off, so a pass that breaks the IR is named, not just reported).
struct VerifyAfterEachPass : public PassInstrumentation {
  std::string pipeline;
  explicit VerifyAfterEachPass(std::string pipeline)
      : pipeline(std::move(pipeline)) {}
  void runAfterPass(Pass *pass, Operation *op) override {
    if (succeeded(verify(op)))
      return;
    llvm::errs() << "ext-fuzz: FINDING: pass '" << pass->getArgument()
                 << "' (in '" << pipeline
                 << "') succeeded but left IR that does not verify\n";
    op->print(llvm::errs(), OpPrintingFlags().printGenericOpForm());
    llvm::errs() << "\n";
    std::abort();
  }
};

void printQuietly(Operation *op, bool generic) {
  llvm::raw_null_ostream os;
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  op->print(os, flags);
}

} // namespace

// Only ext's code is instrumented; libMLIR.so and libLLVM.so are the
// installed, uninstrumented ones. LLVM's headers poison the free space of a
// BumpPtrAllocator slab when compiled with ASan, so a slab that ext's inlined
// copy poisoned and the library's copy hands out reads as use-after-poison:
// user poisoning is ignored (real heap errors are still found). The same goes
// for container annotations.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0:detect_container_overflow=0";
}

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  setup = new FuzzSetup();
  const char *verbose = std::getenv("EXT_FUZZ_VERBOSE");
  setup->verbose = verbose && *verbose && *verbose != '0';

  registerAllPasses();
  ext::registerAllPasses();
  registerAllDialects(setup->registry);
  registerAllExtensions(setup->registry);
  registerAllToLLVMIRTranslations(setup->registry);
  ext::registerAllDialects(setup->registry);

  discoverExtPipelines(*setup);
  if (setup->verbose)
    for (auto &[name, text] : setup->pipelines)
      llvm::errs() << "ext-fuzz: fuzzing " << name << ": " << text << "\n";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!setup)
    LLVMFuzzerInitialize(nullptr, nullptr);
  bool verbose = setup->verbose;
  // A null-terminated copy: the lexer may look one past the end.
  std::string source(reinterpret_cast<const char *>(data), size);

  MLIRContext ctx(setup->registry, MLIRContext::Threading::DISABLED);
  // Errors are expected (most inputs are invalid); only their absence on a
  // failing pass is a finding.
  unsigned errors = 0;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      ++errors;
    if (verbose)
      llvm::errs() << diag.getLocation() << ": " << diag << "\n";
    return success();
  });

  // Text the installed parser crashes on is rejected, as ext's tools do.
  if (ext::findParserHazard(source))
    return 0;
  // parseSourceString verifies what it parsed.
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
  if (!module)
    return 0;
  printQuietly(*module, /*generic=*/false);
  printQuietly(*module, /*generic=*/true);

  for (auto &[name, text] : setup->pipelines) {
    OwningOpRef<ModuleOp> clone = cast<ModuleOp>((*module)->clone());
    PassManager pm(&ctx);
    pm.enableVerifier(false);
    if (failed(parsePassPipeline(text, pm))) {
      llvm::errs() << "ext-fuzz: cannot parse pipeline " << text << "\n";
      std::abort();
    }
    pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>(name));
    unsigned errorsBefore = errors;
    LogicalResult result = pm.run(*clone);
    if (verbose)
      llvm::errs() << "ext-fuzz: " << name << ": "
                   << (succeeded(result) ? "ok" : "failed") << "\n";
    if (failed(result)) {
      if (errors == errorsBefore) {
        llvm::errs() << "ext-fuzz: FINDING: '" << name
                     << "' failed without reporting an error\n";
        std::abort();
      }
      continue;
    }
    printQuietly(*clone, /*generic=*/false);
  }
  return 0;
}
