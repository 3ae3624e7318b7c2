// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-gpu-stage-kernel-operands | FileCheck %s

// Each distinct host memref gets a device buffer: allocated and filled on
// one stream before the launch, copied back (only when the kernel writes it)
// and freed on another after it. %a is passed twice: one buffer.
// CHECK-LABEL: func.func @host
// CHECK-SAME: (%[[A:.*]]: memref<8xf32>, %[[B:.*]]: memref<?xf32>)
// CHECK: %[[T0:.*]] = gpu.wait async
// CHECK: %[[DA:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] () : memref<8xf32>
// CHECK: %[[T2:.*]] = gpu.memcpy async [%[[T1]]] %[[DA]], %[[A]]
// CHECK: %[[N:.*]] = memref.dim %[[B]], %c0
// CHECK: %[[DB:.*]], %[[T3:.*]] = gpu.alloc async [%[[T2]]] (%[[N]]) : memref<?xf32>
// CHECK: %[[T4:.*]] = gpu.memcpy async [%[[T3]]] %[[DB]], %[[B]]
// CHECK: gpu.wait [%[[T4]]]
// CHECK: gpu.launch_func @k::@k blocks in ({{.*}}) threads in ({{.*}}) args(%[[DA]] : memref<8xf32>, %[[DB]] : memref<?xf32>, %[[DA]] : memref<8xf32>)
// CHECK: %[[T5:.*]] = gpu.wait async
// CHECK: %[[T6:.*]] = gpu.memcpy async [%[[T5]]] %[[A]], %[[DA]]
// CHECK: %[[T7:.*]] = gpu.dealloc async [%[[T6]]] %[[DA]]
// CHECK-NOT: gpu.memcpy
// CHECK: %[[T8:.*]] = gpu.dealloc async [%[[T7]]] %[[DB]]
// CHECK: gpu.wait [%[[T8]]]
// CHECK: return
module attributes {gpu.container_module} {
  func.func @host(%a: memref<8xf32>, %b: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<8xf32>, %b : memref<?xf32>, %a : memref<8xf32>)
    return
  }
  gpu.module @k {
    // %x is read, %y only read (through a subview), %z (= %a) written.
    gpu.func @k(%x: memref<8xf32>, %y: memref<?xf32>, %z: memref<8xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %v = memref.load %x[%c0] : memref<8xf32>
      %s = memref.subview %y[0] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1]>>
      %w = memref.load %s[%c0] : memref<1xf32, strided<[1]>>
      %r = arith.addf %v, %w : f32
      memref.store %r, %z[%c1] : memref<8xf32>
      gpu.return
    }
  }
}

// -----

// Non-contiguous operands cannot be copied as one block.
module attributes {gpu.container_module} {
  func.func @strided(%a: memref<4x4xf32, strided<[8, 1]>>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{kernel operand #0 of type 'memref<4x4xf32, strided<[8, 1]>>' has a non-identity layout; only contiguous memrefs can be staged to the device}}
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4x4xf32, strided<[8, 1]>>)
    return
  }
  gpu.module @k {
    gpu.func @k(%x: memref<4x4xf32, strided<[8, 1]>>) kernel {
      gpu.return
    }
  }
}

// -----

// Device memory and scalars are passed as they are.
// CHECK-LABEL: func.func @device
// CHECK-NOT: gpu.alloc
// CHECK: gpu.launch_func @k::@k
// CHECK-NOT: gpu.memcpy
module attributes {gpu.container_module} {
  func.func @device(%a: memref<8xf32, #gpu.address_space<workgroup>>, %f: f32) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<8xf32, #gpu.address_space<workgroup>>, %f : f32)
    return
  }
  gpu.module @k {
    gpu.func @k(%x: memref<8xf32, #gpu.address_space<workgroup>>, %f: f32) kernel {
      gpu.return
    }
  }
}

// -----

// A gpu.alloc'ed buffer (and a cast of one) is device memory already: passed
// as it is, no copies; the host memref beside it is staged.
// CHECK-LABEL: func.func @device
// CHECK-SAME: (%[[H:.*]]: memref<8xf32>)
// CHECK: %[[D:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<8xf32>
// CHECK: %[[C:.*]] = memref.cast %[[D]]
// CHECK: %[[T0:.*]] = gpu.wait async
// CHECK: %[[DH:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] () : memref<8xf32>
// CHECK: gpu.memcpy async [%[[T1]]] %[[DH]], %[[H]]
// CHECK: gpu.launch_func @k::@k blocks in ({{.*}}) threads in ({{.*}}) args(%[[D]] : memref<8xf32>, %[[C]] : memref<?xf32>, %[[DH]] : memref<8xf32>)
// CHECK-NOT: gpu.memcpy async [%{{.*}}] %[[D]]
// CHECK: gpu.memcpy async [%{{.*}}] %[[H]], %[[DH]]
module attributes {gpu.container_module} {
  func.func @device(%h: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    %t = gpu.wait async
    %d, %t1 = gpu.alloc async [%t] () : memref<8xf32>
    gpu.wait [%t1]
    %dc = memref.cast %d : memref<8xf32> to memref<?xf32>
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%d : memref<8xf32>, %dc : memref<?xf32>, %h : memref<8xf32>)
    return
  }
  gpu.module @k {
    gpu.func @k(%x: memref<8xf32>, %y: memref<?xf32>, %z: memref<8xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<8xf32>
      memref.store %v, %y[%c0] : memref<?xf32>
      memref.store %v, %z[%c0] : memref<8xf32>
      gpu.return
    }
  }
}
