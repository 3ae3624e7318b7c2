// Every generated kernel (each example under examples/kernels, with and
// without ext-reuse-shared-memory) runs under the emulator's race detection
// and has no race; the script globs the directory, so new examples are
// covered. The debug options that drop a barrier give the expected reports.

// The barrier after the shared-memory copies dropped: threads read the tiles
// other threads are writing, and the next copies overwrite tiles still read.
// Each side names its phase of the schedule and the tile it touches.

// Shared-memory reuse without its hazard barrier: B's writes overwrite A
// while other threads still read it; the report names both buffers that
// share the bytes.
