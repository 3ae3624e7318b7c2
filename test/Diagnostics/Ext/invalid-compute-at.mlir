// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-apply-schedule -o /dev/null
// compute_at fusions that would change what the program computes, or that
// ext cannot build, are refused at the scheduled compute, naming both
// computes and the axis.

// -----

func.func @no_such_compute(%X: memref<16x64xf32>, %Y: memref<16x64xf32>) {
  %M = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"k", reduce, 64>]
      ins(%X : memref<16x64xf32>) outs(%M : memref<16xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) attributes {name = "M"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: compute_at 'P': no compute of that name in the block}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 64>]
      ins(%X, %M : memref<16x64xf32>, memref<16xf32>) outs(%Y : memref<16x64xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>]
      attributes {name = "Y", schedule = #ext.schedule<tile = [1, 64], blocks = ["i"], threads = [1, 64], compute_at = [#ext.at<"P", "i">]>} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    ext.yield %d : f32
  }
  return
}

// -----

func.func @not_blocked(%X: memref<16x64xf32>, %Y: memref<16x64xf32>) {
  %M = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"k", reduce, 64>]
      ins(%X : memref<16x64xf32>) outs(%M : memref<16xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) attributes {name = "M"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: compute_at 'M' at 'j': it is not an axis 'Y''s schedule binds to blocks ('i'); a producer is computed at a tile loop}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 64>]
      ins(%X, %M : memref<16x64xf32>, memref<16xf32>) outs(%Y : memref<16x64xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>]
      attributes {name = "Y", schedule = #ext.schedule<tile = [1, 64], blocks = ["i"], threads = [1, 64], compute_at = [#ext.at<"M", "j">]>} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    ext.yield %d : f32
  }
  return
}

// -----

func.func @after_anchor(%X: memref<16x64xf32>, %Y: memref<16x64xf32>) {
  %M = memref.alloc() : memref<16xf32>
  // expected-error @+1 {{'ext.compute' op schedule: compute_at 'M' at 'i': it comes after 'Y', so it produces nothing 'Y' reads (a consumer goes to reverse_compute_at)}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 64>]
      ins(%X, %M : memref<16x64xf32>, memref<16xf32>) outs(%Y : memref<16x64xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>]
      attributes {name = "Y", schedule = #ext.schedule<tile = [1, 64], blocks = ["i"], threads = [1, 64], compute_at = [#ext.at<"M", "i">]>} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    ext.yield %d : f32
  }
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"k", reduce, 64>]
      ins(%X : memref<16x64xf32>) outs(%M : memref<16xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) attributes {name = "M"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @cycle(%X: memref<16x64xf32>, %Y: memref<16x64xf32>) {
  %M = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"k", reduce, 64>]
      ins(%Y : memref<16x64xf32>) outs(%M : memref<16xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) attributes {name = "M"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: compute_at 'M' at 'i': it reads the output of 'Y', which reads its output: a cycle}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 64>]
      ins(%X, %M : memref<16x64xf32>, memref<16xf32>) outs(%Y : memref<16x64xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>]
      attributes {name = "Y", schedule = #ext.schedule<tile = [1, 64], blocks = ["i"], threads = [1, 64], compute_at = [#ext.at<"M", "i">]>} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    ext.yield %d : f32
  }
  return
}

// -----

func.func @inner_axis(%X: memref<16x64xf32>, %Y: memref<16x64xf32>) {
  %C = memref.alloc() : memref<64xf32>
  ext.compute [#ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 16>]
      ins(%X : memref<16x64xf32>) outs(%C : memref<64xf32>)
      maps [affine_map<(j, k) -> (k, j)>, affine_map<(j, k) -> (j)>] combiner(max) attributes {name = "C"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: compute_at 'C' at 'i': 'Y' reads it at points that change with 'j', a tile loop inside 'i': the region at 'i' would span every 'j' tile (attach it at 'j')}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 64>]
      ins(%X, %C : memref<16x64xf32>, memref<64xf32>) outs(%Y : memref<16x64xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>]
      attributes {name = "Y", schedule = #ext.schedule<tile = [4, 16], blocks = ["i", "j"], threads = [4, 16], compute_at = [#ext.at<"C", "i">]>} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    ext.yield %d : f32
  }
  return
}

// -----

func.func @not_read(%X: memref<16x64xf32>, %Y: memref<16x64xf32>) {
  %M = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"k", reduce, 64>]
      ins(%X : memref<16x64xf32>) outs(%M : memref<16xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) attributes {name = "M"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: compute_at 'M' at 'i': neither 'Y' nor a producer attached after it reads its output; compute_at attaches a producer of the scheduled compute's inputs}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 64>]
      ins(%X, %X : memref<16x64xf32>, memref<16x64xf32>) outs(%Y : memref<16x64xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>]
      attributes {name = "Y", schedule = #ext.schedule<tile = [1, 64], blocks = ["i"], threads = [1, 64], compute_at = [#ext.at<"M", "i">]>} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    ext.yield %d : f32
  }
  return
}

// -----

