func.func @g(%a: f32) -> f32 {
  %0 = amp.fp16_guard -> f32 {
    %1 = arith.addf %a, %a : f32
    amp.yield %1 : f32
  }
  return %0 : f32
}
