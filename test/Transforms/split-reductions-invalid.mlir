// RUN: amp-opt %s --amp-split-reductions=ratio=-1 -verify-diagnostics
// RUN: not amp-opt %s --lower-to-cpu=split-reductions=-2 2>&1 | FileCheck %s

// CHECK: ratio must be 0 (off) or more, got -2
// expected-error @below {{amp-split-reductions: ratio must be 0 (off) or more, got -1}}
func.func @negative(%x: f32) -> f32 {
  return %x : f32
}
