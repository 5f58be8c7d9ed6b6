// Bad --lower-to-gpu options are clear errors, not crashes (LLVM aborts on
// sm_90 with its default PTX 6.0; CUDA 13's ptxas rejects sm_50).
// RUN: not amp-opt %s --lower-to-gpu="chip=sm_50" 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not amp-opt %s --lower-to-gpu="chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not amp-opt %s --lower-to-gpu="format=ptx" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not amp-opt %s --lower-to-gpu="features=ptx80" 2>&1 | FileCheck %s --check-prefix=FEATURES
// RUN: not amp-opt %s --lower-to-gpu="toolkit=/nonexistent" 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not amp-opt %s --lower-to-gpu="block-size=0" 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not amp-opt %s --lower-to-gpu="vector-bytes=32" 2>&1 | FileCheck %s --check-prefix=VECTOR
// RUN: not amp-opt %s --lower-to-gpu="vectors-per-thread=0" 2>&1 | FileCheck %s --check-prefix=PERTHREAD
// RUN: not amp-opt %s --lower-to-gpu="vectors-per-thread=17" 2>&1 | FileCheck %s --check-prefix=PERTHREAD
// RUN: not amp-opt %s --lower-to-gpu="sm-count=-1" 2>&1 | FileCheck %s --check-prefix=SMCOUNT
// The tools' --gpu-options are read into the same typed options, once,
// where they enter; what the types do not check waits for the pipeline.
// RUN: not amp-run %s --level=O0 --target=gpu-sim --gpu-options=chip=volta 2>&1 | FileCheck %s --check-prefix=RUNCHIP
// RUN: not amp-run %s --level=O0 --target=gpu-sim --gpu-options=block-size=2000 2>&1 | FileCheck %s --check-prefix=RUNBLOCK

// Good options run: @f (a copy kernel) with the edges of block-size's
// range in the GPU simulator gives the CPU's result exactly.
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-run %s --level=O0 --target=cpu --outputs %t/cpu.npy
// RUN: amp-run %s --level=O0 --target=gpu-sim --gpu-options=block-size=1 --outputs %t/1.npy | FileCheck %s --check-prefix=SIM1
// RUN: amp-run %s --level=O0 --target=gpu-sim --gpu-options=block-size=1024 --outputs %t/1024.npy | FileCheck %s --check-prefix=SIM1024
// RUN: amp-run %s --level=O0 --target=gpu-sim --gpu-options=vector-bytes=0 --outputs %t/scalar.npy | FileCheck %s --check-prefix=SCALAR
// RUN: %python %S/../../amp-run/Inputs/compare-npy.py 0 %t/1.npy,%t/1024.npy,%t/scalar.npy %t/cpu.npy,%t/cpu.npy,%t/cpu.npy | FileCheck %s --check-prefix=CMP
// The copy of 4 floats is one 16-byte access (one thread); vector-bytes=0
// gives one thread per element.
// SIM1: gpu-sim: 1 kernel launches (1 threads), 0 library calls, 2 device allocations, 2 frees, 0 live
// SIM1024: gpu-sim: 1 kernel launches (1 threads), 0 library calls, 2 device allocations, 2 frees, 0 live
// SCALAR: gpu-sim: 1 kernel launches (4 threads), 0 library calls, 2 device allocations, 2 frees, 0 live
// CMP: output 0: rel L2 0.000e+00 ok
// CMP: output 1: rel L2 0.000e+00 ok
// CMP: output 2: rel L2 0.000e+00 ok

// OLD: lower-to-gpu: chip 'sm_50' is older than sm_75, which CUDA 13's ptxas no longer supports
// CHIP: lower-to-gpu: chip 'gfx90a' is not of the form sm_<N>[a]
// FORMAT: lower-to-gpu: format must be fatbin, isa or bin, got 'ptx'
// FEATURES: lower-to-gpu: features must be of the form +ptx<N>, got 'ptx80'
// TOOLKIT: lower-to-gpu: no ptxas at '/nonexistent/bin/ptxas': set toolkit= to a CUDA toolkit root, or use format=isa
// BLOCK: lower-to-gpu: block-size must be in [1, 1024]
// VECTOR: lower-to-gpu: vector-bytes must be 0 (no vectorisation), 4, 8 or 16
// PERTHREAD: lower-to-gpu: vectors-per-thread must be in [1, 16]
// SMCOUNT: sm-count
// RUNCHIP: amp-run: error: --gpu-options: chip 'volta' is not of the form sm_<N>[a]
// RUNBLOCK: block-size must be in [1, 1024]
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
