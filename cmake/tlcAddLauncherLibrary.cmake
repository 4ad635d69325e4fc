# tlc_add_launcher_library(): build CUDA kernels into a tlc launcher library from CMake.
#
# Included by tlcConfig.cmake (find_package(tlc)) and by tlc's cmake/CMakeLists.txt (so that a
# project that adds tlc with add_subdirectory() gets it too). Either way the tlc executable is the
# target tlc::tlc: imported from an install, or an alias of the `tlc` target being built.

include_guard(GLOBAL)

if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "tlc_add_launcher_library needs CMake 3.20 or newer (DEPFILE with every "
                      "generator); this is CMake ${CMAKE_VERSION}")
endif()

# Functions keep the policies in force where they are defined. With CMP0116 NEW, CMake rewrites
# the depfile for Ninja so that its paths (tlc writes absolute ones) are spelt as in build.ninja.
cmake_policy(SET CMP0116 NEW)

# NAME.h includes cuda.h, so every launcher library carries CUDA's include folder, and tlc gets
# the same toolkit (--cuda-path). The function may run in a scope that cannot see these variables
# (a parent project of add_subdirectory(tlc)), so keep them in global properties.
include(${CMAKE_CURRENT_LIST_DIR}/tlcCudaToolkit.cmake)
set_property(GLOBAL PROPERTY TLC_CUDA_ROOT "${TLC_CUDA_ROOT}")
set_property(GLOBAL PROPERTY TLC_CUDA_INCLUDE_DIRS "${TLC_CUDA_INCLUDE_DIR}")

# The tlc arguments for one ARCHS entry, in `out`; empty if the entry is not a target.
#   90, 90a, 90f      --arch sm_90a      (SASS and PTX, as CMake and nvcc mean it)
#   90-real           --gencode arch=compute_90,code=sm_90
#   90-virtual        --arch compute_90
#   native, all, all-major, sm_XX, compute_XX: --arch as they are
function(_tlc_target_arguments arch out)
  set(result)
  if(arch MATCHES "^([0-9]+[af]?)$")
    set(result --arch "sm_${CMAKE_MATCH_1}")
  elseif(arch MATCHES "^([0-9]+[af]?)-real$")
    set(result --gencode "arch=compute_${CMAKE_MATCH_1},code=sm_${CMAKE_MATCH_1}")
  elseif(arch MATCHES "^([0-9]+[af]?)-virtual$")
    set(result --arch "compute_${CMAKE_MATCH_1}")
  elseif(arch MATCHES "^((sm|compute)_[0-9]+[af]?|native|all|all-major)$")
    set(result --arch "${arch}")
  endif()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# Reports one mistake in a call of tlc_add_launcher_library and marks the call failed. SEND_ERROR
# goes on configuring, so the user sees every mistake at once, and nothing is generated.
macro(_tlc_launcher_fail)
  message(SEND_ERROR "tlc_add_launcher_library(${name}): " ${ARGN})
  set(failed TRUE)
endmacro()

# The keyword `word` most likely misspells in `keywords` (a list): the one sharing the longest
# prefix with it, at least 3 characters and all but the word's last 2 (ARCH: ARCHS, SOURCE:
# SOURCES, ENTRY: ENTRIES); "" when none is that close.
function(_tlc_closest_keyword word keywords out)
  set(best "")
  set(bestLength 0)
  string(LENGTH "${word}" wordLength)
  math(EXPR needed "${wordLength} - 2")
  foreach(keyword IN LISTS keywords)
    string(LENGTH "${keyword}" keywordLength)
    set(common 0)
    while(common LESS wordLength AND common LESS keywordLength)
      string(SUBSTRING "${word}" ${common} 1 a)
      string(SUBSTRING "${keyword}" ${common} 1 b)
      if(NOT a STREQUAL b)
        break()
      endif()
      math(EXPR common "${common} + 1")
    endwhile()
    if(common GREATER_EQUAL 3 AND common GREATER_EQUAL needed AND common GREATER bestLength)
      set(best "${keyword}")
      set(bestLength ${common})
    endif()
  endforeach()
  set(${out} "${best}" PARENT_SCOPE)
