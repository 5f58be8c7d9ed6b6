func.func @f(%a: f32) -> f16 {
  %0 = amp.fp16_guard -> f16 {
    %1 = amp.cast %a : f32 to f16
    amp.yield %1 : f16
  }
  return %0 : f16
}
