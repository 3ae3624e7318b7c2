// Fuzzer finding: a gpu.launch (or gpu.func) without a `workgroup_attributions`
// count verifies (no count means no buffers), but upstream's
// addWorkgroupAttribution dereferenced the missing count: SEGV in
// ext-lower-storage-align. ext's passes now set the count before adding.

func.func @launch_without_count() {
  %c1 = arith.constant 1 : index
  "gpu.launch"(%c1, %c1, %c1, %c1, %c1, %c1) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
  ^bb0(%a0: index, %a1: index, %a2: index, %a3: index, %a4: index, %a5: index, %a6: index, %a7: index, %a8: index, %a9: index, %a10: index, %a11: index):
    %s = ext.alloc_shared {storage_align = [#ext.storage_align<dim = 0, factor = 8, offset = 1>]} : memref<8x8xf32, strided<[9, 1]>, #gpu.address_space<workgroup>>
    "gpu.terminator"() : () -> ()
  }) : (index, index, index, index, index, index) -> ()
  return
}
