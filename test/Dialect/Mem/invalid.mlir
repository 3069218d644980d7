// Op, type and attribute verifiers of the mem dialect, one case each.
// RUN: gnnc-opt %s -split-input-file -allow-unregistered-dialect -verify-diagnostics

// expected-error @+1 {{an offloaded tensor lives on host or disk, not on the device}}
func.func @device_handle(%h: !mem.offloaded<device, tensor<4xf32>>) {
  return
}

// -----

func.func @offload_to_device(%x: tensor<4xf32>) {
  // expected-error @+1 {{can only offload to host or disk}}
  %h = mem.offload %x to device : tensor<4xf32> -> !mem.offloaded<host, tensor<4xf32>>
  return
}

// -----

func.func @offload_unknown_tier(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected a storage tier (host, disk), got 'gpu'}}
  %h = mem.offload %x to gpu : tensor<4xf32> -> !mem.offloaded<host, tensor<4xf32>>
  return
}

// -----

func.func @offload_tier_mismatch(%x: tensor<4xf32>) {
  // expected-error @+1 {{result tier 'host' must be the op's tier 'disk'}}
  %h = mem.offload %x to disk : tensor<4xf32> -> !mem.offloaded<host, tensor<4xf32>>
  return
}

// -----

func.func @offload_type_mismatch(%x: tensor<4xf32>) {
  // expected-error @+1 {{result must hold the operand's type 'tensor<4xf32>', got 'tensor<4xf16>'}}
  %h = mem.offload %x to host : tensor<4xf32> -> !mem.offloaded<host, tensor<4xf16>>
  return
}

// -----

func.func @offload_negative_stream(%x: tensor<4xf32>) {
  // expected-error @+1 {{attribute 'stream' failed to satisfy constraint}}
  %h = mem.offload %x to host {stream = -1} : tensor<4xf32> -> !mem.offloaded<host, tensor<4xf32>>
  return
}

// -----

func.func @use_after_offload(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand is used after it was offloaded (use the mem.prefetch result)}}
  %h = mem.offload %x to host : tensor<4xf32> -> !mem.offloaded<host, tensor<4xf32>>
  // expected-note @+1 {{used here}}
  return %x : tensor<4xf32>
}

// -----

// The next gnn op may read an offloaded value one last time, no later op.
func.func @use_after_hand_off(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand is used after it was offloaded}}
  %h = mem.offload %x to host : tensor<4xf32> -> !mem.offloaded<host, tensor<4xf32>>
  %y = gnn.activation relu %x : tensor<4xf32>
  // expected-note @+1 {{used here}}
  %z = gnn.add %y, %x : tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

// A use nested in a later op's region counts as a use after the offload.
func.func @nested_use_after_offload(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand is used after it was offloaded}}
  %h = mem.offload %x to host : tensor<4xf32> -> !mem.offloaded<host, tensor<4xf32>>
  %y = tensor.generate {
  ^bb0(%i: index):
    // expected-note @+1 {{used here}}
    %e = tensor.extract %x[%i] : tensor<4xf32>
    tensor.yield %e : f32
  } : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @prefetch_type_mismatch(%h: !mem.offloaded<host, tensor<4xf32>>) {
  // expected-error @+1 {{result type must be the offloaded type 'tensor<4xf32>', got 'tensor<8xf32>'}}
  %y = mem.prefetch %h : !mem.offloaded<host, tensor<4xf32>> -> tensor<8xf32>
  return
}

// -----

func.func @recompute_nothing(%x: tensor<4xf32>) {
  // expected-error @+1 {{must re-derive at least one value}}
  mem.recompute (%x) : (tensor<4xf32>) -> () {
  ^bb0(%x0: tensor<4xf32>):
    mem.yield
  }
  return
}

// -----

func.func @recompute_arg_count(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{region needs one argument per input: expected 2, got 1}}
  %r = mem.recompute (%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x0: tensor<4xf32>):
    mem.yield %x0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recompute_arg_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{region argument #0 has type 'tensor<4xf16>', but input #0 has type 'tensor<4xf32>'}}
  %r = mem.recompute (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x0: tensor<4xf16>):
    %c = arith.constant dense<0.0> : tensor<4xf32>
    mem.yield %c : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recompute_yield_types(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = mem.recompute (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x0: tensor<4xf32>):
    // expected-error @+1 {{yields 'tensor<4xf32>', 'tensor<4xf32>', but the mem.recompute returns 'tensor<4xf32>'}}
    mem.yield %x0, %x0 : tensor<4xf32>, tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recompute_terminator(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{region must end in mem.yield}}
  %r = mem.recompute (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x0: tensor<4xf32>):
    "test.terminator"(%x0) : (tensor<4xf32>) -> ()
  }
  return %r : tensor<4xf32>
}

