// ext-gpu-pipeline for NVIDIA: kernels outlined into a gpu.module carrying
// the #nvvm.target, workgroup allocs turned into addrspace(3) globals, the
// kernel in the NVVM LLVM dialect; host code untouched.
// The default chip is sm_80.

// ext-reuse-shared-memory (on by default) packs the two tiles, live together
// in the k loop, into one 2048-byte buffer; without it they stay apart.
