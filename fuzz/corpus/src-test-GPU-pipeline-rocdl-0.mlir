// ext-gpu-pipeline for AMD: the same kernels in the ROCDL LLVM dialect under
// a #rocdl.target (code object v5 by default).

// ext-reuse-shared-memory (on by default) packs the two tiles, live together
// in the k loop, into one 2048-byte buffer; without it they stay apart.