endfunction()

# The `tlc build --jobs` of every launcher library in a Ninja job pool whose size the project set
# (the global property JOB_POOLS, `<pool>=<size>`), as its property TLC_JOBS; run once, at the
# end of the top-level CMakeLists.txt, when every library and pool is known.
#
# A pool bounds how many tlc processes run at once, but each tlc runs several tools at once
# itself. So the pool's size is shared out: with S slots and L libraries in the pool, at most
# min(S, L) tlc run together, and each gets S / min(S, L) jobs (at least one). Together they never
# run more than S tools, and a library alone in its pool still gets all S. A TLC_JOBS the project
# set itself is left alone; where the size is unknown (no JOB_POOLS entry, or another generator,
# which ignores pools) tlc gets no --jobs and bounds itself: make's jobserver where make offers
# it, else make's -jN, else all cores (docs/internals.md, "Job limits").
function(_tlc_assign_pool_jobs)
  get_property(libraries GLOBAL PROPERTY _TLC_POOLED_LIBRARIES)
  get_property(pools GLOBAL PROPERTY JOB_POOLS)
  foreach(library IN LISTS libraries)
    get_target_property(pool ${library} TLC_JOB_POOL)
    math(EXPR count_${pool} "${count_${pool}} + 1") # an unset count is empty: 0 + 1
  endforeach()
  foreach(library IN LISTS libraries)
    get_target_property(jobs ${library} TLC_JOBS)
    get_target_property(pool ${library} TLC_JOB_POOL)
    if(jobs)
      continue()
    endif()
    set(size "")
    foreach(entry IN LISTS pools)
      string(FIND "${entry}" "=" equals REVERSE)
      if(equals GREATER 0)
        string(SUBSTRING "${entry}" 0 ${equals} entryPool)
        math(EXPR equals "${equals} + 1")
        string(SUBSTRING "${entry}" ${equals} -1 entrySize)
        if(entryPool STREQUAL pool AND entrySize MATCHES "^[1-9][0-9]*$")
          set(size ${entrySize})
        endif()
      endif()
    endforeach()
    if(size)
      set(together ${count_${pool}})
      if(together GREATER size)
        set(together ${size})
      endif()
      math(EXPR jobs "${size} / ${together}")
      set_target_properties(${library} PROPERTIES TLC_JOBS ${jobs})
    endif()
  endforeach()
endfunction()

