# Installs tlc from BUILD_DIR into PREFIX (wiped first) with `cmake --install`, as a user would,
# and checks that the package is complete: the package, the templates, the man pages and the
# shell completion scripts (none empty). The find_package tests use PREFIX.
cmake_minimum_required(VERSION 3.25)

file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
message("${output}")
if(NOT result EQUAL 0)
  message(FATAL_ERROR "FAILED: cmake --install ${BUILD_DIR} --prefix ${PREFIX} exited with "
                      "${result}")
endif()

# The package's files, wherever GNUInstallDirs put the library folder (lib, lib64, lib/<triple>).
file(GLOB config "${PREFIX}/lib*/cmake/tlc/tlcConfig.cmake"
                 "${PREFIX}/lib/*/cmake/tlc/tlcConfig.cmake")
if(NOT config)
  message(FATAL_ERROR "FAILED: no tlcConfig.cmake under ${PREFIX}/lib*/cmake/tlc")
endif()
get_filename_component(packageDir "${config}" DIRECTORY)
set(missing)
foreach(file IN ITEMS
    bin/tlc
    include/tlc/annotations.h
    share/tlc/templates/header.h.mustache
    share/man/man1/tlc.1
    share/man/man1/tlc-build.1
    share/man/man1/tlc-inspect.1
    share/man/man1/tlc-check.1
    share/man/man1/tlc-verify.1
    share/man/man1/tlc-cache.1
    share/bash-completion/completions/tlc
    share/zsh/site-functions/_tlc
    share/fish/vendor_completions.d/tlc.fish
    "${packageDir}/tlcConfigVersion.cmake"
    "${packageDir}/tlcTargets.cmake"
    "${packageDir}/tlcAddLauncherLibrary.cmake")
  if(NOT IS_ABSOLUTE "${file}")
    set(file "${PREFIX}/${file}")
  endif()
  if(NOT EXISTS "${file}")
    string(APPEND missing "\n  ${file}")
  else()
    file(SIZE "${file}" size)
    if(size EQUAL 0)
      string(APPEND missing "\n  ${file} (empty)")
    endif()
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "FAILED: the install lacks${missing}")
endif()
message("PASSED: tlc installed in ${PREFIX}")
