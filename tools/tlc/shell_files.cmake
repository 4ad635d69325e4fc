# Writes tlc's man pages and shell completion scripts, all made by the tlc just built from its own
# option tables: `tlc help --man [COMMAND]` for MAN_DIR/tlc.1 and one page per command its SEE
# ALSO names (tlc-build.1, ...), `tlc completion SHELL` for BASH_FILE, ZSH_FILE and FISH_FILE.
# Run by tools/tlc/CMakeLists.txt at build time: cmake -DTLC=... -DMAN_DIR=... -P shell_files.cmake
cmake_minimum_required(VERSION 3.25)

# The completion scripts offer the GPU targets of the toolkit tlc was built with (CUDA_ROOT), as
# `tlc build` checks them.
if(CUDA_ROOT)
  set(ENV{CUDA_PATH} "${CUDA_ROOT}")
endif()

function(run_tlc output)
  execute_process(COMMAND "${TLC}" ${ARGN} OUTPUT_FILE "${output}.tmp" RESULT_VARIABLE result
                  ERROR_VARIABLE error)
  if(NOT result EQUAL 0)
    file(REMOVE "${output}.tmp")
    message(FATAL_ERROR "tlc ${ARGN} failed (${result}): ${error}")
  endif()
  file(RENAME "${output}.tmp" "${output}")
endfunction()

foreach(shell IN ITEMS BASH ZSH FISH)
  get_filename_component(dir "${${shell}_FILE}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  string(TOLOWER "${shell}" name)
  run_tlc("${${shell}_FILE}" completion ${name})
endforeach()

# A page of a command since removed must not stay behind.
file(GLOB stale "${MAN_DIR}/tlc*.1")
if(stale)
  file(REMOVE ${stale})
endif()
file(MAKE_DIRECTORY "${MAN_DIR}")
run_tlc("${MAN_DIR}/tlc.1" help --man)
file(STRINGS "${MAN_DIR}/tlc.1" seeAlso REGEX "^\\.BR tlc\\\\-[a-z]+ \\(1\\)")
if(NOT seeAlso)
  message(FATAL_ERROR "tlc.1 names no other page in its SEE ALSO")
endif()
foreach(line IN LISTS seeAlso)
  string(REGEX REPLACE "^\\.BR tlc\\\\-([a-z]+) .*" "\\1" command "${line}")
  run_tlc("${MAN_DIR}/tlc-${command}.1" help --man ${command})
endforeach()
