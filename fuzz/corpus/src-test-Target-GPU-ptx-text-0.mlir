// --ext-to-ptx writes the PTX text of the one gpu.module: the entry point,
// shared memory, barriers, shuffles, atomics, f16 arithmetic.
// The file is plain text: the NUL the driver wants is not written.
