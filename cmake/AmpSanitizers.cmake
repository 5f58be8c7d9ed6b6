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
  # Shared libraries get the sanitizer runtime from the executable that
  # loads them: their references to it are undefined at link time.
  string(REPLACE "-Wl,-z,defs" "" CMAKE_SHARED_LINKER_FLAGS
    "${CMAKE_SHARED_LINKER_FLAGS}")
  string(REPLACE "-Wl,-z,defs" "" CMAKE_MODULE_LINKER_FLAGS
    "${CMAKE_MODULE_LINKER_FLAGS}")
endif()

if(AMP_ENABLE_FUZZER)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "AMP_ENABLE_FUZZER needs clang (libFuzzer), not "
      "${CMAKE_CXX_COMPILER_ID}: configure with -DCMAKE_CXX_COMPILER=clang++-22 "
      "-DCMAKE_C_COMPILER=clang-22 (apt install clang-22 libclang-rt-22-dev)")
  endif()
  # Coverage feedback from amp-mlir's code; libFuzzer's main is linked into
  # amp-opt-fuzzer only.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
