//===- CpuEmulationPassesTest.cpp - ext::addCpuEmulationPasses ------------===//

#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"
#include "ext/Conversion/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

std::string pipelineOf(bool racecheck) {
  MLIRContext context;
  PassManager pm(&context, ModuleOp::getOperationName());
  ext::addCpuEmulationPasses(pm, racecheck);
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

// The passes in the order ext-cpu-pipeline spells them: outlining, the
// global-access instrumentation on each gpu.module only for race detection,
// then the emulation lowering.
TEST(CpuEmulationPasses, RacecheckAddsTheInstrumentation) {
  std::string plain = pipelineOf(false), race = pipelineOf(true);
  EXPECT_EQ(plain.find("ext-instrument-global-accesses"), std::string::npos)
      << plain;
  size_t outline = race.find("gpu-kernel-outlining");
  size_t instrument = race.find("gpu.module(ext-instrument-global-accesses)");
  size_t emulate = race.find("ext-gpu-to-cpu-emulation");
  ASSERT_NE(outline, std::string::npos) << race;
  ASSERT_NE(instrument, std::string::npos) << race;
  ASSERT_NE(emulate, std::string::npos) << race;
  EXPECT_LT(outline, instrument);
  EXPECT_LT(instrument, emulate);
}

} // namespace
