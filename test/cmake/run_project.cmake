# Configures, builds and runs one project of test/cmake against tlc's CMake package, then checks
# the dependency tracking of tlc_add_launcher_library(). Run by CTest (test/cmake/CMakeLists.txt);
# also by hand:
#
#   cmake -DPROJECT_DIR=test/cmake/consumer -DSCRATCH=/tmp/t -DMODE=package -DPREFIX=<install>
#         -DPROGRAMS=consumer_c,consumer_cpp -P test/cmake/run_project.cmake
#
# Variables (-D):
#   PROJECT_DIR      the project; copied to SCRATCH/src, so edits never touch the source tree
#   SCRATCH          this test's folder, wiped first
#   MODE             package: find_package(tlc) with CMAKE_PREFIX_PATH=PREFIX;
#                    subdirectory: add_subdirectory(TLC_SOURCE_DIR);
#                    anything else is passed on as TLC_CONSUMER_MODE (with CMAKE_PREFIX_PATH)
#   GENERATOR        Ninja (default) or "Unix Makefiles"
#   TLC_CACHE_DIR    tlc's build cache; FRESH_TLC_CACHE=ON uses an empty one in SCRATCH instead
#   PROGRAMS         programs to run after the build, comma-separated; each must exit 0 and print
#                    a tlc status ("load(0): TLC_...")
#   MODULE           the launcher library (for the checks below)
#   CXX_LAUNCHER     CMAKE_CXX_COMPILER_LAUNCHER (ccache for tlc's own compiles); CCACHE_DIR
#   CONFIGURE_ARGS   more -D settings for the project's configure, separated by '|'
#   CUDA_LAUNCHER    CMAKE_CUDA_COMPILER_LAUNCHER; checked to reach nvcc through tlc
#   CHECK_DEPENDENCIES=ON, with TOUCH_SOURCE, EDIT_HEADER, EDIT_MACRO, EDIT_VALUE (paths relative
#                    to the project): the rebuild checks described at check_dependencies()
#   EXPECT_CONFIGURE_FAILURE=ON: the configure must fail with every line of
#                    PROJECT_DIR/expected-errors-<MODE>.txt in its output (a line "not: TEXT":
#                    without TEXT)
# A project may add its own checks in PROJECT_DIR/check.cmake, included after the build.
cmake_minimum_required(VERSION 3.25)

foreach(required PROJECT_DIR SCRATCH MODE)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "run_project.cmake: -D${required}=... is required")
  endif()
endforeach()
if(NOT GENERATOR)
  set(GENERATOR Ninja)
endif()

set(SOURCE "${SCRATCH}/src")
set(BUILD "${SCRATCH}/build")
file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}")
file(COPY "${PROJECT_DIR}/" DESTINATION "${SOURCE}")

# The environment every step inherits: caches inside the build tree, never the user's.
if(FRESH_TLC_CACHE)
  set(TLC_CACHE_DIR "${SCRATCH}/tlc-cache")
endif()
if(TLC_CACHE_DIR)
  set(ENV{TLC_CACHE_DIR} "${TLC_CACHE_DIR}")
endif()
unset(ENV{TLC_DISABLE_CACHE})
if(CCACHE_DIR)
  set(ENV{CCACHE_DIR} "${CCACHE_DIR}")
endif()
unset(ENV{MAKEFLAGS}) # the -j of an outer make would reach the consumer's build

cmake_host_system_information(RESULT jobs QUERY NUMBER_OF_LOGICAL_CORES)
string(TIMESTAMP testStart "%s")

# run(<label> <command>...): runs a command, prints its output under a header with the time it
# took, and leaves the output in OUTPUT and the exit code in RESULT.
function(run label)
  string(TIMESTAMP start "%s")
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${SCRATCH}"
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  string(TIMESTAMP end "%s")
  math(EXPR seconds "${end} - ${start}")
  message("---- ${label} (${seconds} s, exit ${result})\n${output}")
  set(OUTPUT "${output}" PARENT_SCOPE)
  set(RESULT "${result}" PARENT_SCOPE)
endfunction()

function(fail)
  string(JOIN "" text ${ARGN})
  message(FATAL_ERROR "FAILED (${MODE}, ${GENERATOR}): ${text}")
endfunction()

function(run_or_fail label)
  run("${label}" ${ARGN})
  if(NOT RESULT EQUAL 0)
    fail("${label} exited with ${RESULT}; its output is above")
  endif()
  set(OUTPUT "${OUTPUT}" PARENT_SCOPE)
endfunction()

function(build label)
  run_or_fail("${label}" "${CMAKE_COMMAND}" --build "${BUILD}" --parallel ${jobs})
  set(OUTPUT "${OUTPUT}" PARENT_SCOPE)
endfunction()

# --- configure --------------------------------------------------------------------------------
set(configure "${CMAKE_COMMAND}" -S "${SOURCE}" -B "${BUILD}" -G "${GENERATOR}"
    -DCMAKE_BUILD_TYPE=Release -DTLC_CONSUMER_MODE=${MODE} --no-warn-unused-cli)
