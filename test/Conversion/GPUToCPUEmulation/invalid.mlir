// RUN: ext-opt %s --ext-gpu-to-cpu-emulation -split-input-file -verify-diagnostics
// What the CPU emulation cannot run is an error naming the op where it is.

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      %f = arith.constant 1.0 : f16
      // (ext-subgroup-mma-to-lanes, which runs before, lowers these.)
      // expected-error @below {{'gpu.subgroup_mma_constant_matrix' op is not supported by the CPU emulation of GPU kernels}}
      %m = gpu.subgroup_mma_constant_matrix %f : !gpu.mma_matrix<16x16xf16, "COp">
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      // expected-error @below {{'nvvm.read.ptx.sreg.tid.x' op is specific to one GPU target and cannot run on the CPU emulation}}
      %t = nvvm.read.ptx.sreg.tid.x : i32
      gpu.printf "%d", %t : i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%n: index) kernel {
      // expected-error @below {{'memref.alloc' op of workgroup memory needs a static shape and the identity layout on the CPU emulation}}
      %a = memref.alloc(%n) : memref<?xf32, #gpu.address_space<workgroup>>
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<?xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

func.func @f(%n: index) {
  // expected-error @below {{'gpu.launch' op must be outlined first: run gpu-kernel-outlining before ext-gpu-to-cpu-emulation}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %n, %gz = %n)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %n, %sz = %n) {
    gpu.terminator
  }
  return
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      %v = arith.constant 1.0 : f64
      %w = vector.broadcast %v : f64 to vector<4xf64>
      // expected-error @below {{'gpu.subgroup_reduce' op on a value of 'vector<4xf64>' wider than the emulator's 16-byte lanes}}
      %r = gpu.subgroup_reduce add %w : (vector<4xf64>) -> vector<4xf64>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @f(%n: index) -> !gpu.async.token {
    %t = gpu.launch_func async @m::@k blocks in (%n, %n, %n) threads in (%n, %n, %n)
    // expected-error @below {{'func.return' op uses an async token; the CPU emulation passes tokens only from gpu op to gpu op}}
    return %t : !gpu.async.token
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @f(%n: index, %t: !gpu.async.token) {
    // expected-error @below {{'gpu.launch_func' op depends on an async token the CPU emulation cannot follow (it comes from a block argument); pass tokens directly from gpu op to gpu op}}
    %u = gpu.launch_func async [%t] @m::@k blocks in (%n, %n, %n) threads in (%n, %n, %n)
    gpu.wait [%u]
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      %a = arith.constant 1.0 : f16
      // expected-error @below {{'gpu.subgroup_mma_constant_matrix' op is not supported by the CPU emulation of GPU kernels}}
      %m = gpu.subgroup_mma_constant_matrix %a : !gpu.mma_matrix<16x16xf16, "COp">
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: vector<2x2xf16>, %b: vector<1x2xf16>, %c: vector<2x2xf16>) kernel {
      // expected-error @below {{'nvgpu.mma.sync' op of shape [16, 8, 8] on 'f16' with 'f16' accumulators is not supported by the CPU emulation (m16n8k16 f16/bf16, m16n8k8 and m16n8k4 tf32)}}
      %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 8]} : (vector<2x2xf16>, vector<1x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<16xf32>) kernel {
      // expected-error @below {{'amdgpu.mfma' op with lane permutations (cbsz, abid, blgp), reduced precision or negation is not supported by the CPU emulation}}
      %d = amdgpu.mfma 32x32x8 %a * %b + %c blgp = bcast_first_32 : vector<4xf16>, vector<4xf16>, vector<16xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<4xf32>) kernel {
      // expected-error @below {{'amdgpu.mfma' op 4x4x4 on 'f16' (16 blocks) is not supported by the CPU emulation (32x32x8 and 16x16x16 f16, 32x32x2 f32, one block)}}
      %d = amdgpu.mfma 4x4x4 %a * %b + %c { blocks = 16 : i32 } blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: i32, %rank: i32) kernel {
      %p = llvm.inttoptr %a : i32 to !llvm.ptr<3>
      // expected-error @below {{'nvvm.mapa' op on a pointer made from a 'i32': the CPU emulation's shared addresses are 64-bit (take nvgpu.mbarrier.get's address as an i64)}}
      %q = nvvm.mapa %p, %rank : !llvm.ptr<3> -> !llvm.ptr<7>
      nvvm.mbarrier.arrive %q {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%p: !llvm.ptr<3>, %rank: i32) kernel {
      %q = nvvm.mapa %p, %rank : !llvm.ptr<3> -> !llvm.ptr<7>
      // expected-error @below {{'llvm.load' op through a shared::cluster pointer (!llvm.ptr<7>, another block's shared memory) is not supported by the CPU emulation}}
      %v = llvm.load %q : !llvm.ptr<7> -> f32
      gpu.printf "%f", %v : f32
      gpu.return
    }
  }
}