# The script that merges the launcher libraries' compilation databases into the project's.
set(_TLC_MERGE_COMPILE_COMMANDS_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/tlcMergeCompileCommands.cmake")
set_property(GLOBAL PROPERTY _TLC_MERGE_COMPILE_COMMANDS_SCRIPT
             "${_TLC_MERGE_COMPILE_COMMANDS_SCRIPT}")

# With CMAKE_EXPORT_COMPILE_COMMANDS, clangd reads ${CMAKE_BINARY_DIR}/compile_commands.json,
# which CMake writes when it generates the build system, without the kernels (tlc compiles them,
# not CMake). One target, run after every launcher library's tlc, puts their databases' entries
# into it (tlcMergeCompileCommands.cmake says how); run once, at the end of the top-level
# CMakeLists.txt, when every library is known. It runs again only when a tlc ran or CMake
# rewrote the file (its depfile names the file), so a build with nothing to do stays one.
function(_tlc_add_compile_commands_merge)
  get_property(databases GLOBAL PROPERTY _TLC_MERGED_COMPILE_COMMANDS)
  get_property(stamps GLOBAL PROPERTY _TLC_MERGED_STAMPS)
  get_property(targets GLOBAL PROPERTY _TLC_MERGED_TARGETS)
  get_property(script GLOBAL PROPERTY _TLC_MERGE_COMPILE_COMMANDS_SCRIPT)
  set(state "${CMAKE_BINARY_DIR}/CMakeFiles/tlc_compile_commands")
  set(stamp "${state}/merged.stamp")
  file(MAKE_DIRECTORY "${state}")
  add_custom_command(
    OUTPUT "${stamp}"
    COMMAND "${CMAKE_COMMAND}" "-DOUTPUT=${CMAKE_BINARY_DIR}/compile_commands.json"
            "-DDATABASES=${databases}" "-DSTATE=${state}" "-DDEPFILE=${state}/merged.d"
            "-DTARGET=${stamp}" -P "${script}"
    COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
    DEPENDS ${stamps} "${script}"
    DEPFILE "${state}/merged.d"
    COMMENT "tlc: adding the kernels to compile_commands.json"
    VERBATIM)
  add_custom_target(tlc_compile_commands ALL DEPENDS "${stamp}")
  add_dependencies(tlc_compile_commands ${targets})
endfunction()

#[=======================================================================[.rst:
tlc_add_launcher_library
------------------------

Compiles CUDA kernels with ``tlc build`` into a launcher library and makes a target for it::

  tlc_add_launcher_library(<name>
                           SOURCES <file.cu>... | IMAGES <file.cubin|.fatbin|.ptx>...
                           [DECLARATIONS <header>...]
                           [ARCHS <sm_XX>...]
                           [INCLUDE_DIRECTORIES <dir>...]
                           [COMPILE_DEFINITIONS <NAME[=VALUE]>...]
                           [NVCC_FLAGS <flag>...]
                           [ENTRIES <kernel>...]
                           [EXTERNAL_IMAGE]
                           [PYTHON]
                           [OUTPUT_DIRECTORY <dir>]
                           [JOB_POOL <pool>]
                           [COMPILE_COMMANDS <file> | NO_COMPILE_COMMANDS])

Arguments
^^^^^^^^^

``<name>``
  The module name (``tlc build --name``), prefix of the whole C API (``<name>_load``,
  ``<name>_<kernel>``, ...), and the name of the target made for the library. A C identifier.

``SOURCES``
  The ``.cu`` files (required, unless ``IMAGES`` are given). Relative paths are relative to
  ``CMAKE_CURRENT_SOURCE_DIR``.

``IMAGES``
  Device images another compiler made, in place of ``SOURCES``: ``.cubin``, ``.fatbin``
  (uncompressed) and ``.ptx`` files, merged into one image as nvcc's fatbinary would
  (docs/images.md). Without ``ARCHS`` the library holds the targets the images hold; with it,
  each target must be in an image (PTX is assembled by ptxas for a SASS target).

``DECLARATIONS``
  Headers declaring the kernels of ``IMAGES`` (``extern "C"`` or C++ ``__global__``
  declarations, with tlc's annotations such as ``TLC_TMA``): typed launchers, checked against
  the images. An entry no header declares gets a launcher made from the image's parameter info.

``ARCHS``
  GPU targets, in CMake's ``CMAKE_CUDA_ARCHITECTURES`` spelling or nvcc's: ``90`` or ``90a``
  (SASS for that arch and PTX for it, as nvcc's ``-arch=sm_90a``), ``90-real`` (SASS only),
  ``90-virtual`` (PTX only), ``native``, ``all``, ``all-major``, ``sm_90a``, ``compute_80``.
  Default: ``CMAKE_CUDA_ARCHITECTURES`` when it is set, else tlc's default (nvcc's default arch,
  SASS and PTX). One ``-real`` target gives ``<name>.cubin``; anything else ``<name>.fatbin``.

``INCLUDE_DIRECTORIES``
  ``-I`` folders for the kernels. Relative paths are relative to ``CMAKE_CURRENT_SOURCE_DIR``.

``COMPILE_DEFINITIONS``
  Macros, ``NAME`` or ``NAME=VALUE`` (a leading ``-D`` is dropped): ``-D`` each, its commas
  escaped, so that each element stays one macro.

``NVCC_FLAGS``
  Flags for nvcc in nvcc's spellings (``-Xnvcc`` each), e.g. ``-lineinfo`` or
  ``--use_fast_math``: tlc reads nvcc's options as on its command line (``-G``'s macros reach the
  parse too; ``-c`` or ``-o FILE`` are refused) and passes any other flag on as it is.

``ENTRIES``
  Only these kernels get launchers (``--entry`` each): C++ name, launcher name or symbol.

``EXTERNAL_IMAGE``
  ``lib<name>.so`` loads ``<name>.cubin``/``.fatbin`` from its own folder instead of embedding it.

``PYTHON``
  Also build the Python package ``<name>/`` beside the library (``tlc build --python``): one
  function per launcher, importable straight from the output folder (docs/python.md). Needs a
  tlc built with Python support.

``OUTPUT_DIRECTORY``
  Where ``tlc build`` writes ``lib<name>.so``, ``<name>.h``, ``<name>.json`` and the image.
  Default: ``${CMAKE_CURRENT_BINARY_DIR}/<name>``; a relative path is relative to that folder.

``JOB_POOL``
  The Ninja job pool (``JOB_POOLS``) tlc runs in. Where the pool's size is known, each library
  in it gets ``tlc build --jobs`` = the size shared out among the pool's libraries (the target
  property ``TLC_JOBS``), so that the tools of all of them together stay within the size; a
  project may set ``TLC_JOBS`` itself. Other generators ignore pools: under make, tlc joins make's
  jobserver (CMake 3.28 and newer mark the command job-server aware) or keeps to make's ``-jN``.

