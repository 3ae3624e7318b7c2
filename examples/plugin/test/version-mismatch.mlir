// A plugin built against another ext version (the same code, linked with
// the version ExtExamplePluginOtherVersion claims) is refused by the
// installed tools before any of its code runs, with both versions named.
// RUN: not ext-opt %s --load-dialect-plugin=%other_version_plugin 2>&1 | FileCheck %s -DVERSION=%ext_version
// RUN: not ext-opt %s --load-pass-plugin %other_version_plugin 2>&1 | FileCheck %s -DVERSION=%ext_version
// RUN: not ext-run %s --load-dialect-plugin=%other_version_plugin 2>&1 | FileCheck %s -DVERSION=%ext_version
// RUN: not ext-run %s --load-pass-plugin=%other_version_plugin 2>&1 | FileCheck %s -DVERSION=%ext_version
// CHECK: error: plugin '{{.*}}ExtExamplePluginOtherVersion{{.*}}' was built against ext 0.0.0-other, but this is ext [[VERSION]]: rebuild it against this ext's installed package
// CHECK-NOT: Stack dump

// The right version loads (and this file then runs).
// RUN: ext-run %s --load-dialect-plugin=%plugin --load-pass-plugin=%plugin | FileCheck %s --check-prefix=OK
// OK: rank = 0 offset = 0 sizes = [] strides = [] data =
// OK-NEXT: [7]

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @main() {
  %m = memref.alloc() : memref<f32>
  %c = arith.constant 7.0 : f32
  memref.store %c, %m[] : memref<f32>
  %u = memref.cast %m : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %m : memref<f32>
  return
}
