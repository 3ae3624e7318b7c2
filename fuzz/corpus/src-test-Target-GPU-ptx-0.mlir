// The three kernels through ext-gpu-pipeline and --ext-to-ptx, assembled by
// CUDA's ptxas for sm_80 and for sm_90 (each PTX made for its own chip).
// ptxas does reject what it should: PTX for sm_90 is not sm_80 code.
