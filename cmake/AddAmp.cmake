#===- AddAmp.cmake - helpers for amp-mlir targets -------------*- cmake -*-===#
#
# Thin wrappers over AddMLIR.cmake (as CIRCT's AddCIRCT.cmake): libraries go
# into our own `AmpMLIRTargets` export set (exported as `AmpMLIR::<name>`), not
# into MLIR's, and link MLIR through `mlir_target_link_libraries` so that
# AMP_LINK_MLIR_DYLIB picks libMLIR.so or the static archives.
#
#===----------------------------------------------------------------------===#

# add_amp_library(name srcs... [DEPENDS targets...] [MLIR_LIBS libs...]
#                 [LINK_LIBS amp-libs...] [LINK_COMPONENTS llvm-components...])
function(add_amp_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;MLIR_LIBS;LINK_LIBS;LINK_COMPONENTS"
                        ${ARGN})
  add_mlir_library(${name} ${ARG_UNPARSED_ARGUMENTS}
    DISABLE_INSTALL
    DEPENDS mlir-headers ${ARG_DEPENDS}
    LINK_COMPONENTS ${ARG_LINK_COMPONENTS})
  if(ARG_LINK_LIBS)
    target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS})
  endif()
  if(ARG_MLIR_LIBS)
    mlir_target_link_libraries(${name} PUBLIC ${ARG_MLIR_LIBS})
  endif()
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  # Consumers build against the same MLIR headers.
  target_include_directories(${name} SYSTEM INTERFACE
    $<INSTALL_INTERFACE:${MLIR_INCLUDE_DIRS}>
    $<INSTALL_INTERFACE:${LLVM_INCLUDE_DIRS}>)
  install(TARGETS ${name}
    EXPORT AmpMLIRTargets
    COMPONENT ${name}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  set_property(GLOBAL APPEND PROPERTY AMP_ALL_LIBS ${name})
endfunction()

# add_amp_tool(name srcs... [MLIR_LIBS libs...] [LINK_LIBS amp-libs...])
function(add_amp_tool name)
  cmake_parse_arguments(ARG "" "" "MLIR_LIBS;LINK_LIBS" ${ARGN})
  add_llvm_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  llvm_update_compile_flags(${name})
  target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBS})
  mlir_target_link_libraries(${name} PRIVATE ${ARG_MLIR_LIBS})
  install(TARGETS ${name} EXPORT AmpMLIRTargets
    COMPONENT ${name}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()
