// gpu.all_reduce with every kind and the region form, gpu.subgroup_reduce with
// every kind and clusters, on one block of 40 threads (a full warp and one
// of 8 lanes). Each thread stores what it got, so a row shows that every
// thread (of a warp, of a cluster) got the same value. Inputs per thread t:
// x = 3t - 50 (i32); f = (t - 20) / 2, g = 2, -1, 1, 1, ... and h = f with
// a NaN at t = 7 (f32): minnumf skips the NaN, minimumf returns it.

func.func private @printMemrefI32(memref<*xi32>) attributes { llvm.emit_c_interface }
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @main() {
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %outi = memref.alloc() : memref<22x40xi32>
  %outf = memref.alloc() : memref<13x40xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c40, %sy = %c1, %sz = %c1) {
    %t = arith.index_cast %tx : index to i32
    %c3 = arith.constant 3 : i32
    %c50 = arith.constant 50 : i32
    %t3 = arith.muli %t, %c3 : i32
    %x = arith.subi %t3, %c50 : i32
    %c20 = arith.constant 20 : i32
    %tm = arith.subi %t, %c20 : i32
    %tf = arith.sitofp %tm : i32 to f32
    %half = arith.constant 0.5 : f32
    %f = arith.mulf %tf, %half : f32
    %c4 = arith.constant 4 : i32
    %m4 = arith.remui %t, %c4 : i32
    %c0i = arith.constant 0 : i32
    %c1i = arith.constant 1 : i32
    %is0 = arith.cmpi eq, %m4, %c0i : i32
    %is1 = arith.cmpi eq, %m4, %c1i : i32
    %two = arith.constant 2.0 : f32
    %mone = arith.constant -1.0 : f32
    %one = arith.constant 1.0 : f32
    %g1 = arith.select %is1, %mone, %one : f32
    %g = arith.select %is0, %two, %g1 : f32
    %c7 = arith.constant 7 : i32
    %is7 = arith.cmpi eq, %t, %c7 : i32
    %nan = arith.constant 0x7FC00000 : f32
    %h = arith.select %is7, %nan, %f : f32
    %v1 = gpu.all_reduce add %x uniform {} : (i32) -> (i32)
    %ri0 = arith.constant 0 : index
    memref.store %v1, %outi[%ri0, %tx] : memref<22x40xi32>
    %v2 = gpu.all_reduce mul %x uniform {} : (i32) -> (i32)
    %ri1 = arith.constant 1 : index
    memref.store %v2, %outi[%ri1, %tx] : memref<22x40xi32>
    %v3 = gpu.all_reduce minui %x uniform {} : (i32) -> (i32)
    %ri2 = arith.constant 2 : index
    memref.store %v3, %outi[%ri2, %tx] : memref<22x40xi32>
    %v4 = gpu.all_reduce minsi %x uniform {} : (i32) -> (i32)
    %ri3 = arith.constant 3 : index
    memref.store %v4, %outi[%ri3, %tx] : memref<22x40xi32>
    %v5 = gpu.all_reduce maxui %x uniform {} : (i32) -> (i32)
    %ri4 = arith.constant 4 : index
    memref.store %v5, %outi[%ri4, %tx] : memref<22x40xi32>
    %v6 = gpu.all_reduce maxsi %x uniform {} : (i32) -> (i32)
    %ri5 = arith.constant 5 : index
    memref.store %v6, %outi[%ri5, %tx] : memref<22x40xi32>
    %v7 = gpu.all_reduce and %x uniform {} : (i32) -> (i32)
    %ri6 = arith.constant 6 : index
    memref.store %v7, %outi[%ri6, %tx] : memref<22x40xi32>
    %v8 = gpu.all_reduce or %x uniform {} : (i32) -> (i32)
    %ri7 = arith.constant 7 : index
    memref.store %v8, %outi[%ri7, %tx] : memref<22x40xi32>
    %v9 = gpu.all_reduce xor %x uniform {} : (i32) -> (i32)
    %ri8 = arith.constant 8 : index
    memref.store %v9, %outi[%ri8, %tx] : memref<22x40xi32>
    %v10 = gpu.all_reduce %x {
    ^bb0(%lhs: i32, %rhs: i32):
      %gt = arith.cmpi sgt, %lhs, %rhs : i32
      %mx = arith.select %gt, %lhs, %rhs : i32
      gpu.yield %mx : i32
    } : (i32) -> (i32)
    %ri9 = arith.constant 9 : index
    memref.store %v10, %outi[%ri9, %tx] : memref<22x40xi32>
    %v11 = gpu.all_reduce add %f {} : (f32) -> (f32)
    %rf0 = arith.constant 0 : index
    memref.store %v11, %outf[%rf0, %tx] : memref<13x40xf32>
    %v12 = gpu.all_reduce mul %g {} : (f32) -> (f32)
    %rf1 = arith.constant 1 : index
    memref.store %v12, %outf[%rf1, %tx] : memref<13x40xf32>
    %v13 = gpu.all_reduce minnumf %h {} : (f32) -> (f32)
    %rf2 = arith.constant 2 : index
    memref.store %v13, %outf[%rf2, %tx] : memref<13x40xf32>
    %v14 = gpu.all_reduce maxnumf %h {} : (f32) -> (f32)
    %rf3 = arith.constant 3 : index
    memref.store %v14, %outf[%rf3, %tx] : memref<13x40xf32>
    %v15 = gpu.all_reduce minimumf %h {} : (f32) -> (f32)
    %rf4 = arith.constant 4 : index
    memref.store %v15, %outf[%rf4, %tx] : memref<13x40xf32>
    %v16 = gpu.all_reduce maximumf %f {} : (f32) -> (f32)
    %rf5 = arith.constant 5 : index
    memref.store %v16, %outf[%rf5, %tx] : memref<13x40xf32>
    %v17 = gpu.all_reduce %f {
    ^bb0(%lhs: f32, %rhs: f32):
      %s = arith.addf %lhs, %rhs : f32
      gpu.yield %s : f32
    } : (f32) -> (f32)
    %rf6 = arith.constant 6 : index
    memref.store %v17, %outf[%rf6, %tx] : memref<13x40xf32>
    %v18 = gpu.subgroup_reduce add %x uniform : (i32) -> i32
    %ri10 = arith.constant 10 : index
    memref.store %v18, %outi[%ri10, %tx] : memref<22x40xi32>
    %v19 = gpu.subgroup_reduce mul %x uniform : (i32) -> i32
    %ri11 = arith.constant 11 : index
    memref.store %v19, %outi[%ri11, %tx] : memref<22x40xi32>
    %v20 = gpu.subgroup_reduce minui %x uniform : (i32) -> i32
    %ri12 = arith.constant 12 : index
    memref.store %v20, %outi[%ri12, %tx] : memref<22x40xi32>
    %v21 = gpu.subgroup_reduce minsi %x uniform : (i32) -> i32
    %ri13 = arith.constant 13 : index
    memref.store %v21, %outi[%ri13, %tx] : memref<22x40xi32>
    %v22 = gpu.subgroup_reduce maxui %x uniform : (i32) -> i32
    %ri14 = arith.constant 14 : index
    memref.store %v22, %outi[%ri14, %tx] : memref<22x40xi32>
    %v23 = gpu.subgroup_reduce maxsi %x uniform : (i32) -> i32
    %ri15 = arith.constant 15 : index
    memref.store %v23, %outi[%ri15, %tx] : memref<22x40xi32>
    %v24 = gpu.subgroup_reduce and %x uniform : (i32) -> i32
    %ri16 = arith.constant 16 : index
    memref.store %v24, %outi[%ri16, %tx] : memref<22x40xi32>
    %v25 = gpu.subgroup_reduce or %x uniform : (i32) -> i32
    %ri17 = arith.constant 17 : index
    memref.store %v25, %outi[%ri17, %tx] : memref<22x40xi32>
    %v26 = gpu.subgroup_reduce xor %x uniform : (i32) -> i32
    %ri18 = arith.constant 18 : index
    memref.store %v26, %outi[%ri18, %tx] : memref<22x40xi32>
    %v27 = gpu.subgroup_reduce add %x cluster(size = 4, stride = 1) : (i32) -> i32
    %ri19 = arith.constant 19 : index
    memref.store %v27, %outi[%ri19, %tx] : memref<22x40xi32>
    %v28 = gpu.subgroup_reduce add %x cluster(size = 4, stride = 2) : (i32) -> i32
    %ri20 = arith.constant 20 : index
    memref.store %v28, %outi[%ri20, %tx] : memref<22x40xi32>
    %v29 = gpu.subgroup_reduce add %x cluster(size = 2, stride = 16) : (i32) -> i32
    %ri21 = arith.constant 21 : index
    memref.store %v29, %outi[%ri21, %tx] : memref<22x40xi32>
    %v30 = gpu.subgroup_reduce add %f : (f32) -> f32
    %rf7 = arith.constant 7 : index
    memref.store %v30, %outf[%rf7, %tx] : memref<13x40xf32>
    %v31 = gpu.subgroup_reduce mul %g : (f32) -> f32
    %rf8 = arith.constant 8 : index
    memref.store %v31, %outf[%rf8, %tx] : memref<13x40xf32>
    %v32 = gpu.subgroup_reduce minnumf %h : (f32) -> f32
    %rf9 = arith.constant 9 : index
    memref.store %v32, %outf[%rf9, %tx] : memref<13x40xf32>
    %v33 = gpu.subgroup_reduce maxnumf %h : (f32) -> f32
    %rf10 = arith.constant 10 : index
    memref.store %v33, %outf[%rf10, %tx] : memref<13x40xf32>
    %v34 = gpu.subgroup_reduce minimumf %h : (f32) -> f32
    %rf11 = arith.constant 11 : index
    memref.store %v34, %outf[%rf11, %tx] : memref<13x40xf32>
    %v35 = gpu.subgroup_reduce maximumf %f : (f32) -> f32
    %rf12 = arith.constant 12 : index
    memref.store %v35, %outf[%rf12, %tx] : memref<13x40xf32>
    gpu.terminator
  }
  %ui = memref.cast %outi : memref<22x40xi32> to memref<*xi32>
  call @printMemrefI32(%ui) : (memref<*xi32>) -> ()
  %uf = memref.cast %outf : memref<13x40xf32> to memref<*xf32>
  call @printMemrefF32(%uf) : (memref<*xf32>) -> ()
  return
}

// Integer rows: all_reduce add mul minui minsi maxui maxsi and or xor region(max),
// then subgroup_reduce of the same nine kinds, then clustered adds of size 4,
// size 4 stride 2, and size 2 stride 16.
// Float rows: all_reduce add mul minnumf maxnumf minimumf maximumf region(add),
// then subgroup_reduce add mul minnumf maxnumf minimumf maximumf.
