/* A C program built with `pkg-config --cflags --libs amp_runtime` against an
 * installed (and moved) libamp_runtime: exact f16/bf16 conversions. */
#include "amp/runtime/AmpRuntime.h"

#include <stdio.h>

int main(void) {
  const float values[] = {1.0f, -2.5f, 65504.0f, 1e-8f, 70000.0f};
  for (int i = 0; i < 5; ++i) {
    uint16_t half = ampF32ToF16(values[i]);
    printf("%g -> f16 0x%04x -> %g\n", values[i], half, ampF16ToF32(half));
  }
  printf("bf16(1.5) = 0x%04x\n", ampF32ToBF16(1.5f));
  return ampF16ToF32(ampF32ToF16(-2.5f)) == -2.5f ? 0 : 1;
}
