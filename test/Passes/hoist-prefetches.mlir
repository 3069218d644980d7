// RUN: gnnc-opt -gnn-assign-buffers -mem-hoist-prefetches %s | FileCheck %s

// The ops between the offload and the prefetch write only result slots,
// outside the arena: the prefetch goes up to right after the offload.
// CHECK-LABEL: func.func @up_to_the_offload
// CHECK: %[[H:.*]] = mem.offload
// CHECK-NEXT: mem.prefetch %[[H]]
// CHECK-NEXT: gnn.activation tanh
// CHECK-NEXT: gnn.activation relu
// CHECK-NEXT: mem.free %[[H]]
func.func @up_to_the_offload(%x: tensor<16xf32>, %a: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %y = gnn.activation relu %x : tensor<16xf32>
  %h = mem.offload %y to host {mem.handle = 0 : i64} : tensor<16xf32> -> !mem.offloaded<host, tensor<16xf32>>
  %b = gnn.activation tanh %a : tensor<16xf32>
  %c = gnn.activation relu %a : tensor<16xf32>
  %z = mem.prefetch %h : !mem.offloaded<host, tensor<16xf32>> -> tensor<16xf32>
  mem.free %h : !mem.offloaded<host, tensor<16xf32>>
  %s = gnn.add %z, %x : tensor<16xf32>
  return %s, %b, %c : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// %b takes %y's bytes, which the prefetch's result takes again: the
// prefetch goes up to right after relu, the last op reading them, past
// the tanh that does not.
// CHECK-LABEL: func.func @up_to_the_last_reader
// CHECK: %[[B:.*]] = gnn.activation tanh %{{.*}} {gnn.offsets = array<i64: 0>}
// CHECK-NEXT: gnn.activation relu %[[B]]
// CHECK-NEXT: mem.prefetch {{.*}} {gnn.offsets = array<i64: 0>}
// CHECK-NEXT: gnn.activation tanh %arg1 {gnn.offsets = array<i64: -2>
// CHECK-NEXT: mem.free
func.func @up_to_the_last_reader(%x: tensor<16xf32>, %a: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %y = gnn.activation relu %x : tensor<16xf32>
  %h = mem.offload %y to host {mem.handle = 0 : i64} : tensor<16xf32> -> !mem.offloaded<host, tensor<16xf32>>
  %b = gnn.activation tanh %a : tensor<16xf32>
  %c = gnn.activation relu %b : tensor<16xf32>
  %d = gnn.activation tanh %a : tensor<16xf32>
  %z = mem.prefetch %h : !mem.offloaded<host, tensor<16xf32>> -> tensor<16xf32>
  mem.free %h : !mem.offloaded<host, tensor<16xf32>>
  %s = gnn.add %z, %x : tensor<16xf32>
  return %s, %c, %d : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// A disk prefetch is a synchronous read: it stays.
// CHECK-LABEL: func.func @disk_stays
// CHECK: gnn.activation tanh
// CHECK-NEXT: mem.prefetch
func.func @disk_stays(%x: tensor<16xf32>, %a: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %y = gnn.activation relu %x : tensor<16xf32>
  %h = mem.offload %y to disk {mem.handle = 0 : i64} : tensor<16xf32> -> !mem.offloaded<disk, tensor<16xf32>>
  %b = gnn.activation tanh %a : tensor<16xf32>
  %z = mem.prefetch %h : !mem.offloaded<disk, tensor<16xf32>> -> tensor<16xf32>
  mem.free %h : !mem.offloaded<disk, tensor<16xf32>>
  %s = gnn.add %z, %x : tensor<16xf32>
  return %s, %b : tensor<16xf32>, tensor<16xf32>
}

// The spmm reads %g2's bytes, which the prefetch's result takes again,
// through the transpose, a view without bytes of its own: the prefetch
// stays after it.
// CHECK-LABEL: func.func @view_reader
// CHECK: gnn.transpose
// CHECK-NEXT: gnn.spmm
// CHECK-NEXT: mem.prefetch {{.*}} {gnn.offsets = array<i64: 0>}
func.func @view_reader(%g: !gnn.graph<4x8>, %x: tensor<16xf32>, %a: tensor<4x4xf32>) -> (tensor<16xf32>, tensor<4x4xf32>) {
  %y = gnn.activation relu %x : tensor<16xf32>
  %h = mem.offload %y to host {mem.handle = 0 : i64} : tensor<16xf32> -> !mem.offloaded<host, tensor<16xf32>>
  %g2 = gnn.add_self_loops %g : <4x8> -> <4x12>
  %t = gnn.transpose %g2 : <4x12>
  %r = gnn.spmm sum %t, %a : (!gnn.graph<4x12>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %z = mem.prefetch %h : !mem.offloaded<host, tensor<16xf32>> -> tensor<16xf32>
  mem.free %h : !mem.offloaded<host, tensor<16xf32>>
  %s = gnn.add %z, %x : tensor<16xf32>
  return %s, %r : tensor<16xf32>, tensor<4x4xf32>
}
