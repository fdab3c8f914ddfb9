# `cmake --install build --prefix P` (docs/library.md): what a C++ program needs to use texc as a
# library, and the texc command.
#   P/include/texc/{ir,frontend,lower,backends,tuner,runtime,tools/driver}/*.h   the headers, included as
#                                                  "tools/driver/Module.h" with -I P/include/texc
#   P/lib/libtexc_*.a, P/lib/libtexrt.a             the static libraries
#   P/lib/aarch64/libtexrt.a                        the runtime for arm programs (when the cross
#                                                  compiler built it; the installed texc links it)
#   P/lib/cmake/texc/texcConfig.cmake               find_package(texc): the target texc::texc_driver
#   P/bin/texc                                      the command
#   P/share/texc/stdlib                             the standard library (texc finds it from P/bin;
#                                                  a program: CompileOptions::stdlib_dir or $TEXC_STDLIB)
# The libraries keep their dependencies (LLVM 19, fmt, the ANTLR 4 runtime, XGBoost) where this build
# found them: texcConfig.cmake finds fmt and Threads again; LLVM, ANTLR and XGBoost are linked by path.
if(NOT TARGET texc_driver)
  return()
endif()
include(CMakePackageConfigHelpers)

set(TEXC_INSTALLED_LIBRARIES texc_ir texc_grammar texc_frontend texc_lower texc_backends_interp texc_backends_llvm
                             texc_backends_vdla texc_backends_execute texc_tuner texc_driver texrt)
install(TARGETS ${TEXC_INSTALLED_LIBRARIES} EXPORT texcTargets ARCHIVE DESTINATION lib)
install(TARGETS texc RUNTIME DESTINATION bin)
if(TARGET texrt_aarch64)
  install(FILES ${TEXRT_AARCH64_LIB} DESTINATION lib/aarch64)
endif()
install(EXPORT texcTargets NAMESPACE texc:: DESTINATION lib/cmake/texc)
foreach(dir ir frontend lower backends tuner runtime tools/driver)
  get_filename_component(parent ${dir} DIRECTORY)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir} DESTINATION include/texc/${parent}
          FILES_MATCHING PATTERN "*.h" PATTERN "*.def")
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/stdlib DESTINATION share/texc)

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/texcConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/texcConfig.cmake INSTALL_DESTINATION lib/cmake/texc)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/texcConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/texcConfig.cmake ${CMAKE_BINARY_DIR}/texcConfigVersion.cmake
        DESTINATION lib/cmake/texc)
