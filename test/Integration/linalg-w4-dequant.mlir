// W4A32 through linalg (issue 54 item 5): a weight of 4-bit codes packed two
// to a byte (16 x 32 i8 for N x K = 16 x 64, code k in bits 4 (k % 2) of byte
// k / 2), a scale and a zero per 32 along K, dequantized by a linalg.generic
// ((code - zero) * scale; the byte read through the map k floordiv 2, the
// nibble chosen with linalg.index) that feeds a linalg.matmul with B
// transposed. ext-from-linalg makes both ext.computes; the script schedules
// the GEMM with the dequantization inlined (compute_inline), so its kernel
// reads the packed bytes and stores only C. The reference is one
// unscheduled linalg.generic over (m, n, k) doing both (host loops).
//
// RUN: ext-run %s 2>&1 | FileCheck %s --check-prefix=EMU
// EMU-NOT: error
// EMU: data =
// EMU-NEXT: [0]
// RUN: ext-opt %s --ext-gpu-pipeline="target=nvvm chip=sm_80" 2>/dev/null | ext-translate --ext-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX: .entry w4_kernel
// PTX-NOT: .entry
// PTX: ld.global.{{[a-z]*}}8
// RUN: grep -c "st.global" %t.ptx | FileCheck %s --check-prefix=STORES
// STORES: {{^}}1{{$}}

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

#nk = affine_map<(n, k) -> (n, k)>
#byte = affine_map<(n, k) -> (n, k floordiv 2)>
#group = affine_map<(n, k) -> (n, k floordiv 32)>
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>

func.func @w4(%A: memref<5x64xf32>, %Wq: memref<16x32xi8>, %S: memref<16x2xf32>,
              %Z: memref<16x2xf32>, %C: memref<5x16xf32>) {
  %W = memref.alloc() : memref<16x64xf32>
  linalg.generic {indexing_maps = [#byte, #group, #group, #nk],
                  iterator_types = ["parallel", "parallel"]}
      ins(%Wq, %S, %Z : memref<16x32xi8>, memref<16x2xf32>, memref<16x2xf32>)
      outs(%W : memref<16x64xf32>) {
  ^bb0(%q: i8, %s: f32, %z: f32, %o: f32):
    %k = linalg.index 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : i8
    %c15 = arith.constant 15 : i8
    %odd = arith.remui %k, %c2 : index
    %oddi = arith.index_cast %odd : index to i8
    %shift = arith.muli %oddi, %c4 : i8
    %b = arith.shrui %q, %shift : i8
    %code = arith.andi %b, %c15 : i8
    %f = arith.uitofp %code : i8 to f32
    %d = arith.subf %f, %z : f32
    %w = arith.mulf %d, %s : f32
    linalg.yield %w : f32
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<5x16xf32>)
  linalg.matmul indexing_maps = [#mA, #mB, #mC]
      ins(%A, %W : memref<5x64xf32>, memref<16x64xf32>) outs(%C : memref<5x16xf32>)
  return
}

// C[m, n] = sum_k A[m, k] * ((Wq[n, k / 2] >> 4 (k % 2) & 15) - Z[n, k / 32]) * S[n, k / 32],
// written as one loop nest (shift by division: (byte / 16^(k % 2)) % 16).
func.func @reference(%A: memref<5x64xf32>, %Wq: memref<16x32xi8>, %S: memref<16x2xf32>,
                     %Z: memref<16x2xf32>, %C: memref<5x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<5x16xf32>)
  linalg.generic {indexing_maps = [#mA, affine_map<(m, n, k) -> (n, k floordiv 2)>,
                                   affine_map<(m, n, k) -> (n, k floordiv 32)>,
                                   affine_map<(m, n, k) -> (n, k floordiv 32)>, #mC],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %Wq, %S, %Z : memref<5x64xf32>, memref<16x32xi8>, memref<16x2xf32>,
                            memref<16x2xf32>)
      outs(%C : memref<5x16xf32>) {
  ^bb0(%a: f32, %q: i8, %s: f32, %z: f32, %acc: f32):
    %k = linalg.index 2 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : i32
    %c1 = arith.constant 1 : i32
    %odd = arith.remui %k, %c2 : index
    %oddi = arith.index_cast %odd : index to i1
    %byte = arith.extui %q : i8 to i32
    %div = arith.select %oddi, %c16, %c1 : i32
    %hi = arith.divui %byte, %div : i32
    %code = arith.remui %hi, %c16 : i32
    %f = arith.uitofp %code : i32 to f32
    %d = arith.subf %f, %z : f32
    %w = arith.mulf %d, %s : f32
    %p = arith.mulf %a, %w : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

func.func @main() {
  %A = memref.alloc() : memref<5x64xf32>
  %Wq = memref.alloc() : memref<16x32xi8>
  %S = memref.alloc() : memref<16x2xf32>
  %Z = memref.alloc() : memref<16x2xf32>
  %C = memref.alloc() : memref<5x16xf32>
  %R = memref.alloc() : memref<5x16xf32>
  %err = memref.alloc() : memref<f32>
  // Small integers throughout: both sums exact.
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%A : memref<5x64xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    linalg.yield %vf : f32
  }
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%Wq : memref<16x32xi8>) {
  ^bb0(%out: i8):
    %n = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = affine.apply affine_map<(n, j) -> ((n * 37 + j * 23) mod 256)>(%n, %j)
    %vi = arith.index_cast %v : index to i8
    linalg.yield %vi : i8
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      outs(%S, %Z : memref<16x2xf32>, memref<16x2xf32>) {
  ^bb0(%o1: f32, %o2: f32):
    %n = linalg.index 0 : index
    %g = linalg.index 1 : index
    %s = affine.apply affine_map<(n, g) -> ((n + g * 5) mod 4 + 1)>(%n, %g)
    %z = affine.apply affine_map<(n, g) -> ((n * 3 + g) mod 9)>(%n, %g)
    %si = arith.index_cast %s : index to i32
    %zi = arith.index_cast %z : index to i32
    %sf = arith.sitofp %si : i32 to f32
    %zf = arith.sitofp %zi : i32 to f32
    linalg.yield %sf, %zf : f32, f32
  }
  call @w4(%A, %Wq, %S, %Z, %C)
      : (memref<5x64xf32>, memref<16x32xi8>, memref<16x2xf32>, memref<16x2xf32>,
         memref<5x16xf32>) -> ()
  call @reference(%A, %Wq, %S, %Z, %R)
      : (memref<5x64xf32>, memref<16x32xi8>, memref<16x2xf32>, memref<16x2xf32>,
         memref<5x16xf32>) -> ()
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%err : memref<f32>)
  linalg.generic {indexing_maps = [#id, #id, affine_map<(i, j) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%C, %R : memref<5x16xf32>, memref<5x16xf32>) outs(%err : memref<f32>) {
  ^bb0(%c: f32, %r: f32, %acc: f32):
    %d = arith.subf %c, %r : f32
    %a = math.absf %d : f32
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  }
  %u = memref.cast %err : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %module = transform.apply_registered_pass "ext-from-linalg" to %root
        : (!transform.any_op) -> !transform.any_op
    %f = transform.structured.match ops{["func.func"]} attributes {sym_name = "w4"} in %module
        : (!transform.any_op) -> !transform.any_op
    %gemm = transform.ext.match_computes "matmul_1" in %f
        : (!transform.any_op) -> !transform.any_op
    transform.ext.set_schedule #ext.schedule<tile = [5, 16, 16], threads = [5, 16, 1],
        compute_inline = ["generic_0"]> to %gemm : !transform.any_op
    transform.yield
  }
}
