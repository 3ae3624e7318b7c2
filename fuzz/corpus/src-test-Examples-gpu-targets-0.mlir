// Every GPU example compiles through ext-gpu-pipeline to PTX that ptxas
// accepts for sm_80 and sm_90; skipped where CUDA's ptxas is absent.

// The softmax has three kernels (max, sum, normalize), one gpu.module each.
