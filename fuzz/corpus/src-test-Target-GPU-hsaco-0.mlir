// --ext-to-hsaco links an AMDHSA code object with the build's ROCm-shaped
// toolkit folder (Debian's device libraries, lld-22): the kernel's symbol
// and its descriptor are in the ELF, for gfx90a and gfx942.

// Code object v5 (ELF ABI version 3), the pipeline's default abi=500.
