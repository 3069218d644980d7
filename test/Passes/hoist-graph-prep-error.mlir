// RUN: gnnc-opt -gnn-hoist-graph-prep -split-input-file -verify-diagnostics %s

// The name the pass would give is taken.
// expected-error @+1 {{gnn-hoist-graph-prep: 'M.prepare' exists already}}
func.func @M.prepare() attributes {gnn.model = "M"} {
  return
}
func.func @M.step(%g: !gnn.graph<4x6> {gnn.input = "graph"}) -> tensor<10xf32>
    attributes {gnn.model = "M"} {
  %l = gnn.add_self_loops %g : <4x6> -> <4x10>
  %w = gnn.edge_norm symmetric %l : <4x10> -> tensor<10xf32>
  return %w : tensor<10xf32>
}
