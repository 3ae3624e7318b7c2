// A thread block cluster probe for bench/gpu/export.py and replay.py: C = A B
// (f16 in, f32 out, 128x128x64), one C element per thread, 8x8 CTAs of
// 16x16 threads launched in clusters of 2x2 CTAs. Each CTA finds its tile
// from its cluster's position and its own in the cluster, and writes it only
// when it sees clusters of 2x2: launched without the cluster size (a
// cluster of 1), it writes nothing and C stays NaN. On a GPU it checks that
// the host launched the clusters (cuLaunchKernelEx with the cluster
// dimension) and that cluster ids name the CTAs as block ids do.
func.func @gemm(%A: memref<128x64xf16>, %B: memref<64x128xf16>, %C: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  gpu.launch clusters(%cx, %cy, %cz) in (%ncx = %c2, %ncy = %c2, %ncz = %c1)
             blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c8, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c16, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k16 = arith.constant 16 : index
    %k64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    // The CTA's tile: its cluster's first CTA plus its place in the cluster.
    %clx = gpu.cluster_id x
    %cly = gpu.cluster_id y
    %ctx = gpu.cluster_block_id x
    %cty = gpu.cluster_block_id y
    %csx = gpu.cluster_dim_blocks x
    %csy = gpu.cluster_dim_blocks y
    %rx = arith.muli %clx, %csx : index
    %tilex = arith.addi %rx, %ctx : index
    %ry = arith.muli %cly, %csy : index
    %tiley = arith.addi %ry, %cty : index
    %wide = arith.cmpi eq, %csx, %k2 : index
    %tall = arith.cmpi eq, %csy, %k2 : index
    %clustered = arith.andi %wide, %tall : i1
    scf.if %clustered {
      %i0 = arith.muli %tiley, %k16 : index
      %i = arith.addi %i0, %ty : index
      %j0 = arith.muli %tilex, %k16 : index
      %j = arith.addi %j0, %tx : index
      %sum = scf.for %k = %k0 to %k64 step %k1 iter_args(%acc = %zero) -> (f32) {
        %a = memref.load %A[%i, %k] : memref<128x64xf16>
        %b = memref.load %B[%k, %j] : memref<64x128xf16>
        %af = arith.extf %a : f16 to f32
        %bf = arith.extf %b : f16 to f32
        %p = arith.mulf %af, %bf : f32
        %s = arith.addf %acc, %p : f32
        scf.yield %s : f32
      }
      memref.store %sum, %C[%i, %j] : memref<128x128xf32>
    }
    gpu.terminator
  }
  return
}
