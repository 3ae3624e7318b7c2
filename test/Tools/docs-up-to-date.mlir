// The committed references in docs/generated/ match what mlir-tblgen makes of
// the current TableGen; regenerate them with `ninja -C build ext-docs`.
// RUN: diff %ext_src/docs/generated/ExtOps.md %ext_obj/docs/Ext/ExtOps.md
// RUN: diff %ext_src/docs/generated/ExtAttrs.md %ext_obj/docs/Ext/ExtAttrs.md
// RUN: diff %ext_src/docs/generated/ExtDialect.md %ext_obj/docs/Ext/ExtDialect.md
// RUN: diff %ext_src/docs/generated/ExtPasses.md %ext_obj/docs/Ext/ExtPasses.md
// RUN: diff %ext_src/docs/generated/ExtInterfaces.md %ext_obj/docs/Ext/ExtInterfaces.md
// RUN: diff %ext_src/docs/generated/ExtOpInterfaces.md %ext_obj/docs/Ext/ExtOpInterfaces.md
// RUN: diff %ext_src/docs/generated/ExtGPUPasses.md %ext_obj/docs/Ext/ExtGPUPasses.md
// RUN: diff %ext_src/docs/generated/ExtConversionPasses.md %ext_obj/docs/Ext/ExtConversionPasses.md
