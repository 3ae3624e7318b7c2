// RUN: ext-opt %s --pass-pipeline='builtin.module(gpu.module(ext-instrument-global-accesses))' -split-input-file | FileCheck %s

// Every global (non-workgroup) load and store of a device function gets a
// call of __ext_emu_access before it: address, bytes, kind (32 | 1 = global
// load, 32 | 2 = global store) and its site, numbered per gpu.module and left
// in `ext.emu_sites`. Workgroup accesses and atomics are left alone (the
// emulation lowering reports those).
// CHECK-LABEL: gpu.module @m
// CHECK-SAME: ext.emu_sites = ["{{.*}}instrument-global-accesses.mlir:[[@LINE+30]]:12", "{{.*}}instrument-global-accesses.mlir:[[@LINE+31]]:7", "{{.*}}instrument-global-accesses.mlir:[[@LINE+38]]:12"]
// CHECK: func.func private @__ext_emu_access(i64, i64, i32, i32)
// CHECK-LABEL: gpu.func @k(
// CHECK-SAME: %[[IN:.*]]: memref<8xf32, #gpu.address_space<global>>, %[[OUT:.*]]: memref<8xf32>
// CHECK:   %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK:   %{{.*}}, %[[OFF:.*]], %{{.*}}, %[[STRIDE:.*]] = memref.extract_strided_metadata %[[IN]]
// CHECK:   %[[FOUR:.*]] = arith.constant 4 : index
// CHECK:   %[[ADDR64:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:   %[[BYTES:.*]] = arith.constant 4 : i64
// CHECK:   %[[LOAD:.*]] = arith.constant 33 : i32
// CHECK:   %[[S0:.*]] = arith.constant 0 : i32
// CHECK:   call @__ext_emu_access(%[[ADDR64]], %[[BYTES]], %[[LOAD]], %[[S0]])
// CHECK:   %[[V:.*]] = memref.load %[[IN]]
// CHECK:   %[[STORE:.*]] = arith.constant 34 : i32
// CHECK:   %[[S1:.*]] = arith.constant 1 : i32
// CHECK:   call @__ext_emu_access(%{{.*}}, %{{.*}}, %[[STORE]], %[[S1]])
// CHECK:   memref.store %[[V]], %[[OUT]]
// CHECK-NOT: __ext_emu_access
// CHECK:   memref.load %{{.*}} : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: __ext_emu_access
// CHECK:   memref.atomic_rmw
// CHECK-LABEL: func.func @helper(
// CHECK:   %[[S2:.*]] = arith.constant 2 : i32
// CHECK:   call @__ext_emu_access(%{{.*}}, %{{.*}}, %{{.*}}, %[[S2]])
// CHECK:   memref.load
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%in: memref<8xf32, #gpu.address_space<global>>, %out: memref<8xf32>)
        workgroup(%tile : memref<4xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %in[%c0] : memref<8xf32, #gpu.address_space<global>>
      memref.store %v, %out[%c0] : memref<8xf32>
      %w = memref.load %tile[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
      %old = memref.atomic_rmw addf %w, %out[%c0] : (f32, memref<8xf32>) -> f32
      gpu.return
    }
    func.func @helper(%m: memref<2xi64>) -> i64 {
      %c1 = arith.constant 1 : index
      %x = memref.load %m[%c1] : memref<2xi64>
      return %x : i64
    }
  }
}

// -----

// A module without global accesses is left as it is.
// CHECK-LABEL: gpu.module @none
// CHECK-NOT: ext.emu_sites
// CHECK-NOT: __ext_emu_access
module attributes {gpu.container_module} {
  gpu.module @none {
    gpu.func @k(%n: index) kernel {
      gpu.return
    }
  }
}
