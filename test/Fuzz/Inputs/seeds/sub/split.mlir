// RUN: amp-opt %s -split-input-file | FileCheck %s
// CHECK-LABEL: func @a
func.func @a() {
  return
}

// -----

// expected-error @below {{something}}
func.func @b() {
  return
}

// -----
// Only comments in this chunk.

// -----

func.func @a() {
  return
}
