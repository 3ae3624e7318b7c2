module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @f(%n: index) -> !gpu.async.token {
    // expected-error @below {{'gpu.launch_func' op produces an async token used by 'func.return'; the CPU emulation runs gpu ops synchronously and cannot pass tokens through it}}
    %t = gpu.launch_func async @m::@k blocks in (%n, %n, %n) threads in (%n, %n, %n)
    return %t : !gpu.async.token
  }
}