``COMPILE_COMMANDS``
  Where to write the compilation database of the kernels (``tlc build --compile-commands-out``):
  one entry per source with the flags tlc's Clang parse uses, for clangd. Default:
  ``${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/tlc_<name>/compile_commands.json``, also the target
  property ``TLC_COMPILE_COMMANDS``. ``NO_COMPILE_COMMANDS`` writes none. Where
  ``CMAKE_EXPORT_COMPILE_COMMANDS`` is true, the build also puts its entries into
  ``${CMAKE_BINARY_DIR}/compile_commands.json`` (the target ``tlc_compile_commands``), where
  clangd finds them with CMake's own.

``CMAKE_CUDA_COMPILER_LAUNCHER`` (ccache, sccache), where set, is passed as ``--launcher``.

The build cache's base folder (``tlc build --base-dir``, as ccache's ``base_dir``) is the variable
``TLC_BASE_DIR`` where set (``OFF`` or ``""``: none is passed), else ``TLC_BASE_DIR`` from the
build's environment, else ``CMAKE_SOURCE_DIR``: two checkouts of a project, each with its build
folder in the same place, share cache entries.

The target ``<name>`` is a global imported shared library: linking it puts ``<name>.h`` and
CUDA's include folder on the include path, links ``lib<name>.so`` and builds it first. Its
properties ``TLC_OUTPUT_DIRECTORY`` and ``TLC_IMAGE`` name the output folder and device image
(for install() rules, or to ship the image of an ``EXTERNAL_IMAGE`` library); with ``PYTHON``,
``TLC_PYTHON_PATH`` is the folder to put on ``sys.path`` (``PYTHONPATH``) to import ``<name>``;
``TLC_COMPILE_COMMANDS`` names the kernels' compilation database; ``TLC_JOBS``, where set, is
tlc's ``--jobs`` (set for a ``JOB_POOL`` of known size, or by the project). ``tlc`` runs again
when a source, a header they include, a template or tlc itself changes; outputs whose content
did not change are left alone, so nothing downstream rebuilds for nothing.

Example
^^^^^^^

