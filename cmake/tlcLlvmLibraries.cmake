# How tlc links Clang and LLVM: the interface target tlc_llvm.
#
# From source (the default): Debian's two shared libraries, libclang-cpp and libLLVM, whose link
# takes seconds. In tlc's wheel (TLC_WHEEL): the static archives of both, in one group the linker
# rescans (their dependencies run both ways) and with unused sections dropped, so the installed
# tlc loads no LLVM library and needs none on the user's machine; the C++ runtime is linked in too,
# and of the system libraries only what every manylinux platform has stays dynamic (libc, libm,
# libz, libgcc_s). zstd, OpenSSL's libcrypto and hiredis come from Debian's static archives
# (libzstd-dev, libssl-dev, libhiredis-dev).
add_library(tlc_llvm INTERFACE)
if(NOT TLC_WHEEL)
  target_link_libraries(tlc_llvm INTERFACE clang-cpp LLVM)
  return()
endif()

# Clang's libraries but those of its tools (clang-tidy, clangd, the static analyzer, code
# generation, the interpreter) and LLVM's but the tools' (BOLT, exegesis, the line editor...):
# with --gc-sections only what tlc calls is kept.
file(GLOB tlcClangArchives ${LLVM_LIBRARY_DIR}/libclang*.a)
list(FILTER tlcClangArchives EXCLUDE REGEX
     "Tidy|clangd|Daemon|IncludeFixer|clangDoc|clangMove|clangQuery|ReorderFields|ChangeNamespace|ApplyReplacements|IncludeCleaner|Interpreter|StaticAnalyzer|CodeGen|Handle")
file(GLOB tlcLlvmArchives ${LLVM_LIBRARY_DIR}/libLLVM*.a)
list(FILTER tlcLlvmArchives EXCLUDE REGEX
     "BOLT|Exegesis|FuzzMutate|FuzzerCLI|LineEditor|LLVMInterpreter|OrcDebugging|CFIVerify|LLVMDiff|DWP|Telemetry")
if(NOT tlcClangArchives OR NOT tlcLlvmArchives)
  message(FATAL_ERROR "TLC_WHEEL links Clang and LLVM statically, but ${LLVM_LIBRARY_DIR} has "
                      "no libclang*.a or libLLVM*.a (Debian: libclang-22-dev, llvm-22-dev)")
endif()
foreach(library IN ITEMS zstd hiredis)
  find_library(TLC_STATIC_${library} lib${library}.a REQUIRED)
endforeach()
find_package(ZLIB REQUIRED)
string(REPLACE ";" "," tlcArchiveGroup "${tlcClangArchives};${tlcLlvmArchives}")
target_link_libraries(tlc_llvm INTERFACE "$<LINK_GROUP:RESCAN,${tlcArchiveGroup}>"
                      ${TLC_STATIC_zstd} ZLIB::ZLIB ${CMAKE_DL_LIBS} rt m)
target_link_options(tlc_llvm INTERFACE -static-libstdc++ -Wl,--gc-sections)
