// A view of workgroup memory names the bytes it covers for race reports:
// its address and extent come from its descriptor, its name from its type and
// location.
module attributes {gpu.container_module} {
  gpu.module @views {
    gpu.func @v(%at: index) workgroup(%raw : memref<32xi8, #gpu.address_space<workgroup>>) kernel {
      %v = memref.view %raw[%at][] : memref<32xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
