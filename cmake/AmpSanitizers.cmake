#===- AmpSanitizers.cmake - sanitizer and fuzzer builds -------*- cmake -*-===#
#
# Opt-in instrumentation of amp-mlir's own code (lib/, tools/, runtime/,
# unittests/); Debian's libMLIR.so is not instrumented. See
# docs/reliability.md; `make check-sanitize` and `make fuzz` set these.
#
#   AMP_SANITIZERS=address,undefined   -fsanitize=<list> (clang or gcc)
#   AMP_ENABLE_FUZZER=ON               libFuzzer target amp-opt-fuzzer
#                                      (clang only; tools/amp-fuzz)
#
#===----------------------------------------------------------------------===#

set(AMP_SANITIZERS "" CACHE STRING
  "Build amp-mlir's code with -fsanitize=<list>, e.g. address,undefined")
option(AMP_ENABLE_FUZZER
  "Build the libFuzzer target amp-opt-fuzzer (needs clang)" OFF)

if(AMP_SANITIZERS)
  message(STATUS "amp-mlir: sanitizers ${AMP_SANITIZERS} (amp-mlir's code only)")
  add_compile_options(-fsanitize=${AMP_SANITIZERS} -fno-omit-frame-pointer
    -gline-tables-only)
  # Every report is an error: a test that triggers one fails, whatever
  # UBSAN_OPTIONS says.
  add_compile_options(-fno-sanitize-recover=all)
  if(AMP_SANITIZERS MATCHES "undefined")
    # As LLVM's own UBSan builds: vptr needs RTTI (LLVM is built without),
    # and `function` checks indirect calls against type signatures that the
    # uninstrumented libMLIR does not carry.
    add_compile_options(-fno-sanitize=vptr,function)
  endif()
  add_link_options(-fsanitize=${AMP_SANITIZERS})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang" AND NOT AMP_ENABLE_FUZZER)
    # (Not with the fuzzer: -fsanitize=fuzzer puts libstdc++ ahead of the
    # shared runtime, which ASan refuses; it keeps the static runtime.)
    # One shared sanitizer runtime for executables and shared libraries:
    # libAmpRunnerCAPI.so links it (it is built with -Wl,--no-undefined),
    # and Python, which loads that library, gets the same runtime through
    # LD_PRELOAD (test/lit.cfg.py) while the amp-opt it starts uses it too.
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-runtime-dir
      OUTPUT_VARIABLE AMP_SANITIZER_RUNTIME_DIR
      OUTPUT_STRIP_TRAILING_WHITESPACE)
    add_link_options(-shared-libsan "-Wl,-rpath,${AMP_SANITIZER_RUNTIME_DIR}")
    if(AMP_SANITIZERS MATCHES "address")
      set(AMP_SANITIZER_PRELOAD
        "${AMP_SANITIZER_RUNTIME_DIR}/libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so")
    elseif(AMP_SANITIZERS MATCHES "undefined")
      set(AMP_SANITIZER_PRELOAD
        "${AMP_SANITIZER_RUNTIME_DIR}/libclang_rt.ubsan_standalone-${CMAKE_SYSTEM_PROCESSOR}.so")
    endif()
  endif()
endif()

if(AMP_ENABLE_FUZZER)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "AMP_ENABLE_FUZZER needs clang (libFuzzer), not "
      "${CMAKE_CXX_COMPILER_ID}: configure with "
      "-DCMAKE_CXX_COMPILER=/usr/lib/llvm-22/bin/clang++ "
      "-DCMAKE_C_COMPILER=/usr/lib/llvm-22/bin/clang (apt install clang-22 "
      "libclang-rt-22-dev), as `make fuzz` does")
  endif()
  # Coverage feedback from amp-mlir's code; libFuzzer's main is linked into
  # amp-opt-fuzzer only.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
