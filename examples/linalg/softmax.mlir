// linalg.softmax on tensors through ext, as one kernel. ext-from-linalg
// decomposes the softmax into its four structured ops (row max, exp(x -
// max), row sum, divide), bufferizes the module (one-shot, function
// boundaries included) and turns each op into an ext.compute; the script
// then schedules the divide (one row per block, 1024 columns on 256
// threads) with the row max and row sum computed inside it at the row tile
// (compute_at) and the exponentials inlined (compute_inline): X is read
// from global memory, Y written, nothing else.
//
//   ext-run softmax.mlir                                  # CPU emulator
//   ext-opt softmax.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90"
//
// @main runs @softmax and @reference (the same linalg.softmax, not
// scheduled: host loops) on X[i, j] = ((7i + 3j) mod 17) / 4 and prints 1
// if max |Y - reference| is below 1e-6 (sums in another order).

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @softmax(%X: tensor<37x1000xf32>) -> tensor<37x1000xf32> {
  %empty = tensor.empty() : tensor<37x1000xf32>
  %Y = linalg.softmax dimension(1) ins(%X : tensor<37x1000xf32>)
                                   outs(%empty : tensor<37x1000xf32>) -> tensor<37x1000xf32>
  return %Y : tensor<37x1000xf32>
}

func.func @reference(%X: tensor<37x1000xf32>) -> tensor<37x1000xf32> {
  %empty = tensor.empty() : tensor<37x1000xf32>
  %Y = linalg.softmax dimension(1) ins(%X : tensor<37x1000xf32>)
                                   outs(%empty : tensor<37x1000xf32>) -> tensor<37x1000xf32>
  return %Y : tensor<37x1000xf32>
}

#id = affine_map<(i, j) -> (i, j)>
func.func @main() {
  %empty = tensor.empty() : tensor<37x1000xf32>
  %X = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%empty : tensor<37x1000xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = affine.apply affine_map<(i, j) -> ((i * 7 + j * 3) mod 17)>(%i, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    %q = arith.constant 0.25 : f32
    %x = arith.mulf %vf, %q : f32
    linalg.yield %x : f32
  } -> tensor<37x1000xf32>
  %Y = call @softmax(%X) : (tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %R = call @reference(%X) : (tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %err = linalg.generic {indexing_maps = [#id, #id, affine_map<(i, j) -> ()>],
                         iterator_types = ["reduction", "reduction"]}
      ins(%Y, %R : tensor<37x1000xf32>, tensor<37x1000xf32>) outs(%init : tensor<f32>) {
  ^bb0(%y: f32, %r: f32, %acc: f32):
    %d = arith.subf %y, %r : f32
    %a = math.absf %d : f32
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %tol = arith.constant 1.0e-6 : f32
  %e1 = tensor.empty() : tensor<f32>
  %ok = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>],
                        iterator_types = []}
      ins(%err : tensor<f32>) outs(%e1 : tensor<f32>) {
  ^bb0(%e: f32, %o: f32):
    %lt = arith.cmpf olt, %e, %tol : f32
    %f = arith.uitofp %lt : i1 to f32
    linalg.yield %f : f32
  } -> tensor<f32>
  %m = bufferization.to_buffer %ok : tensor<f32> to memref<f32>
  %u = memref.cast %m : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %module = transform.apply_registered_pass "ext-from-linalg" to %root
        : (!transform.any_op) -> !transform.any_op
    %f = transform.structured.match ops{["func.func"]} attributes {sym_name = "softmax"} in %module
        : (!transform.any_op) -> !transform.any_op
    // The decomposition's four computes, in order: generic_0 (row max),
    // generic_1 (exp), generic_2 (row sum), generic_3 (divide).
    %div = transform.ext.match_computes "generic_3" in %f
        : (!transform.any_op) -> !transform.any_op
    transform.ext.set_schedule #ext.schedule<
        tile = [1, 1024], blocks = ["d0"], threads = [1, 256], vector = 4,
        compute_inline = ["generic_1"],
        compute_at = [#ext.at<"generic_0", "d0">, #ext.at<"generic_2", "d0">]> to %div
        : !transform.any_op
    transform.yield
  }
}
