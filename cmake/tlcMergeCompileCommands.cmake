# cmake -DOUTPUT=<file> -DDATABASES=<db;...> -DSTATE=<dir> -DDEPFILE=<file> -DTARGET=<stamp> -P
#   tlcMergeCompileCommands.cmake
#
# Puts the entries of tlc's compilation databases (one per launcher library, written by
# `tlc build --compile-commands-out`) into the project's compile_commands.json (OUTPUT, which
# CMake writes with CMAKE_EXPORT_COMPILE_COMMANDS), so that clangd sees the kernels with nothing
# to merge by hand. tlc_add_launcher_library() runs it at build time, after every tlc, because
# CMake rewrites OUTPUT whenever it generates the build system.
#
# Idempotent: CMake's own entries are kept in STATE (cmake.json) and OUTPUT is always rebuilt as
# tlc's entries, then CMake's. OUTPUT holding anything but what this script last wrote (merged.json)
# means CMake (or someone) wrote it since: that content is CMake's part from now on. OUTPUT is
# rewritten only when its content changes, so clangd reloads it only then. The arrays are joined as
# text, after one parse each to check them, so a large database costs no more than reading it.
# DEPFILE names OUTPUT as an input of TARGET, so that the merge runs again after CMake rewrote it.
cmake_minimum_required(VERSION 3.20)

foreach(variable IN ITEMS OUTPUT STATE DEPFILE TARGET)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "tlcMergeCompileCommands.cmake: -D${variable}=... is required")
  endif()
endforeach()

# The elements of the JSON array in `file`, as text without the brackets (empty for none) in
# `out`; a file that is not a JSON array stops the build, naming it.
function(_tlc_array_elements file out)
  file(READ "${file}" text)
  if(text MATCHES "^[ \t\r\n]*$")
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  string(JSON type ERROR_VARIABLE error TYPE "${text}")
  if(error OR NOT type STREQUAL "ARRAY")
    message(FATAL_ERROR "'${file}' is not a compilation database (a JSON array): ${error}")
  endif()
  string(REGEX REPLACE "^[ \t\r\n]*\\[" "" text "${text}")
  string(REGEX REPLACE "\\][ \t\r\n]*$" "" text "${text}")
  string(STRIP "${text}" text)
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(cmakePart "${STATE}/cmake.json")
set(lastMerged "${STATE}/merged.json")
file(MAKE_DIRECTORY "${STATE}")

# CMake's entries: OUTPUT itself, unless it is what this script wrote last.
set(current "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" current)
endif()
set(last "")
if(EXISTS "${lastMerged}")
  file(READ "${lastMerged}" last)
endif()
if(NOT EXISTS "${cmakePart}" OR NOT current STREQUAL last)
  file(WRITE "${cmakePart}" "${current}")
endif()

# Joined as strings, not CMake lists: a command may hold a `;`.
set(merged "")
function(_tlc_append elements)
  if(elements STREQUAL "")
    return()
  elseif(merged STREQUAL "")
    set(merged "${elements}" PARENT_SCOPE)
  else()
    set(merged "${merged},\n${elements}" PARENT_SCOPE)
  endif()
endfunction()
foreach(database IN LISTS DATABASES)
  if(EXISTS "${database}") # a library whose tlc has not run yet has none
    _tlc_array_elements("${database}" elements)
    _tlc_append("${elements}")
  endif()
endforeach()
_tlc_array_elements("${cmakePart}" elements)
_tlc_append("${elements}")
set(merged "[\n${merged}\n]\n")

if(NOT merged STREQUAL current)
  file(WRITE "${OUTPUT}.tmp" "${merged}")
  file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
endif()
file(WRITE "${lastMerged}" "${merged}")
# Make's syntax: a space in a path is escaped.
string(REPLACE " " "\\ " depTarget "${TARGET}")
string(REPLACE " " "\\ " depOutput "${OUTPUT}")
file(WRITE "${DEPFILE}" "${depTarget}: ${depOutput}\n")
