// RUN: gnnc-opt -gnn-hoist-graph-prep -split-input-file %s | FileCheck %s

// Step and predict both build the graph with self loops and its edge
// weights; step also reverses it. One @M.prepare computes each value once
// (the equal ops of the two functions are matched, not cloned twice), placed
// before the block's first function with a graph; each function takes the
// values it uses as new last arguments, in prepare's result order, and the
// graph ops are gone from it. init, without a graph, is left alone.
// CHECK-LABEL: func.func @M.init
// CHECK-LABEL: func.func @M.prepare
// CHECK-SAME: (%[[G:[^:]*]]: !gnn.graph<4x6> {gnn.input = "graph"})
// CHECK-SAME: -> (!gnn.graph<4x10> {gnn.prepared = 0 : i64}, tensor<10xf32> {gnn.prepared = 1 : i64}, !gnn.graph<4x10> {gnn.prepared = 2 : i64})
// CHECK-SAME: attributes {gnn.model = "M"}
// CHECK-NEXT: %[[L:.*]] = gnn.add_self_loops %[[G]]
// CHECK-NEXT: %[[W:.*]] = gnn.edge_norm symmetric %[[L]]
// CHECK-NEXT: %[[T:.*]] = gnn.transpose %[[L]]
// CHECK-NEXT: return %[[L]], %[[W]], %[[T]]
// CHECK-LABEL: func.func @M.step
// CHECK-SAME: %{{.*}}: !gnn.graph<4x6> {gnn.input = "graph"}
// CHECK-SAME: %[[SL:[^:]*]]: !gnn.graph<4x10> {gnn.input = "prepared", gnn.prepared = 0 : i64}
// CHECK-SAME: %[[SW:[^:]*]]: tensor<10xf32> {gnn.input = "prepared", gnn.prepared = 1 : i64}
// CHECK-SAME: %[[ST:[^:]*]]: !gnn.graph<4x10> {gnn.input = "prepared", gnn.prepared = 2 : i64}
// CHECK-NOT: gnn.add_self_loops
// CHECK-NOT: gnn.edge_norm
// CHECK-NOT: gnn.transpose
// CHECK: gnn.spmm sum %[[SL]], %{{.*}}, %[[SW]]
// CHECK: gnn.spmm sum %[[ST]], %{{.*}}, %[[SW]]
// CHECK-LABEL: func.func @M.predict
// CHECK-SAME: %[[PL:[^:]*]]: !gnn.graph<4x10> {gnn.input = "prepared", gnn.prepared = 0 : i64}
// CHECK-SAME: %[[PW:[^:]*]]: tensor<10xf32> {gnn.input = "prepared", gnn.prepared = 1 : i64})
// CHECK-NEXT: gnn.spmm sum %[[PL]], %{{.*}}, %[[PW]]
func.func @M.init(%s: i64 {gnn.input = "seed"}) -> tensor<4x2xf32>
    attributes {gnn.model = "M"} {
  %z = gnn.zeros : tensor<4x2xf32>
  return %z : tensor<4x2xf32>
}
func.func @M.step(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                  %x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>)
    attributes {gnn.model = "M"} {
  %l = gnn.add_self_loops %g : <4x6> -> <4x10>
  %w = gnn.edge_norm symmetric %l : <4x10> -> tensor<10xf32>
  %y = gnn.spmm sum %l, %x, %w : (!gnn.graph<4x10>, tensor<4x2xf32>, tensor<10xf32>) -> tensor<4x2xf32>
  %t = gnn.transpose %l : <4x10>
  %dx = gnn.spmm sum %t, %y, %w : (!gnn.graph<4x10>, tensor<4x2xf32>, tensor<10xf32>) -> tensor<4x2xf32>
  return %y, %dx : tensor<4x2xf32>, tensor<4x2xf32>
}
func.func @M.predict(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                     %x: tensor<4x2xf32>) -> tensor<4x2xf32>
    attributes {gnn.model = "M"} {
  %l = gnn.add_self_loops %g : <4x6> -> <4x10>
  %w = gnn.edge_norm symmetric %l : <4x10> -> tensor<10xf32>
  %y = gnn.spmm sum %l, %x, %w : (!gnn.graph<4x10>, tensor<4x2xf32>, tensor<10xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// A value used only by other hoisted ops is not a result: here the
// reversed graph only feeds its own reversal. A model whose layers use the
// graph as it is (no graph-derived op) gets no prepare function.
// CHECK-LABEL: func.func @A.prepare
// CHECK-SAME: -> (tensor<6xf32> {gnn.prepared = 0 : i64}, !gnn.graph<4x6> {gnn.prepared = 1 : i64})
// CHECK: %[[T:.*]] = gnn.transpose
// CHECK: %[[TT:.*]] = gnn.transpose %[[T]]
// CHECK: return %{{.*}}, %[[TT]]
// CHECK-LABEL: func.func @A.step
// CHECK-SAME: %[[W:[^:]*]]: tensor<6xf32> {gnn.input = "prepared", gnn.prepared = 0 : i64}
// CHECK-SAME: %[[G2:[^:]*]]: !gnn.graph<4x6> {gnn.input = "prepared", gnn.prepared = 1 : i64})
// CHECK: gnn.spmm sum %[[G2]], %{{.*}}, %[[W]]
// CHECK-NOT: func.func @B.prepare
// CHECK-LABEL: func.func @B.step
// CHECK-SAME: (%{{.*}}: !gnn.graph<4x6> {gnn.input = "graph"}, %{{.*}}: tensor<4x2xf32>) -> tensor<4x2xf32>
func.func @A.step(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                  %x: tensor<4x2xf32>) -> tensor<4x2xf32>
    attributes {gnn.model = "A"} {
  %w = gnn.edge_norm mean %g : <4x6> -> tensor<6xf32>
  %t = gnn.transpose %g : <4x6>
  %tt = gnn.transpose %t : <4x6>
  %y = gnn.spmm sum %tt, %x, %w : (!gnn.graph<4x6>, tensor<4x2xf32>, tensor<6xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
func.func @B.step(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                  %x: tensor<4x2xf32>) -> tensor<4x2xf32>
    attributes {gnn.model = "B"} {
  %y = gnn.spmm mean %g, %x : (!gnn.graph<4x6>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
