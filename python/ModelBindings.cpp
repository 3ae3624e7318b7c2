//===- ModelBindings.cpp - the hardware model in Python -------------------===//

#include "ModelBindings.h"

#include "ext/Model/BankConflicts.h"
#include "ext/Model/Chip.h"
#include "ext/Model/MatrixInstructions.h"
#include "ext/Model/TileWork.h"

#include <pybind11/stl.h>

namespace py = pybind11;

namespace {

namespace tw = ext::tilework;

/// The cost model's decomposition kinds by name (`split_k` with a mode).
tw::Kind kindOf(const std::string &name) {
  if (std::optional<tw::Kind> kind = tw::kindNamed(name))
    return *kind;
  throw py::value_error("unknown decomposition '" + name +
                        "' (data_parallel, split_k, split_k_parallel, "
                        "stream_k, stream_k_dp, stream_k_2tile)");
}

py::dict predictionDict(const tw::Prediction &p) {
  py::dict d;
  d["makespan"] = p.makespan;
  d["utilization"] = p.utilization;
  d["grid"] = p.grid;
  d["waves"] = p.waves;
  d["max_iters_per_cta"] = p.maxItersPerCta;
  d["fixups"] = p.fixups;
  return d;
}

tw::CostModel costOf(int64_t tileK) {
  if (tileK < 1)
    throw py::value_error("tile_k must be positive");
  return tw::CostModel::forTileK(tileK);
}

/// What ext's cost model (ext/Model/TileWork.h) predicts for one
/// decomposition of a problem; what `auto` weighs.
py::dict predictWork(const std::string &name, int64_t tiles, int64_t iters,
                     int64_t sms, int64_t param, int64_t tileK) {
  std::string why;
  std::optional<tw::Plan> plan =
      tw::makePlan(kindOf(name), tiles, iters, sms, param, &why);
  if (!plan)
    throw py::value_error("decomposition " + name + " cannot " + why);
  std::optional<tw::Prediction> p = tw::predict(*plan, sms, costOf(tileK));
  if (!p)
    throw py::value_error("the cost model cannot predict this plan");
  return predictionDict(*p);
}

/// `#ext.auto`'s choice at launch (the launch planner's function).
py::tuple chooseAtLaunch(int64_t tiles, int64_t iters, int64_t sms,
                         int64_t tileK) {
  // The model divides by each of them: a clear error, not an abort.
  for (auto [name, v] : {std::pair<const char *, int64_t>{"tiles", tiles},
                         {"iters", iters}, {"sms", sms}, {"tile_k", tileK}})
    if (v < 1)
      throw py::value_error(std::string("choose_at_launch: ") + name +
                            " must be at least 1, got " + std::to_string(v));
  tw::Prediction p;
  int64_t i = tw::chooseAtLaunch(tiles, iters, sms, costOf(tileK), &p);
  if (i < 0)
    throw py::value_error("no candidate can run the problem");
  return py::make_tuple(tw::kindName(tw::kLaunchCandidates[i]).str(),
                        predictionDict(p));
}

/// The chip model (ext/Model/Chip.h) as a dict:
/// what the tuner's space and cost model read, from the same table as the
/// passes' limits.
ext::ChipInfo chipOrThrow(const std::string &name) {
  std::optional<ext::ChipInfo> c = ext::lookupChipInfo(name);
  if (!c)
    throw py::value_error("chip '" + name + "' " +
                          ext::unknownChipMessage().str());
  return *c;
}

py::dict chipInfo(const std::string &name) {
  ext::ChipInfo c = chipOrThrow(name);
  ext::ChipThroughput t = ext::lookupChipThroughput(c);
  py::dict d;
  d["name"] = c.name;
  d["vendor"] = c.isNvidia() ? "nvidia" : "amd";
  d["sm_version"] = c.smVersion;
  d["multiprocessors"] = c.multiprocessors;
  d["static_shared_bytes_per_block"] = c.staticSharedBytesPerBlock;
  d["max_shared_bytes_per_block"] = c.maxSharedBytesPerBlock;
  d["max_threads_per_block"] = c.maxThreadsPerBlock;
  d["max_block_dim"] = py::make_tuple(c.maxBlockDim[0], c.maxBlockDim[1],
                                      c.maxBlockDim[2]);
  d["max_registers_per_thread"] = c.maxRegistersPerThread;
  d["warp_size"] = c.warpSize;
  d["shared_banks"] = c.sharedBanks;
  d["bank_bytes"] = c.bankBytes;
  d["has_bank_model"] = c.hasBankModel;
  d["registers_per_block"] = c.registersPerBlock;
  d["max_cluster_ctas"] = c.maxClusterCtas;
  d["has_async_copy"] = c.hasAsyncCopy;
  d["has_clusters"] = c.hasClusters;
  d["has_tma"] = c.hasTma;
  d["has_redux"] = c.hasRedux;
  d["has_fp8"] = c.hasFp8;
  d["has_mma_sync"] = c.hasMmaSync;
  d["has_warpgroup_mma"] = c.hasWarpgroupMma;
  d["has_mfma"] = c.hasMfma;
  d["product"] = t.product;
  d["clock_hz"] = t.clockHz;
  d["fp32_fma_per_clock"] = t.fp32FmaPerClock;
  d["tensor_f16_tflops"] = t.tensorF16Tflops;
  d["dram_bytes_per_second"] = t.dramBytesPerSecond;
  d["l2_bytes_per_second"] = t.l2BytesPerSecond;
  d["l2_bytes"] = t.l2Bytes;
  d["shared_bytes_per_clock"] = t.sharedBytesPerClock;
  d["shared_bytes_per_multiprocessor"] = t.sharedBytesPerMultiprocessor;
  d["registers_per_multiprocessor"] = t.registersPerMultiprocessor;
  d["max_threads_per_multiprocessor"] = t.maxThreadsPerMultiprocessor;
  d["max_blocks_per_multiprocessor"] = t.maxBlocksPerMultiprocessor;
  d["register_granule"] = t.registerGranule;
  d["global_latency_clocks"] = t.globalLatencyClocks;
  return d;
}

/// The chip flag an instruction needs, by chip_info's key.
const char *featureKey(ext::MatrixFeature f) {
  switch (f) {
  case ext::MatrixFeature::MmaSync:
    return "has_mma_sync";
  case ext::MatrixFeature::WarpgroupMma:
    return "has_warpgroup_mma";
  case ext::MatrixFeature::Mfma:
    return "has_mfma";
  }
  return "";
}

/// The matrix instruction table (ext/Model/MatrixInstructions.h), a dict
/// per row.
py::list matrixInstructionRows() {
  py::list rows;
  for (const ext::MatrixInstruction &mi : ext::matrixInstructions()) {
    py::dict d;
    d["name"] = mi.name.str();
    d["mnemonic"] = mi.mnemonic.str();
    d["vendor"] = mi.vendor == ext::GpuVendor::Nvidia ? "nvidia" : "amd";
    d["feature"] = featureKey(mi.feature);
    d["m"] = mi.m;
    d["n"] = mi.n;
    d["k"] = mi.k;
    d["warps"] = mi.warps;
    d["lanes"] = mi.lanes;
    py::list inputs;
    for (llvm::StringRef in : mi.inputs)
      if (!in.empty())
        inputs.append(in.str());
    d["inputs"] = py::tuple(inputs);
    d["inputs_text"] = mi.inputsText.str();
    d["rounds_inputs"] = mi.roundsInputs;
    d["accumulators"] = mi.accumulators == ext::AccumulatorLayout::NvidiaQuads
                            ? "nvidia_quads"
                            : "amd_columns";
    d["peak_fraction"] = mi.peakFraction;
    d["peak_fraction_sm90"] = mi.peakFractionSm90;
    rows.append(d);
  }
  return rows;
}

/// Wavefronts of one warp-wide shared access under ext's bank model
/// (ext/Model/BankConflicts.h): the rule the static analysis and the
/// emulator's counter use.
py::dict bankCost(const std::vector<int64_t> &addresses, unsigned bytes,
                  const std::string &chip) {
  std::optional<ext::bank::BankModel> model =
      ext::bank::BankModel::of(chipOrThrow(chip));
  if (!model)
    throw py::value_error("ext has no bank model of " + chip);
  if (addresses.size() != model->warpSize)
    throw py::value_error("expected " + std::to_string(model->warpSize) +
                          " lane addresses, got " +
                          std::to_string(addresses.size()));
  if (bytes == 0 || bytes > 16 || (bytes & (bytes - 1)))
    throw py::value_error("bytes must be 1, 2, 4, 8 or 16");
  ext::bank::Cost cost =
      ext::bank::countWavefronts(*model, addresses.data(), nullptr, bytes);
  py::dict d;
  d["wavefronts"] = cost.wavefronts;
  d["phases"] = cost.phases;
  d["degree"] = cost.degree;
  return d;
}

} // namespace