// -----

// The region sees only what the recompute lists as inputs.
func.func @recompute_captures(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = mem.recompute () : () -> tensor<4xf32> {
    // expected-error @+1 {{using value defined outside the region}}
    mem.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @yield_outside(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects parent op 'mem.recompute'}}
  mem.yield %x : tensor<4xf32>
}

// -----

func.func @store_as_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result must have the operand's shape and encoding, got 'tensor<4x8xf32>' -> 'tensor<8x4xbf16>'}}
  %s = mem.store_as %x : tensor<4x8xf32> -> tensor<8x4xbf16>
  return
}

// -----

func.func @store_as_not_narrower(%x: tensor<4xbf16>) {
  // expected-error @+1 {{result element type 'f16' must be narrower than the operand's 'bf16'}}
  %s = mem.store_as %x : tensor<4xbf16> -> tensor<4xf16>
  return
}

// -----

func.func @store_as_integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %s = mem.store_as %x : tensor<4xi32> -> tensor<4xi16>
  return
}

// -----

func.func @use_after_store_as(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand is used after it was stored narrow (use the mem.load_as result)}}
  %s = mem.store_as %x : tensor<4xf32> -> tensor<4xbf16>
  // expected-note @+1 {{used here}}
  return %x : tensor<4xf32>
}

// -----

func.func @load_as_not_wider(%x: tensor<4xf32>) {
  // expected-error @+1 {{result element type 'bf16' must be wider than the operand's 'f32'}}
  %s = mem.load_as %x : tensor<4xf32> -> tensor<4xbf16>
  return
}

// -----

func.func @load_as_shape(%x: tensor<4xbf16>) {
  // expected-error @+1 {{result must have the operand's shape and encoding}}
  %s = mem.load_as %x : tensor<4xbf16> -> tensor<5xf32>
  return
}

// -----

func.func @use_after_free(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand is used after it was freed}}
  mem.free %x : tensor<4xf32>
  // expected-note @+1 {{used here}}
  %y = mem.store_as %x : tensor<4xf32> -> tensor<4xbf16>
  %z = mem.load_as %y : tensor<4xbf16> -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

// expected-error @+1 {{peak_host must be a non-negative number of bytes, got -1}}
func.func @plan_bytes() attributes {mem.plan = #mem.plan<budget = 1024, peak_device = 512, peak_host = -1, peak_disk = 0, predicted_seconds = 1.0, keep_all_seconds = 1.0, policy = "auto">} {
  return
}

// -----

// expected-error @+1 {{predicted_seconds must be a finite, non-negative double, got -1.000000e+00}}
func.func @plan_seconds() attributes {mem.plan = #mem.plan<budget = 1024, peak_device = 512, peak_host = 0, peak_disk = 0, predicted_seconds = -1.0, keep_all_seconds = 1.0, policy = "auto">} {
  return
}

// -----

// expected-error @+1 {{policy must name how the plan was chosen}}
func.func @plan_policy() attributes {mem.plan = #mem.plan<budget = 1024, peak_device = 512, peak_host = 0, peak_disk = 0, predicted_seconds = 1.0, keep_all_seconds = 1.0, policy = "">} {
  return
}

// -----

// expected-error @+1 {{'mem.plan' must be a #mem.plan attribute, got 1024 : i64}}
func.func @plan_not_a_plan() attributes {mem.plan = 1024} {
  return
}

// -----

// expected-error @+1 {{'mem.plan' belongs on a function, not on 'builtin.module'}}
module attributes {mem.plan = #mem.plan<budget = 1024, peak_device = 512, peak_host = 0, peak_disk = 0, predicted_seconds = 1.0, keep_all_seconds = 1.0, policy = "auto">} {
}

// -----

// expected-error @+1 {{unknown mem attribute 'mem.plna'}}
func.func @plan_misspelt() attributes {mem.plna = 1} {
  return
}

// -----

