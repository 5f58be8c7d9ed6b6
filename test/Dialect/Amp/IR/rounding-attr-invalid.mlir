// RUN: amp-opt %s --split-input-file -verify-diagnostics | FileCheck %s

// expected-error @+1 {{'amp.rounding' must be "once" or "per-op", got "twice"}}
module attributes {amp.rounding = "twice"} {
}

// -----

// expected-error @+1 {{'amp.rounding' must be "once" or "per-op", got 1 : i32}}
module attributes {amp.rounding = 1 : i32} {
}

// -----

// CHECK: module attributes {amp.rounding = "per-op"}
module attributes {amp.rounding = "per-op"} {
}
