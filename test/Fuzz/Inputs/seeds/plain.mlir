// RUN: amp-opt %s
func.func @c(%x: f32) -> f32 {
  return %x : f32
}
