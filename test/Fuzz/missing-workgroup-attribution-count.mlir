// RUN: ext-opt %s --split-input-file --ext-alloc-shared-to-workgroup | FileCheck %s
// RUN: ext-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(ext-gpu-promote-workgroup-allocs))' | FileCheck %s --check-prefix=PROMOTE
// Fuzzer finding: a gpu.launch (or gpu.func) without a `workgroup_attributions`
// count verifies (no count means no buffers), but upstream's
// addWorkgroupAttribution dereferenced the missing count: SEGV in
// ext-alloc-shared-to-workgroup. ext's passes now set the count before adding.

// CHECK-LABEL: func.func @launch_without_count
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<72xf32, #gpu.address_space<workgroup>>)
// CHECK: memref.reinterpret_cast %[[BUF]]
func.func @launch_without_count() {
  %c1 = arith.constant 1 : index
  "gpu.launch"(%c1, %c1, %c1, %c1, %c1, %c1) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
  ^bb0(%a0: index, %a1: index, %a2: index, %a3: index, %a4: index, %a5: index, %a6: index, %a7: index, %a8: index, %a9: index, %a10: index, %a11: index):
    %s = ext.alloc_shared {storage_align = [#ext.storage_align<dim = 0, factor = 8, offset = 1>]} : memref<8x8xf32, strided<[9, 1]>, #gpu.address_space<workgroup>>
    "gpu.terminator"() : () -> ()
  }) : (index, index, index, index, index, index) -> ()
  return
}

// -----

// PROMOTE-LABEL: gpu.func @func_without_count
// PROMOTE-SAME: workgroup(%{{.*}} : memref<16xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// PROMOTE-NOT: memref.alloca
module attributes {gpu.container_module} {
  gpu.module @m {
    "gpu.func"() <{function_type = () -> ()}> ({
      %b = memref.alloca() : memref<16xf32, #gpu.address_space<workgroup>>
      "gpu.return"() : () -> ()
    }) {sym_name = "func_without_count", gpu.kernel} : () -> ()
  }
}