// expected-error @+1 {{'mem.solver' must name the solver that chose the fates}}
func.func @solver_empty() attributes {mem.solver = ""} {
  return
}

// -----

// expected-error @+1 {{'mem.solver' must name the solver that chose the fates}}
func.func @solver_not_a_string() attributes {mem.solver = 3 : i64} {
  return
}

// -----

// expected-error @+1 {{'mem.split_seconds' must be a float, got "0.5"}}
func.func @split_seconds_not_a_float() attributes {mem.split_seconds = "0.5"} {
  return
}

// -----

// expected-error @+1 {{'mem.loss_point' must be a non-negative integer, got -1 : i64}}
func.func @loss_point_negative() attributes {mem.loss_point = -1 : i64} {
  return
}

// -----

// expected-error @+1 {{'mem.loss_point' belongs on a function, not on 'builtin.module'}}
module attributes {mem.loss_point = 3 : i64} {
}

// -----

func.func @rows_to_disk(%x: tensor<4x8xf32>, %r: tensor<8xi32>) {
  // expected-error @+1 {{offloads rows to the host tier only}}
  %h = mem.offload %x rows %r to disk {level = 1 : i64} : tensor<4x8xf32>, tensor<8xi32> -> !mem.offloaded<disk, tensor<4x8xf32>>
  return
}

// -----

func.func @rows_without_level(%x: tensor<4x8xf32>, %r: tensor<8xi32>) {
  // expected-error @+1 {{needs both row sets and a level, or neither}}
  %h = mem.offload %x rows %r to host : tensor<4x8xf32>, tensor<8xi32> -> !mem.offloaded<host, tensor<4x8xf32>>
  return
}

// -----

func.func @rows_not_over_the_tensor(%x: tensor<4x8xf32>, %r: tensor<5xi32>) {
  // expected-error @+1 {{row sets of 5 integers are not over 4 rows (hops + 1 + N + ceil(N / 4))}}
  %h = mem.offload %x rows %r to host {level = 0 : i64} : tensor<4x8xf32>, tensor<5xi32> -> !mem.offloaded<host, tensor<4x8xf32>>
  return
}

// -----

func.func @rows_level_beyond_hops(%x: tensor<4x8xf32>, %r: tensor<8xi32>) {
  // expected-error @+1 {{level 3 is beyond the row sets' 2 hops}}
  %h = mem.offload %x rows %r to host {level = 3 : i64} : tensor<4x8xf32>, tensor<8xi32> -> !mem.offloaded<host, tensor<4x8xf32>>
  return
}

// -----