if(MODE STREQUAL "subdirectory")
  list(APPEND configure "-DTLC_SOURCE_DIR=${TLC_SOURCE_DIR}")
else()
  list(APPEND configure "-DCMAKE_PREFIX_PATH=${PREFIX}")
endif()
if(CXX_LAUNCHER)
  list(APPEND configure "-DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_LAUNCHER}")
endif()
if(CONFIGURE_ARGS)
  string(REPLACE "|" ";" extraConfigure "${CONFIGURE_ARGS}")
  list(APPEND configure ${extraConfigure})
endif()
if(CUDA_LAUNCHER)
  list(APPEND configure "-DCMAKE_CUDA_COMPILER_LAUNCHER=${CUDA_LAUNCHER}")
endif()

if(EXPECT_CONFIGURE_FAILURE)
  run("configure (expected to fail)" ${configure})
  if(RESULT EQUAL 0)
    fail("the configure succeeded, but the project's mistakes should have stopped it")
  endif()
  # Configure output wraps long messages; compare with all whitespace runs made single spaces.
  string(REGEX REPLACE "[ \t\r\n]+" " " flat "${OUTPUT}")
  file(STRINGS "${PROJECT_DIR}/expected-errors-${MODE}.txt" expected REGEX "^[^#]")
  set(missing)
  set(unwanted)
  foreach(line IN LISTS expected)
    if(line MATCHES "^not: (.*)$")
      string(FIND "${flat}" "${CMAKE_MATCH_1}" at)
      if(NOT at EQUAL -1)
        string(APPEND unwanted "\n  ${CMAKE_MATCH_1}")
      endif()
      continue()
    endif()
    string(FIND "${flat}" "${line}" at)
    if(at EQUAL -1)
      string(APPEND missing "\n  ${line}")
    endif()
  endforeach()
  if(missing)
    fail("the configure failed, but without these messages:${missing}")
  endif()
  if(unwanted)
    fail("the configure failed, but also with these messages:${unwanted}")
  endif()
  message("PASSED: every expected error was reported")
  return()
endif()

run_or_fail("configure" ${configure})
if(NOT MODE STREQUAL "subdirectory")
  # The package found must be the install under test, not another tlc on the system.
  file(STRINGS "${BUILD}/CMakeCache.txt" tlcDir REGEX "^tlc_DIR:")
  string(FIND "${tlcDir}" "=${PREFIX}/" at)
  if(at EQUAL -1)
    fail("find_package(tlc) found '${tlcDir}', not the install in ${PREFIX}")
  endif()
endif()

# --- build and run ----------------------------------------------------------------------------
build("build")
set(tlcComment "tlc: building launcher library ${MODULE}")

string(REPLACE "," ";" PROGRAMS "${PROGRAMS}")
function(run_programs label)
  foreach(program IN LISTS PROGRAMS)
    run_or_fail("${label}: ${program}" "${BUILD}/${program}")
    if(NOT OUTPUT MATCHES "load\\(0\\): TLC_")
      fail("${program} did not print the status of its load")
    endif()
  endforeach()
endfunction()
run_programs("run")

if(MODULE)
  set(outDir "${BUILD}/${MODULE}")
  set(library "${outDir}/lib${MODULE}.so")
  set(manifest "${outDir}/${MODULE}.json")
  foreach(file IN ITEMS "${library}" "${outDir}/${MODULE}.h" "${manifest}")
    if(NOT EXISTS "${file}")
      fail("${file} is missing after the build")
    endif()
  endforeach()
  file(READ "${manifest}" manifestText)
endif()

if(MODE STREQUAL "subdirectory" AND NOT EXISTS "${BUILD}/tlc/bin/tlc")
  fail("add_subdirectory(tlc) did not build tlc in ${BUILD}/tlc/bin")
endif()

if(CUDA_LAUNCHER)
  # What tlc ran, as its manifest records it: nvcc under the launcher.
  string(JSON count LENGTH "${manifestText}" commands)
  set(launched FALSE)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON command GET "${manifestText}" commands ${i})
    if(command MATCHES "^([^ ]*/)?${CUDA_LAUNCHER} '?[^ ]*nvcc'? ")
      set(launched TRUE)
    endif()
  endforeach()
  if(NOT launched)
    fail("no nvcc command ran under ${CUDA_LAUNCHER}; the manifest's commands:\n${manifestText}")
  endif()
  message("---- nvcc ran under ${CUDA_LAUNCHER}")
endif()