.. code-block:: cmake

  find_package(tlc REQUIRED)           # or add_subdirectory(third_party/tlc)
  tlc_add_launcher_library(kernels
    SOURCES kernels/saxpy.cu kernels/reduce.cu
    ARCHS sm_90a sm_100a
    INCLUDE_DIRECTORIES include)
  add_executable(app main.c)
  target_link_libraries(app PRIVATE kernels)   # main.c: #include "kernels.h"
#]=======================================================================]
function(tlc_add_launcher_library name)
  set(options EXTERNAL_IMAGE PYTHON NO_COMPILE_COMMANDS)
  set(oneValue OUTPUT_DIRECTORY JOB_POOL COMPILE_COMMANDS)
  set(multiValue SOURCES IMAGES DECLARATIONS ARCHS INCLUDE_DIRECTORIES COMPILE_DEFINITIONS
                 NVCC_FLAGS ENTRIES)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "${options}" "${oneValue}" "${multiValue}")

  set(failed FALSE)

  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    _tlc_launcher_fail("the name must be a C identifier, as it prefixes the library's C API "
                       "(<name>_load, <name>_<kernel>, ...); got '${name}'")
  elseif(TARGET ${name})
    _tlc_launcher_fail("a target named '${name}' already exists")
  endif()
  set(keywords "SOURCES, IMAGES, DECLARATIONS, ARCHS, INCLUDE_DIRECTORIES, COMPILE_DEFINITIONS, NVCC_FLAGS, ENTRIES, "
               "EXTERNAL_IMAGE, PYTHON, OUTPUT_DIRECTORY, JOB_POOL, COMPILE_COMMANDS, "
               "NO_COMPILE_COMMANDS")
  string(JOIN "" keywords ${keywords})
  # A misspelt keyword lands among the unparsed arguments, or in the list of the keyword before it
  # (SOURCES k.cu ARCH 90): it is named with the keyword it most likely is, and the call is read
  # again as if that were written, so that nothing is reported twice (no source '90', no "no
  # SOURCES" after SOURCE).
  set(keywordList ${multiValue} ${options} ${oneValue})
  set(arguments ${ARGN})
  foreach(attempt RANGE 4)
    set(misspelt "")
    foreach(entry IN LISTS ARG_UNPARSED_ARGUMENTS ARG_SOURCES ARG_IMAGES ARG_DECLARATIONS ARG_ARCHS)
      if(entry MATCHES "^[A-Z][A-Z0-9_]*$" AND NOT EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/${entry}")
        _tlc_closest_keyword("${entry}" "${keywordList}" meant)
        if(meant)
          set(misspelt "${entry}")
          break()
        endif()
      endif()
    endforeach()
    if(NOT misspelt)
      break()
    endif()
    _tlc_launcher_fail("'${misspelt}' is not a keyword, did you mean ${meant}? (the keywords are "
                       "${keywords})")
    list(TRANSFORM arguments REPLACE "^${misspelt}$" "${meant}")
    cmake_parse_arguments(ARG "${options}" "${oneValue}" "${multiValue}" ${arguments})
  endforeach()
  if(ARG_UNPARSED_ARGUMENTS)
    list(JOIN ARG_UNPARSED_ARGUMENTS " " unknown)
    _tlc_launcher_fail("unknown arguments: ${unknown} (the keywords are ${keywords})")
  endif()
  foreach(keyword IN LISTS ARG_KEYWORDS_MISSING_VALUES)
    if(NOT keyword STREQUAL "SOURCES") # reported below, with a better message
      _tlc_launcher_fail("${keyword} given without a value")
    endif()
  endforeach()
  # Device images another compiler made (docs/images.md), with headers declaring their kernels:
  # tlc takes them in place of sources.
  if(ARG_SOURCES AND ARG_IMAGES)
    _tlc_launcher_fail("SOURCES and IMAGES exclude each other: one library takes .cu sources or "
                       "device images (.cubin, .fatbin, .ptx), not both")
  elseif(NOT ARG_SOURCES AND NOT ARG_IMAGES)
    _tlc_launcher_fail("no SOURCES: give the .cu files to compile (or IMAGES: device images)")
  endif()
  if(ARG_DECLARATIONS AND NOT ARG_IMAGES)
    _tlc_launcher_fail("DECLARATIONS declare the kernels of IMAGES, and no IMAGES are given")
  endif()
  foreach(image IN LISTS ARG_IMAGES)
    if(NOT image MATCHES "\\.(cubin|fatbin|ptx)$")
      _tlc_launcher_fail("IMAGES entry '${image}' is not a .cubin, .fatbin or .ptx file")
    endif()
  endforeach()
  foreach(header IN LISTS ARG_DECLARATIONS)
    if(NOT header MATCHES "\\.(h|cuh|hpp|hxx)$")
      _tlc_launcher_fail("DECLARATIONS entry '${header}' is not a header (.h, .cuh, .hpp)")
    endif()
  endforeach()
  if(ARG_COMPILE_COMMANDS AND ARG_NO_COMPILE_COMMANDS)
    _tlc_launcher_fail("COMPILE_COMMANDS and NO_COMPILE_COMMANDS exclude each other")
  endif()
  if(NOT ARG_ARCHS AND CMAKE_CUDA_ARCHITECTURES)
    set(ARG_ARCHS ${CMAKE_CUDA_ARCHITECTURES})
  endif()
  set(targetArgs)
  foreach(arch IN LISTS ARG_ARCHS)
    _tlc_target_arguments("${arch}" archArgs)
    if(archArgs)
      list(APPEND targetArgs ${archArgs})
    else()
      _tlc_launcher_fail("ARCHS entry '${arch}' is not a GPU target: use CMake's spelling "
                         "(90, 90a, 90-real, 90-virtual, native, all, all-major) or nvcc's "
                         "(sm_90a, compute_80)")
    endif()
  endforeach()
  if(NOT TARGET tlc::tlc)
    _tlc_launcher_fail("no tlc executable: call find_package(tlc) or "
                       "add_subdirectory(<tlc source>) first (the target tlc::tlc is missing)")
  endif()

  set(sources)
  foreach(source IN LISTS ARG_SOURCES ARG_IMAGES ARG_DECLARATIONS)
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    get_source_file_property(generated "${source}" GENERATED)
    if(EXISTS "${source}" OR generated)
      list(APPEND sources "${source}")
      continue()
    endif()
    # A misspelt keyword after SOURCES lands in SOURCES: name it as what it most likely is.
    cmake_path(GET source FILENAME file)
    if(file MATCHES "^[A-Z][A-Z0-9_]*$")
      _tlc_launcher_fail("'${file}' is not a keyword (the keywords are ${keywords})")
    else()
      _tlc_launcher_fail("source '${source}' does not exist")
    endif()
  endforeach()
  if(failed)
    return()
  endif()

  if(ARG_OUTPUT_DIRECTORY)
    set(outDir "${ARG_OUTPUT_DIRECTORY}")
    cmake_path(ABSOLUTE_PATH outDir BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE)
  else()
    set(outDir "${CMAKE_CURRENT_BINARY_DIR}/${name}")
  endif()
  # One SASS-only target is a cubin; everything else (PTX, several targets) a fatbin.
  list(LENGTH ARG_ARCHS archCount)
  # Without ARCHS a build of images takes the targets they hold: one cubin stays a cubin.
  list(LENGTH ARG_IMAGES imageCount)
  if(archCount EQUAL 1 AND ARG_ARCHS MATCHES "-real$")
    set(image "${outDir}/${name}.cubin")
  elseif(archCount EQUAL 0 AND imageCount EQUAL 1 AND ARG_IMAGES MATCHES "\\.cubin$")
    set(image "${outDir}/${name}.cubin")
  else()
    set(image "${outDir}/${name}.fatbin")
  endif()
  set(library "${outDir}/lib${name}.so")

  get_property(cudaRoot GLOBAL PROPERTY TLC_CUDA_ROOT)
  set(args ${sources} --cuda-path "${cudaRoot}")
  list(APPEND args ${targetArgs})
  # One folder or macro each: tlc, as nvcc, splits -I and -D values at commas not escaped.
  foreach(dir IN LISTS ARG_INCLUDE_DIRECTORIES)
    cmake_path(ABSOLUTE_PATH dir BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    string(REPLACE "," "\\," dir "${dir}")
    list(APPEND args -I "${dir}")
  endforeach()
  foreach(definition IN LISTS ARG_COMPILE_DEFINITIONS)
    string(REGEX REPLACE "^-D" "" definition "${definition}")
    string(REPLACE "," "\\," definition "${definition}")
    list(APPEND args -D "${definition}")
  endforeach()
  foreach(flag IN LISTS ARG_NVCC_FLAGS)
    list(APPEND args -Xnvcc "${flag}") # tlc takes the next argument whatever it looks like
  endforeach()
  foreach(entry IN LISTS ARG_ENTRIES)
    list(APPEND args --entry "${entry}")
  endforeach()
  if(ARG_EXTERNAL_IMAGE)
    list(APPEND args --external-image)
  endif()
  set(pythonFiles)
  if(ARG_PYTHON)
    list(APPEND args --python)
    foreach(file IN ITEMS __init__.py __init__.pyi py.typed tlc/__init__.py tlc/__init__.pyi
                          tlc/_ext.abi3.so)
      list(APPEND pythonFiles "${outDir}/${name}/${file}")
    endforeach()
  endif()
  # The `=` form, so that a launcher argument starting with '-' is not read as a tlc option.
  foreach(launcher IN LISTS CMAKE_CUDA_COMPILER_LAUNCHER)
    list(APPEND args "--launcher=${launcher}")
  endforeach()
  # The build cache's base folder: the variable TLC_BASE_DIR where the project or its cache sets
  # it, else TLC_BASE_DIR from the environment (tlc reads it when it runs), else the top source
  # folder, so that checkouts with their build folders in the same place share entries. A false
  # TLC_BASE_DIR (OFF, "") passes none. The `=` form: the path is one argument whatever it is.
  if(DEFINED TLC_BASE_DIR)
    if(TLC_BASE_DIR)
      list(APPEND args "--base-dir=${TLC_BASE_DIR}")
    endif()
  elseif(NOT DEFINED ENV{TLC_BASE_DIR})
    list(APPEND args "--base-dir=${CMAKE_SOURCE_DIR}")
  endif()

  # tlc rewrites an output only when its content changes, which keeps everything downstream from
  # rebuilding for nothing, but leaves nothing with a fresh time stamp for Make to compare with
  # the inputs. The stamp, touched after every run, is that file; the depfile, naming the stamp,
  # lists every file tlc read (sources, the headers they include, templates).
  set(stateDir "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/tlc_${name}")
  set(stamp "${stateDir}/${name}.stamp")
  set(depfile "${stateDir}/${name}.d")

  # The kernels' compilation database, for clangd; with CMAKE_EXPORT_COMPILE_COMMANDS merged into
  # the project's (_tlc_add_compile_commands_merge).
  set(compileCommands)
  if(NOT ARG_NO_COMPILE_COMMANDS)
    set(compileCommands "${stateDir}/compile_commands.json")
    if(ARG_COMPILE_COMMANDS)
      set(compileCommands "${ARG_COMPILE_COMMANDS}")
      cmake_path(ABSOLUTE_PATH compileCommands BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}"
                 NORMALIZE)
    endif()
    list(APPEND args --compile-commands-out "${compileCommands}")
    if(CMAKE_EXPORT_COMPILE_COMMANDS)
      set_property(GLOBAL APPEND PROPERTY _TLC_MERGED_COMPILE_COMMANDS "${compileCommands}")
      set_property(GLOBAL APPEND PROPERTY _TLC_MERGED_STAMPS "${stamp}")
      set_property(GLOBAL APPEND PROPERTY _TLC_MERGED_TARGETS ${name}_tlc)
      get_property(deferred GLOBAL PROPERTY _TLC_COMPILE_COMMANDS_DEFERRED)
      if(NOT deferred)
        set_property(GLOBAL PROPERTY _TLC_COMPILE_COMMANDS_DEFERRED TRUE)
        cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _tlc_add_compile_commands_merge)
      endif()
    endif()
  endif()

  # --jobs from the target property TLC_JOBS, read when the build files are generated: for a
  # library in a job pool it is set only once every library of the pool is known
  # (_tlc_assign_pool_jobs). Unset, tlc gets no --jobs (an empty list: no argument at all).
  set(jobs "$<TARGET_PROPERTY:${name},TLC_JOBS>")
  set(jobsArgs "$<$<BOOL:${jobs}>:--jobs=${jobs}>")
  set(poolArgs)
  if(ARG_JOB_POOL)
    set(poolArgs JOB_POOL "${ARG_JOB_POOL}")
    set_property(GLOBAL APPEND PROPERTY _TLC_POOLED_LIBRARIES ${name})
    get_property(deferred GLOBAL PROPERTY _TLC_POOL_JOBS_DEFERRED)
    if(NOT deferred)
      set_property(GLOBAL PROPERTY _TLC_POOL_JOBS_DEFERRED TRUE)
      cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _tlc_assign_pool_jobs)
    endif()
  endif()
  # Make runs a job-server-aware command as a recursive make (a `+` recipe), so that it passes
  # its jobserver on and tlc's tools count against make's -jN (CMake 3.28 and newer).
  set(jobServerArgs)
  if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.28)
    set(jobServerArgs JOB_SERVER_AWARE TRUE)
  endif()

  add_custom_command(
    OUTPUT "${stamp}"
    BYPRODUCTS "${library}" "${outDir}/${name}.h" "${outDir}/${name}.json" "${image}"
               ${pythonFiles} ${compileCommands}
    COMMAND tlc::tlc build ${args} -o "${outDir}" --name "${name}" -q
            --depfile "${depfile}" --depfile-target "${stamp}" "${jobsArgs}"
    COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
    DEPENDS tlc::tlc ${sources}
    DEPFILE "${depfile}"
    COMMENT "tlc: building launcher library ${name}"
    ${poolArgs}
    ${jobServerArgs}
    COMMAND_EXPAND_LISTS
    VERBATIM)
  add_custom_target(${name}_tlc ALL DEPENDS "${stamp}")

  # Neither tlc nor the Makefile generators create the folders of the depfile and the stamp; and
  # an imported target's include folders must exist when the project is generated.
  file(MAKE_DIRECTORY "${stateDir}" "${outDir}")

  # An imported library: CMake links the file tlc wrote and carries its usage requirements.
  get_property(cudaIncludeDirs GLOBAL PROPERTY TLC_CUDA_INCLUDE_DIRS)
  add_library(${name} SHARED IMPORTED GLOBAL)
  set_target_properties(${name} PROPERTIES
    IMPORTED_LOCATION "${library}"
    IMPORTED_SONAME "lib${name}.so"
    INTERFACE_INCLUDE_DIRECTORIES "${outDir};${cudaIncludeDirs}"
    TLC_OUTPUT_DIRECTORY "${outDir}"
    TLC_IMAGE "${image}"
    TLC_COMPILE_COMMANDS "${compileCommands}")
  if(ARG_JOB_POOL)
    set_target_properties(${name} PROPERTIES TLC_JOB_POOL "${ARG_JOB_POOL}")
  endif()
  if(ARG_PYTHON)
    set_target_properties(${name} PROPERTIES TLC_PYTHON_PATH "${outDir}")
  endif()
  add_dependencies(${name} ${name}_tlc)
endfunction()