func.func @kept_overlap(%X: memref<16x64xf32>, %M: memref<16xf32>, %Y: memref<16x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"k", reduce, 64>]
      ins(%X : memref<16x64xf32>) outs(%M : memref<16xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) attributes {name = "M"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: compute_at 'M' at 'i': its output is read outside the kernel (a function argument, or another op), and the regions the tiles compute overlap: it would be written by several blocks; keep it internal or give it its own kernel}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 64>]
      ins(%X, %M : memref<16x64xf32>, memref<16xf32>) outs(%Y : memref<16x64xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>]
      attributes {name = "Y", schedule = #ext.schedule<tile = [1, 16], blocks = ["i", "j"], threads = [1, 16], compute_at = [#ext.at<"M", "i">]>} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    ext.yield %d : f32
  }
  return
}

// -----

func.func @write_between(%X: memref<16x64xf32>, %Y: memref<16x64xf32>) {
  %M = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"k", reduce, 64>]
      ins(%X : memref<16x64xf32>) outs(%M : memref<16xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) attributes {name = "M"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  ext.compute [#ext.axis<"a", spatial, 16>, #ext.axis<"b", spatial, 64>] outs(%X : memref<16x64xf32>)
      maps [affine_map<(a, b) -> (a, b)>] {
  ^bb0:
    %z = arith.constant 0.0 : f32
    ext.yield %z : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: compute_at 'M' at 'i': 'ext.compute' between it and 'Y' writes a memref it reads}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 64>]
      ins(%X, %M : memref<16x64xf32>, memref<16xf32>) outs(%Y : memref<16x64xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>]
      attributes {name = "Y", schedule = #ext.schedule<tile = [1, 64], blocks = ["i"], threads = [1, 64], compute_at = [#ext.at<"M", "i">]>} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    ext.yield %d : f32
  }
  return
}

// -----

func.func @read_between(%X: memref<16x64xf32>, %Z: memref<16xf32>, %Y: memref<16x64xf32>) {
  %M = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"k", reduce, 64>]
      ins(%X : memref<16x64xf32>) outs(%M : memref<16xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) attributes {name = "M"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  ext.compute [#ext.axis<"a", spatial, 16>] ins(%M : memref<16xf32>) outs(%Z : memref<16xf32>)
      maps [affine_map<(a) -> (a)>, affine_map<(a) -> (a)>] {
  ^bb0(%m: f32):
    ext.yield %m : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: compute_at 'M' at 'i': 'ext.compute' between it and 'Y' uses its output, which is now computed later}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 64>]
      ins(%X, %M : memref<16x64xf32>, memref<16xf32>) outs(%Y : memref<16x64xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>]
      attributes {name = "Y", schedule = #ext.schedule<tile = [1, 64], blocks = ["i"], threads = [1, 64], compute_at = [#ext.at<"M", "i">]>} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    ext.yield %d : f32
  }
  return
}

// -----

func.func @inline_unread(%X: memref<16x64xf32>, %T: memref<16x64xf32>, %Y: memref<16x64xf32>) {
  %M = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"k", reduce, 64>]
      ins(%X : memref<16x64xf32>) outs(%M : memref<16xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) attributes {name = "M"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  ext.compute [#ext.axis<"a", spatial, 16>, #ext.axis<"b", spatial, 64>] ins(%X : memref<16x64xf32>) outs(%T : memref<16x64xf32>)
      maps [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>] attributes {name = "T"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: compute_inline 'T': neither 'Y' nor a producer it attaches with compute_at reads its output}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 64>]
      ins(%X, %M : memref<16x64xf32>, memref<16xf32>) outs(%Y : memref<16x64xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>]
      attributes {name = "Y", schedule = #ext.schedule<tile = [1, 64], blocks = ["i"], threads = [1, 64], compute_at = [#ext.at<"M", "i">], compute_inline = ["T"]>} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    ext.yield %d : f32
  }
  return
}

// -----

func.func @regions_disagree(%X: memref<16x64xf32>, %Y: memref<16x64xf32>) {
  %M = memref.alloc() : memref<16xf32>
  %S = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"k", reduce, 64>]
      ins(%X : memref<16x64xf32>) outs(%M : memref<16xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) attributes {name = "M"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"k", reduce, 64>]
      ins(%X, %M : memref<16x64xf32>, memref<16xf32>) outs(%S : memref<16xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (15 - i)>, affine_map<(i, k) -> (i)>] combiner(sum) attributes {name = "S"} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    ext.yield %d : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: compute_at 'M' at 'i': 'S' reads it at a region that moves differently with the tiles from another reader's}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 64>]
      ins(%X, %M, %S : memref<16x64xf32>, memref<16xf32>, memref<16xf32>) outs(%Y : memref<16x64xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>]
      attributes {name = "Y", schedule = #ext.schedule<tile = [4, 64], blocks = ["i"], threads = [1, 64], compute_at = [#ext.at<"M", "i">, #ext.at<"S", "i">]>} {
  ^bb0(%x: f32, %m: f32, %s: f32):
    %d = arith.subf %x, %m : f32
    %e = arith.divf %d, %s : f32
    ext.yield %e : f32
  }
  return
}