func.func @prefetch_other_rows(%x: tensor<4x8xf32>, %r: tensor<8xi32>) -> tensor<4x8xf32> {
  %h = mem.offload %x rows %r to host {level = 1 : i64} : tensor<4x8xf32>, tensor<8xi32> -> !mem.offloaded<host, tensor<4x8xf32>>
  // expected-error @+1 {{must bring back the rows its mem.offload copied}}
  %y = mem.prefetch %h : !mem.offloaded<host, tensor<4x8xf32>> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @load_home_rows_beyond_hops(%x: tensor<4x8xf32> {mem.home = "host"}, %r: tensor<8xi32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{level 3 is beyond the row sets' 2 hops}}
  %y = mem.load_home %x rows %r {level = 3 : i64} : tensor<4x8xf32>, tensor<8xi32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @load_graph_home_not_a_home(%g: !gnn.graph<4x6>) {
  // expected-error @+1 {{operand must be an argument of the enclosing function marked mem.home = "host"}}
  %g0 = mem.load_graph_home %g : !gnn.graph<4x6>
  return
}

// -----

func.func @load_graph_home_out_view(%g: !gnn.graph<4x6> {mem.home = "host"}) {
  // expected-error @+1 {{result has the graph's in view only, but 'gnn.transpose' reads both}}
  %g0 = mem.load_graph_home %g : !gnn.graph<4x6>
  %t = gnn.transpose %g0 : <4x6>
  return
}

// -----

func.func @load_graph_home_other_view(%g: !gnn.graph<4x6> {mem.home = "host"}, %e: tensor<6x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{result has the graph's in view only, but 'gnn.scatter' reads the other}}
  %g0 = mem.load_graph_home %g : !gnn.graph<4x6>
  %y = gnn.scatter src %g0, %e : (!gnn.graph<4x6>, tensor<6x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

func.func @load_graph_home_tiles_max(%g: !gnn.graph<4x6> {mem.home = "host"}, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{with tile_bytes may only be read as the graph of gnn.spmm sum or mean, gnn.sddmm, gnn.edge_softmax or gnn.edge_softmax_grad, or of one restricted to some rows, or of gnn.receptive_rows or gnn.receptive_edges, but 'gnn.spmm' reads it}}
  %g0 = mem.load_graph_home %g {tile_bytes = 280 : i64} : !gnn.graph<4x6>
  %y = gnn.spmm max %g0, %x : (!gnn.graph<4x6>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @load_graph_home_tiles_gather(%g: !gnn.graph<4x6> {mem.home = "host"}, %x: tensor<4x8xf32>) -> tensor<6x8xf32> {
  // expected-error @+1 {{with tile_bytes may only be read as the graph of gnn.spmm sum or mean, gnn.sddmm, gnn.edge_softmax or gnn.edge_softmax_grad, or of one restricted to some rows, or of gnn.receptive_rows or gnn.receptive_edges, but 'gnn.gather' reads it}}
  %g0 = mem.load_graph_home %g {tile_bytes = 280 : i64} : !gnn.graph<4x6>
  %y = gnn.gather src %g0, %x : (!gnn.graph<4x6>, tensor<4x8xf32>) -> tensor<6x8xf32>
  return %y : tensor<6x8xf32>
}

// -----

// The out view in tiles is read by restricted scatters to sources only
// (gnnrt_cpu_scatter_rows_tiles).
func.func @load_graph_home_tiles_out(%g: !gnn.graph<4x6> {mem.home = "host"}, %e: tensor<6x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{with tile_bytes may only be read as the graph of gnn.spmm sum or mean, gnn.sddmm, gnn.edge_softmax or gnn.edge_softmax_grad, or of one restricted to some rows, or of gnn.receptive_rows or gnn.receptive_edges, but 'gnn.scatter' reads it}}
  %g0 = mem.load_graph_home %g {out, tile_bytes = 280 : i64} : !gnn.graph<4x6>
  %y = gnn.scatter src %g0, %e : (!gnn.graph<4x6>, tensor<6x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

func.func @load_home_tiles_whole_graph(%g: !gnn.graph<4x6> {mem.home = "host"}, %x: tensor<4x8xf32>, %w: tensor<6xf32> {mem.home = "host"}) -> tensor<4x8xf32> {
  %g0 = mem.load_graph_home %g : !gnn.graph<4x6>
  // expected-error @+1 {{with tile_bytes may only be read as the weights of a gnn.spmm whose graph is a mem.load_graph_home with tile_bytes, but 'gnn.spmm' reads it}}
  %w0 = mem.load_home %w {tile_bytes = 40 : i64} : tensor<6xf32>
  %y = gnn.spmm sum %g0, %x, %w0 : (!gnn.graph<4x6>, tensor<4x8xf32>, tensor<6xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @load_home_tiles_zero(%w: tensor<6xf32> {mem.home = "host"}) {
  // expected-error @+1 {{attribute 'tile_bytes' failed to satisfy constraint}}
  %w0 = mem.load_home %w {tile_bytes = 0 : i64} : tensor<6xf32>
  return
}

// -----

func.func @prefetch_tiles_vector(%x: tensor<8xf32>) {
  %h = mem.offload %x to host : tensor<8xf32> -> !mem.offloaded<host, tensor<8xf32>>
  // expected-error @+1 {{with tile_bytes brings back a whole CSR matrix or a static f32 matrix}}
  %t = mem.prefetch %h {tile_bytes = 112 : i64} : !mem.offloaded<host, tensor<8xf32>> -> tensor<8xf32>
  return
}

// -----

// A dense matrix read in tiles is read by products only (as their left
// operand, gnnrt_cpu_matmul_tiles).
func.func @prefetch_tiles_dense_not_a_product(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %h = mem.offload %x to host : tensor<4x8xf32> -> !mem.offloaded<host, tensor<4x8xf32>>
  // expected-error @+1 {{with tile_bytes may only be read as the left operand of a gnn.matmul, but 'gnn.activation' reads it}}
  %t = mem.prefetch %h {tile_bytes = 128 : i64} : !mem.offloaded<host, tensor<4x8xf32>> -> tensor<4x8xf32>
  %r = gnn.activation relu %t : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

func.func @prefetch_tiles_disk(%a: tensor<4x6xf32, #gnn.csr<nnz = 5>>) {
  %h = mem.offload %a to disk : tensor<4x6xf32, #gnn.csr<nnz = 5>> -> !mem.offloaded<disk, tensor<4x6xf32, #gnn.csr<nnz = 5>>>
  // expected-error @+1 {{with tile_bytes reads a copy in the host tier}}
  %t = mem.prefetch %h {tile_bytes = 112 : i64} : !mem.offloaded<disk, tensor<4x6xf32, #gnn.csr<nnz = 5>>> -> tensor<4x6xf32, #gnn.csr<nnz = 5>>
  return
}

// -----

func.func @prefetch_tiles_dropout(%a: tensor<4x6xf32, #gnn.csr<nnz = 5>>, %k: !gnn.rng_key) {
  %h = mem.offload %a to host : tensor<4x6xf32, #gnn.csr<nnz = 5>> -> !mem.offloaded<host, tensor<4x6xf32, #gnn.csr<nnz = 5>>>
  // expected-error @+1 {{with tile_bytes may only be read as the left operand of a gnn.matmul, but 'gnn.dropout' reads it}}
  %t = mem.prefetch %h {tile_bytes = 112 : i64} : !mem.offloaded<host, tensor<4x6xf32, #gnn.csr<nnz = 5>>> -> tensor<4x6xf32, #gnn.csr<nnz = 5>>
  %d = gnn.dropout %t, %k {p = 5.000000e-01 : f64, stream = 0 : i64} : tensor<4x6xf32, #gnn.csr<nnz = 5>>
  return
}

// -----

func.func @load_home_csr_tiles_dropout(%f: tensor<4x6xf32, #gnn.csr<nnz = 5>> {mem.home = "host"}, %k: !gnn.rng_key) {
  // expected-error @+1 {{with tile_bytes may only be read as the left operand of a gnn.matmul, but 'gnn.dropout' reads it}}
  %f0 = mem.load_home %f {tile_bytes = 112 : i64} : tensor<4x6xf32, #gnn.csr<nnz = 5>>
  %d = gnn.dropout %f0, %k {p = 5.000000e-01 : f64, stream = 0 : i64} : tensor<4x6xf32, #gnn.csr<nnz = 5>>
  return
}

// -----

func.func @store_sign_shape(%x: tensor<4x9xf32>) {
  // expected-error @+1 {{bits of 'tensor<4x9xf32>' must be 'tensor<4x2xi8>', got 'tensor<4x1xi8>'}}
  %s = mem.store_sign %x : tensor<4x9xf32> -> tensor<4x1xi8>
  return
}

// -----

func.func @store_sign_dynamic(%x: tensor<?x9xf32>) {
  // expected-error @+1 {{packs a static float tensor without encoding, got 'tensor<?x9xf32>'}}
  %s = mem.store_sign %x : tensor<?x9xf32> -> tensor<4x2xi8>
  return
}

// -----

func.func @use_after_store_sign(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand is used after it was stored as its sign (use mem.load_sign)}}
  %s = mem.store_sign %x : tensor<4xf32> -> tensor<4x1xi8>
  // expected-note @+1 {{used here}}
  return %x : tensor<4xf32>
}

// -----

func.func @load_sign_read_by_elu(%s: tensor<4x1xi8>, %dy: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{result is a sign, not the stored tensor: only the input of a relu or leaky_relu gradient may read it}}
  %x = mem.load_sign %s : tensor<4x1xi8> -> tensor<4xf32>
  // expected-note @+1 {{read here}}
  %g = gnn.activation_grad elu %x, %dy : tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @load_sign_as_the_gradient(%s: tensor<4x1xi8>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{result is a sign, not the stored tensor}}
  %dy = mem.load_sign %s : tensor<4x1xi8> -> tensor<4xf32>
  // expected-note @+1 {{read here}}
  %g = gnn.activation_grad relu %x, %dy : tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @load_sign_rows_level(%s: tensor<6x2xi8>, %sets: tensor<11xi32>) {
  // expected-error @+1 {{level 3 is beyond the row sets' 2 hops}}
  %x = mem.load_sign %s rows %sets {level = 3 : i64} : tensor<6x2xi8>, tensor<11xi32> -> tensor<6x9xf32>
  return
}
