// ext-opt and ext-run read a plugin file before loading it (its ext
// version, ext/Support/Plugins.h): what is not a loadable plugin is a
// clear error, never a crash. Real plugins are tested in examples/plugin,
// built against the installed ext (scripts/test.sh).

// RUN: not ext-opt %s --load-dialect-plugin=%t.missing%shlibext 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not ext-opt %s --load-pass-plugin %t.missing%shlibext 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not ext-run %s --load-dialect-plugin=%t.missing%shlibext 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: could not read plugin '{{.*}}.missing{{.*}}': {{[Nn]}}o such file or directory

// RUN: not ext-opt %s --load-dialect-plugin=%s 2>&1 | FileCheck %s --check-prefix=NOTOBJECT
// RUN: not ext-run %s --load-pass-plugin=%s 2>&1 | FileCheck %s --check-prefix=NOTOBJECT
// NOTOBJECT: error: could not read plugin '{{.*}}plugin.mlir': The file was not recognized as a valid object file

// A shared object without the entry point: MLIR's loader says so.
// RUN: not ext-run %s --load-dialect-plugin=%ext_libs/libExtSupport%shlibext 2>&1 | FileCheck %s --check-prefix=NOENTRY
// NOENTRY: error: could not load plugin '{{.*}}libExtSupport{{.*}}': {{.*}}entry point not found

func.func @main() {
  return
}
