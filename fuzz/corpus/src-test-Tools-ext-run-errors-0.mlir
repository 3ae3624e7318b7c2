// ext-run fails with a diagnostic and a non-zero status, never a crash.

// A syntax error: the parser's message at its location, no stack dump.



// An invalid ext.compute: the verifier's message, then ext-run's.

// A module the CPU pipeline cannot take to the LLVM dialect.