void ext::python::bindModel(py::module &m) {
  m.def("predict_work", &predictWork, py::arg("decomposition"),
        py::arg("tiles"), py::arg("iters"), py::arg("sms"),
        py::arg("param") = 0, py::arg("tile_k") = 16,
        "The cost model's prediction (makespan in main-loop iterations, "
        "utilization, grid, waves, max_iters_per_cta, fixups) for\n"
        "`tiles` tiles of `iters` iterations on `sms` SMs; `param` is "
        "split-K's slices or Stream-K's grid (0: sms), `tile_k` the\n"
        "reduce tile (a fixup costs 3 / tile_k iterations).\n\n"
        "    >>> ext.predict_work(\"stream_k\", 32, 64, 132)[\"utilization\"]");
  m.def("choose_at_launch", &chooseAtLaunch, py::arg("tiles"),
        py::arg("iters"), py::arg("sms"), py::arg("tile_k") = 16,
        "What `#ext.auto` chooses at launch over a tile count known only "
        "then: (name, prediction), the same function the host code calls.");
  m.def("chip_info", &chipInfo, py::arg("chip"),
        "ext's model of `chip` (sm_NN[a], gfxNNN): limits, instructions, "
        "rates of its usual product (clock, FMA lanes, tensor peak, DRAM "
        "and assumed L2 bandwidth) and per-multiprocessor occupancy limits.\n\n"
        "    >>> ext.chip_info(\"sm_90\")[\"multiprocessors\"]\n    132");
  m.def("bank_cost", &bankCost, py::arg("addresses"), py::arg("bytes"),
        py::arg("chip"),
        "Wavefronts, phases and degree (N-way) of one warp-wide shared "
        "access: a byte address per lane, `bytes` per lane.\n\n"
        "    >>> ext.bank_cost([128 * l for l in range(32)], 4, \"sm_80\")"
        "[\"degree\"]\n    32");
  m.def(
      "default_chip",
      [](const std::string &target) {
        if (target == "rocdl")
          return ext::kDefaultAmdChip.str();
        if (target == "nvvm" || target == "cpu")
          return ext::kDefaultChip.str();
        throw py::value_error("unknown target '" + target +
                              "' (nvvm, rocdl, cpu)");
      },
      py::arg("target") = "nvvm",
      "The chip ext compiles for when none is given: NVIDIA's for nvvm and "
      "cpu, AMD's for rocdl.");
  m.def(
      "matrix_peak_fraction",
      [](const std::string &name, const std::string &chip) {
        const ext::MatrixInstruction *mi = ext::lookupMatrixInstruction(name);
        if (!mi)
          throw py::value_error("no matrix instruction '" + name + "'");
        return mi->peakFractionOn(chipOrThrow(chip));
      },
      py::arg("name"), py::arg("chip"),
      "The share of `chip`'s f16 matrix peak instruction `name` reaches.");
  m.def("matrix_instructions", &matrixInstructionRows,
        "ext's table of warp-level matrix instructions: name, mnemonic, "
        "vendor, feature (the chip_info flag it needs), m/n/k per warp, "
        "warps per instruction, lanes, inputs, rounds_inputs (tf32), "
        "accumulators, peak_fraction (of the f16 matrix peak; "
        "peak_fraction_sm90 on sm_90 and later).");
}
