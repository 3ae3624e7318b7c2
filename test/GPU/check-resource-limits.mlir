// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-gpu-check-resource-limits=chip=sm_90
// RUN: not ext-opt %s --split-input-file --ext-gpu-check-resource-limits=chip=sm_80 2>&1 >/dev/null | FileCheck %s --check-prefix=SM80
// RUN: not ext-opt %s --split-input-file --ext-gpu-check-resource-limits=chip=gfx942 2>&1 >/dev/null | FileCheck %s --check-prefix=AMD
// RUN: not ext-opt %s --ext-gpu-check-resource-limits=chip=volta 2>&1 | FileCheck %s --check-prefix=CHIP
// Kernels checked against the chip's limits before outlining: shared memory
// per block, threads per block, per-thread private buffers.

// CHIP: error: ext-gpu-check-resource-limits: chip 'volta' is neither sm_NN (NVIDIA) nor gfxNNN (AMD)

// Shared tiles totalling 61,292 bytes: within sm_90's 227 KB, but more than
// the 48 KB a kernel may declare statically; ptxas would refuse it. AMD's
// 64 KB of LDS holds it.
// SM80: error: the kernel in @static_over_48k declares 61292 bytes (59.9 KB) of static shared memory; NVIDIA chips allow 49152 bytes (48.0 KB) of static shared memory per block (sm_80 gives a block up to 166912 bytes (163.0 KB) only as dynamic shared memory
// AMD-NOT: static_over_48k
func.func @static_over_48k() {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  // expected-error @below {{the kernel in @static_over_48k declares 61292 bytes (59.9 KB) of static shared memory; NVIDIA chips allow 49152 bytes (48.0 KB) of static shared memory per block (sm_90 gives a block up to 232448 bytes (227.0 KB) only as dynamic shared memory): run ext-gpu-dynamic-shared-memory first, as ext-gpu-pipeline does}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    // expected-note @below {{shared buffer 'memref<128x65xf32, #gpu.address_space<workgroup>>': 33280 bytes (32.5 KB)}}
    %a = memref.alloc() : memref<128x65xf32, #gpu.address_space<workgroup>>
    // expected-note @below {{shared buffer 'memref<7003xf32, #gpu.address_space<workgroup>>': 28012 bytes (27.4 KB)}}
    %b = memref.alloc() : memref<7003xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// 256 KB is beyond every chip's per-block limit, static or dynamic.
// SM80: error: the kernel in @shared_256k uses 262144 bytes (256.0 KB) of shared memory per block; sm_80 allows at most 166912 bytes (163.0 KB) per block
// AMD: error: the kernel in @shared_256k uses 262144 bytes (256.0 KB) of shared memory per block; gfx942 allows at most 65536 bytes (64.0 KB) of LDS per block
func.func @shared_256k() {
  %c1 = arith.constant 1 : index
  // expected-error @below {{the kernel in @shared_256k uses 262144 bytes (256.0 KB) of shared memory per block; sm_90 allows at most 232448 bytes (227.0 KB) per block: use smaller tiles or cache fewer operands in the schedule}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%w : memref<65536xf32, #gpu.address_space<workgroup>>) {
    // expected-note @above {{shared buffer 'memref<65536xf32, #gpu.address_space<workgroup>>': 262144 bytes (256.0 KB)}}
    gpu.terminator
  }
  return
}

// -----

