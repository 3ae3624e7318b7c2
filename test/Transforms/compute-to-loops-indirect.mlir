// RUN: ext-opt %s --split-input-file --ext-compute-to-loops --mlir-print-local-scope | FileCheck %s

// An indirect read: the table's element is loaded through the table's map,
// made an index and checked against the dimension it indexes (a guarded
// assert: the caller gets the message, the read goes to row 0 instead of
// leaving the input); the other indices are the axes' as always.
// CHECK-LABEL: func @paged_gather(
// CHECK-SAME:    %[[KC:[^:]*]]: memref<9x16x2x32xf32>, %[[T:[^:]*]]: memref<2x4xi32>, %[[S:[^:]*]]: memref<2x8x64x32xf32>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C9:.*]] = arith.constant 9 : index
// CHECK:         scf.for %[[B:[^ ]*]] =
// CHECK:           scf.for %[[H:[^ ]*]] =
// CHECK:             scf.for %[[J:[^ ]*]] =
// CHECK:               scf.for %[[D:[^ ]*]] =
// CHECK:                 %[[PAGE:.*]] = affine.apply affine_map<(d0, d1, d2, d3) -> (d2 floordiv 16)>(%[[B]], %[[H]], %[[J]], %[[D]])
// CHECK:                 %[[E:.*]] = memref.load %[[T]][%[[B]], %[[PAGE]]] : memref<2x4xi32>
// CHECK:                 %[[EI:.*]] = arith.index_cast %[[E]] : i32 to index
// CHECK-DAG:             %[[LT:.*]] = arith.cmpi slt, %[[EI]], %[[C9]] : index
// CHECK-DAG:             %[[GE:.*]] = arith.cmpi sge, %[[EI]], %[[C0]] : index
// CHECK:                 %[[OK:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK:                 cf.assert %[[OK]], "ext.compute 'gather': an entry of table input #1 indexes dimension #0 of input #0 outside [0, 9)" {ext.guarded}
// CHECK:                 %[[ROW:.*]] = arith.select %[[OK]], %[[EI]], %[[C0]] : index
// CHECK:                 %[[JM:.*]] = affine.apply affine_map<(d0, d1, d2, d3) -> (d2 mod 16)>(%[[B]], %[[H]], %[[J]], %[[D]])
// CHECK:                 %[[HG:.*]] = affine.apply affine_map<(d0, d1, d2, d3) -> (d1 floordiv 4)>(%[[B]], %[[H]], %[[J]], %[[D]])
// CHECK:                 %[[K:.*]] = memref.load %[[KC]][%[[ROW]], %[[JM]], %[[HG]], %[[D]]]
// CHECK:                 memref.store %[[K]], %[[S]][%[[B]], %[[H]], %[[J]], %[[D]]]
func.func @paged_gather(%Kc: memref<9x16x2x32xf32>, %T: memref<2x4xi32>, %S: memref<2x8x64x32xf32>) {
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"h", spatial, 8>,
               #ext.axis<"j", spatial, 64>, #ext.axis<"d", spatial, 32>]
      ins(%Kc, %T : memref<9x16x2x32xf32>, memref<2x4xi32>)
      outs(%S : memref<2x8x64x32xf32>)
      maps [affine_map<(b, h, j, d)[s0] -> (s0, j mod 16, h floordiv 4, d)>,
            affine_map<(b, h, j, d) -> (b, j floordiv 16)>,
            affine_map<(b, h, j, d) -> (b, h, j, d)>]
      indirect [#ext.indirect<input = 0, symbol = 0, table = 1>]
      attributes {name = "gather"} {
  ^bb0(%k: f32, %t: i32):
    ext.yield %k : f32
  }
  return
}

// -----

// A symbol inside an affine access of a dynamic dimension: the entry times 4
// plus the row is applied with the entry as the map's symbol operand and
// checked against the dimension's run-time size; an index table needs no
// cast. Only the dimension that reads the entry is checked.
// CHECK-LABEL: func @flat_pool(
// CHECK-SAME:    %[[X:[^:]*]]: memref<?x6xf32>, %[[T:[^:]*]]: memref<2xindex>
// CHECK:         scf.for %[[I:[^ ]*]] =
// CHECK:           scf.for %[[C:[^ ]*]] =
// CHECK:             %[[E:.*]] = memref.load %[[T]][%{{.*}}] : memref<2xindex>
// CHECK-NOT:         arith.index_cast
// CHECK:             %[[ROW:.*]] = affine.apply affine_map<(d0, d1)[s0] -> (d0 mod 4 + s0 * 4)>(%[[I]], %[[C]])[%[[E]]]
// CHECK:             %[[N:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x6xf32>
// CHECK:             arith.cmpi slt, %[[ROW]], %[[N]] : index
// CHECK:             cf.assert %{{.*}}, "ext.compute: an entry of table input #1 indexes dimension #0 of input #0 outside [0, its size)" {ext.guarded}
// CHECK-NOT:         cf.assert
// CHECK:             memref.load %[[X]][%{{.*}}, %[[C]]]
func.func @flat_pool(%X: memref<?x6xf32>, %T: memref<2xindex>, %Y: memref<8x6xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"c", spatial, 6>]
      ins(%X, %T : memref<?x6xf32>, memref<2xindex>)
      outs(%Y : memref<8x6xf32>)
      maps [affine_map<(i, c)[s0] -> (s0 * 4 + i mod 4, c)>,
            affine_map<(i, c) -> (i floordiv 4)>, affine_map<(i, c) -> (i, c)>]
      indirect [#ext.indirect<input = 0, symbol = 0, table = 1>] {
  ^bb0(%x: f32, %t: index):
    ext.yield %x : f32
  }
  return
}
