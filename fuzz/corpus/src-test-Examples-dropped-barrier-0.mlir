// With the barrier after the shared-memory copies dropped (a debugging option
// of ext-lower-tile-ops), the emulator's interleaving lets threads read tiles
// before the other threads have written them: the GEMM is wrong, and this test
// asserts that it is (the error is not 0).
