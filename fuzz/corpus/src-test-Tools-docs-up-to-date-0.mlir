// The committed references in docs/generated/ match what mlir-tblgen makes of
// the current TableGen; regenerate them with `ninja -C build ext-docs`.
