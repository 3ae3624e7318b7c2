// RUN: ext-run %s | FileCheck %s
// RUN: ext-run --emu-threads=1 %s | FileCheck %s
// RUN: ext-run --emu-threads=3 --emu-seed=5 %s | FileCheck %s
// RUN: not ext-run --entry=failing %s 2>&1 | FileCheck %s --check-prefix=FAIL
// Kernels on different streams run at the same time: `gpu.launch_func async`
// starts its grid once its tokens are done and returns. Two kernels on two
// streams each count themselves in at a shared counter and spin until the
// other has too (run one after the other, the first would spin forever);
// a third, on a stream joining both (`gpu.wait async [...]`), runs after
// them and reads what they wrote. A copy waits for its token too.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @meet(%count: memref<i32>, %out: memref<4xi32>, %slot: index) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %ticket = memref.atomic_rmw addi %c1, %count[] : (i32, memref<i32>) -> i32
      scf.while : () -> () {
        %seen = memref.atomic_rmw addi %c0, %count[] : (i32, memref<i32>) -> i32
        %wait = arith.cmpi slt, %seen, %c2 : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      %v = arith.addi %ticket, %c1 : i32
      memref.store %v, %out[%slot] : memref<4xi32>
      gpu.return
    }
    gpu.func @after(%out: memref<4xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %a = memref.load %out[%c0] : memref<4xi32>
      %b = memref.load %out[%c1] : memref<4xi32>
      %s = arith.addi %a, %b : i32
      memref.store %s, %out[%c2] : memref<4xi32>
      gpu.return
    }
    gpu.func @trap(%out: memref<4xi32>) kernel {
      %false = arith.constant false
      cf.assert %false, "trapped on a stream"
      gpu.return
    }
  }

  func.func private @printMemrefI32(memref<*xi32>)

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %zero = arith.constant 0 : i32
    %count = memref.alloc() : memref<i32>
    memref.store %zero, %count[] : memref<i32>
    %out = memref.alloc() : memref<4xi32>
    %copy = memref.alloc() : memref<4xi32>
    %s0 = gpu.wait async
    %s1 = gpu.wait async
    %a = gpu.launch_func async [%s0] @kernels::@meet blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%count : memref<i32>, %out : memref<4xi32>, %c0 : index)
    %b = gpu.launch_func async [%s1] @kernels::@meet blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%count : memref<i32>, %out : memref<4xi32>, %c1 : index)
    %both = gpu.wait async [%a, %b]
    %c = gpu.launch_func async [%both] @kernels::@after blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%out : memref<4xi32>)
    %d = gpu.memcpy async [%c] %copy, %out : memref<4xi32>, memref<4xi32>
    gpu.wait [%d]
    // The tickets are 0 and 1 in either order: slots 0 and 1 hold 1 and 2,
    // slot 2 their sum, slot 3 is untouched.
    // CHECK: [{{[12]}},  {{[12]}},  3,  {{-?[0-9]+}}]
    %u = memref.cast %copy : memref<4xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    return
  }

  // An asynchronous launch's error is reported by the wait that covers it.
  // FAIL: ext-emu: error: kernel 'trap' (launched at {{.*}}streams.mlir:{{[0-9]+}}:{{[0-9]+}}): thread (0, 0, 0) of block (0, 0, 0): assertion failed at {{.*}}: trapped on a stream
  func.func @failing() {
    %c1 = arith.constant 1 : index
    %out = memref.alloc() : memref<4xi32>
    %s = gpu.wait async
    %t = gpu.launch_func async [%s] @kernels::@trap blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%out : memref<4xi32>)
    gpu.wait [%t]
    return
  }
}