// Dynamic shared memory counts against the per-block limit, not the static
// one: 40 KB static + 150 KB dynamic fits sm_90, not sm_80.
// SM80: error: the kernel in @dynamic uses 194560 bytes (190.0 KB) of shared memory per block (153600 bytes (150.0 KB) of it dynamic); sm_80 allows at most 166912 bytes (163.0 KB) per block
// AMD: error: the kernel in @dynamic uses 194560 bytes
func.func @dynamic() {
  %c1 = arith.constant 1 : index
  %dyn = arith.constant 153600 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %dyn {
    %a = memref.alloc() : memref<10240xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// A padded (storage_align) buffer spans its strides, not its shape.
// SM80: error: the kernel in @padded declares 50168 bytes (49.0 KB)
func.func @padded() {
  %c1 = arith.constant 1 : index
  // expected-error @below {{the kernel in @padded declares 50168 bytes (49.0 KB) of static shared memory}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{shared buffer 'memref<128x96xf32, strided<[98, 1]>, #gpu.address_space<workgroup>>': 50168 bytes (49.0 KB)}}
    %a = memref.alloc() : memref<128x96xf32, strided<[98, 1]>, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// Threads per block: 1024 at most, z at most 64 on NVIDIA.
// SM80: error: the kernel in @threads has 2048 threads per block (32x64x1); sm_80 allows at most 1024
// AMD: error: the kernel in @threads has 2048 threads per block (32x64x1); gfx942 allows at most 1024
func.func @threads() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  // expected-error @below {{the kernel in @threads has 2048 threads per block (32x64x1); sm_90 allows at most 1024: use fewer threads in the schedule}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c64, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

// SM80: error: the kernel in @block_z has a block of 128 threads along z; sm_80 allows at most 64
// AMD-NOT: block_z
func.func @block_z() {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  // expected-error @below {{the kernel in @block_z has a block of 128 threads along z; sm_90 allows at most 64}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c128) {
    gpu.terminator
  }
  return
}

// -----

// Outlined kernels: known block sizes, launches and attributions.
// SM80: error: kernel @k has 1056 threads per block (33x32x1); sm_80 allows at most 1024
// SM80: error: kernel @k has 1600 threads per block (40x40x1); sm_80 allows at most 1024
module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @below {{kernel @k has 1056 threads per block (33x32x1); sm_90 allows at most 1024}}
    gpu.func @k() workgroup(%w : memref<1024xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 33, 32, 1>} {
      gpu.return
    }
  }
  func.func @host() {
    %c1 = arith.constant 1 : index
    %c40 = arith.constant 40 : index
    // expected-error @below {{kernel @k has 1600 threads per block (40x40x1); sm_90 allows at most 1024}}
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c40, %c40, %c1)
    return
  }
}

// -----

// A 100x99 f32 accumulator on one thread: 39,600 bytes, 9,900 registers. The
// kernel still runs, from local memory: a warning, naming the buffer.
// SM80: warning: the kernel in @spill keeps 39600 bytes (38.7 KB) of private buffers per thread, at least 9900 32-bit registers; sm_80 has 255 per thread, so they spill to local memory (a stack frame)
// AMD: warning: the kernel in @spill keeps 39600 bytes (38.7 KB) of private buffers per thread, at least 9900 32-bit registers; gfx942 has 512 per thread, so they spill to scratch memory
func.func @spill() {
  %c1 = arith.constant 1 : index
  // expected-warning @below {{the kernel in @spill keeps 39600 bytes (38.7 KB) of private buffers per thread, at least 9900 32-bit registers; sm_90 has 255 per thread, so they spill to local memory (a stack frame): use a smaller per-thread tile (more threads or a smaller tile in the schedule)}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-note @below {{private buffer 'memref<100x99xf32>': 39600 bytes (38.7 KB)}}
    %acc = memref.alloca() : memref<100x99xf32>
    gpu.terminator
  }
  return
}

// -----

// Within every limit: 48 KB static, 1024 threads, a 16x16 fragment (256
// registers would spill; 8x8 = 64 does not). Nothing is reported.
// SM80-NOT: @fits
// AMD-NOT: @fits
func.func @fits() {
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1024, %sy = %c1, %sz = %c1) {
    %a = memref.alloc() : memref<12288xf32, #gpu.address_space<workgroup>>
    %f = memref.alloca() : memref<8x8xf32, #gpu.address_space<private>>
    gpu.terminator
  }
  return
}
