//===- ExamplePasses.td - a third party's pass --------------*- tablegen -*-===//

#ifndef EXT_EXAMPLE_PASSES_TD
#define EXT_EXAMPLE_PASSES_TD

include "mlir/Pass/PassBase.td"

def ExtExampleCountPoints : Pass<"ext-example-count-points"> {
  let summary = "Annotate each ext.compute with its number of domain points";
  let description = [{
    A pass shipped as a plugin that uses ext's C++ API (`ext::ComputeOp`):
    it sets `ext_example.points` on every `ext.compute` to the product of its
    axis extents (on those whose extents are all static).
  }];
}

#endif // EXT_EXAMPLE_PASSES_TD