# --- dependency tracking ----------------------------------------------------------------------
# Why the build tool thinks something is out of date, for a failure's message: Ninja's explanation,
# or Make's lines about real files (its many phony targets always "must be remade").
function(why_dirty out)
  if(GENERATOR STREQUAL "Ninja")
    execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD}" -- -n -d explain
                    OUTPUT_VARIABLE output ERROR_VARIABLE output)
    set(text "ninja -n -d explain:\n${output}")
  else()
    execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD}" -- -n --debug=b
                    OUTPUT_VARIABLE output ERROR_VARIABLE output)
    string(REGEX MATCHALL
           "[^\n]*(newer than|target '[^']*\\.(stamp|o|so)'|File '/[^']*' does not exist)[^\n]*"
           lines "${output}")
    list(JOIN lines "\n" lines)
    set(text "make -n --debug=b, about files:\n${lines}")
  endif()
  # A file in tlc's depfile that does not exist is out of date for ever, with either tool.
  set(depfile "${BUILD}/CMakeFiles/tlc_${MODULE}/${MODULE}.d")
  if(EXISTS "${depfile}")
    file(READ "${depfile}" depText)
    # Every line but the last ends in a backslash (continued); without those, one path per line.
    string(REPLACE "\\\n" "\n" depText "${depText}")
    string(REGEX MATCHALL "[^\n]+" entries "${depText}")
    set(missing)
    foreach(entry IN LISTS entries)
      string(STRIP "${entry}" entry)
      if(entry MATCHES "^/" AND NOT entry MATCHES ":$" AND NOT EXISTS "${entry}")
        string(APPEND missing "\n  ${entry}")
      endif()
    endforeach()
    if(missing)
      string(APPEND text "\nfiles in ${depfile} that do not exist:${missing}")
    endif()
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# A rebuild right after a build must run neither tlc nor the compilers.
function(expect_nothing_rebuilt label)
  why_dirty(why) # asked before the build, while there is still something to explain
  build("${label}")
  string(FIND "${OUTPUT}" "${tlcComment}" ranTlc)
  if(NOT ranTlc EQUAL -1 OR OUTPUT MATCHES "Building|Linking")
    fail("${label}: the rebuild after an unchanged build ran tlc or a compiler (see above). "
         "Why, before it ran:\n${why}")
  endif()
endfunction()

function(file_sha256 path out)
  file(SHA256 "${path}" hash)
  set(${out} "${hash}" PARENT_SCOPE)
endfunction()

if(CHECK_DEPENDENCIES)
  # 1. Nothing changed: nothing runs.
  expect_nothing_rebuilt("rebuild with nothing changed")

  # 2. A source touched but not changed: tlc runs again, its outputs keep their content and
  #    their time stamps, so nothing downstream relinks.
  file(TIMESTAMP "${library}" libraryTime "%s")
  # Past the time stamp resolution of any file system, so that the touch is seen.
  execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 1.1)
  file(TOUCH "${SOURCE}/${TOUCH_SOURCE}")
  build("rebuild after touching ${TOUCH_SOURCE}")
  string(FIND "${OUTPUT}" "${tlcComment}" ranTlc)
  if(ranTlc EQUAL -1)
    fail("touching ${TOUCH_SOURCE} did not run tlc again")
  endif()
  if(OUTPUT MATCHES "Linking")
    fail("touching ${TOUCH_SOURCE} relinked a program, though tlc's outputs did not change")
  endif()
  file(TIMESTAMP "${library}" libraryTimeAfter "%s")
  if(NOT libraryTime STREQUAL libraryTimeAfter)
    fail("tlc rewrote lib${MODULE}.so although its content did not change")
  endif()
  expect_nothing_rebuilt("rebuild after the touch's rebuild")

  # 3. A header the kernel includes, edited: tlc runs, and the new value is in the library.
  file_sha256("${library}" libraryBefore)
  file(READ "${SOURCE}/${EDIT_HEADER}" header)
  string(REGEX REPLACE "#define ${EDIT_MACRO} [^\n]*" "#define ${EDIT_MACRO} ${EDIT_VALUE}"
         edited "${header}")
  if(edited STREQUAL header)
    fail("${EDIT_HEADER} has no '#define ${EDIT_MACRO} ...' line to edit")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 1.1)
  file(WRITE "${SOURCE}/${EDIT_HEADER}" "${edited}")
  build("rebuild after setting ${EDIT_MACRO} to ${EDIT_VALUE} in ${EDIT_HEADER}")
  string(FIND "${OUTPUT}" "${tlcComment}" ranTlc)
  if(ranTlc EQUAL -1)
    fail("editing ${EDIT_HEADER} did not run tlc again")
  endif()
  file_sha256("${library}" libraryAfter)
  if(libraryAfter STREQUAL libraryBefore)
    fail("lib${MODULE}.so is unchanged after editing ${EDIT_HEADER}")
  endif()
  # The consumer's macro is the kernel's __launch_bounds__, which the manifest records.
  file(READ "${manifest}" manifestText)
  string(JSON maxThreads GET "${manifestText}" kernels 0 launch_bounds max_threads)
  if(NOT maxThreads EQUAL EDIT_VALUE)
    fail("the manifest says max_threads ${maxThreads}, not the edited ${EDIT_VALUE}")
  endif()
  message("---- the kernel's launch bounds are now ${maxThreads}")
  run_programs("run after the edit")
  expect_nothing_rebuilt("rebuild after the edit's rebuild")
endif()

if(EXISTS "${PROJECT_DIR}/check.cmake")
  include("${PROJECT_DIR}/check.cmake")
endif()

string(TIMESTAMP testEnd "%s")
math(EXPR seconds "${testEnd} - ${testStart}")
message("PASSED (${MODE}, ${GENERATOR}) in ${seconds} s")
