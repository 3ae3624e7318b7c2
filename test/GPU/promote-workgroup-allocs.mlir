// RUN: ext-opt %s --split-input-file --verify-diagnostics --pass-pipeline="builtin.module(gpu.module(ext-gpu-promote-workgroup-allocs))" | FileCheck %s

// An identity-layout workgroup alloc becomes an attribution of the same type;
// its dealloc goes, private and global allocs stay.
// CHECK-LABEL: gpu.func @identity
// CHECK-SAME: workgroup(%[[WG:.*]] : memref<16x16xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-NOT: memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloca() : memref<4xf32, #gpu.address_space<private>>
// CHECK: memref.store %{{.*}}, %[[WG]]
// CHECK-NOT: memref.dealloc
// CHECK: gpu.return
gpu.module @m {
  gpu.func @identity(%v: f32) kernel {
    %c0 = arith.constant 0 : index
    %a = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
    %p = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
    memref.store %v, %a[%c0, %c0] : memref<16x16xf32, #gpu.address_space<workgroup>>
    memref.store %v, %p[%c0] : memref<4xf32, #gpu.address_space<private>>
    memref.dealloc %a : memref<16x16xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// A padded (strided) tile: a flat attribution spanning offset + sum((n-1)*s)
// + 1 = 15 * 17 + 15 + 1 = 271 elements, viewed with the original layout.
// An alloca and one inside a loop are promoted too.
// CHECK-LABEL: gpu.func @padded
// CHECK-SAME: workgroup(%[[FLAT:.*]] : memref<271xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[B:.*]] : memref<8xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[FLAT]] to offset: [0], sizes: [16, 16], strides: [17, 1]
// CHECK: memref.store %{{.*}}, %[[VIEW]]
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[B]]
gpu.module @m {
  gpu.func @padded(%v: f32, %i: i8) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %a = memref.alloca() : memref<16x16xf32, strided<[17, 1]>, #gpu.address_space<workgroup>>
    memref.store %v, %a[%c0, %c0] : memref<16x16xf32, strided<[17, 1]>, #gpu.address_space<workgroup>>
    scf.for %k = %c0 to %c4 step %c1 {
      %b = memref.alloc() : memref<8xi8, #gpu.address_space<workgroup>>
      memref.store %i, %b[%k] : memref<8xi8, #gpu.address_space<workgroup>>
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @dynamic(%n: index) kernel {
    // expected-error @+1 {{dynamically sized workgroup allocation 'memref<?xf32, #gpu.address_space<workgroup>>' cannot be given static shared memory}}
    %a = memref.alloc(%n) : memref<?xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @dynamic_strides(%s: index) kernel {
    // expected-error @+1 {{has a layout without static strides and offset}}
    %a = memref.alloc()[%s] : memref<4x4xf32, strided<[?, 1]>, #gpu.address_space<workgroup>>
    gpu.return
  }
}
