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

#[=======================================================================[.rst:
tlc_add_launcher_library
------------------------

Compiles CUDA kernels with ``tlc build`` into a launcher library and makes a target for it::

  tlc_add_launcher_library(<name>
                           SOURCES <file.cu>...
                           [ARCHS <sm_XX>...]
                           [INCLUDE_DIRECTORIES <dir>...]
                           [COMPILE_DEFINITIONS <NAME[=VALUE]>...]
                           [NVCC_FLAGS <flag>...]
                           [ENTRIES <kernel>...]
                           [EXTERNAL_IMAGE]
                           [PYTHON]
                           [OUTPUT_DIRECTORY <dir>])

Arguments
^^^^^^^^^

``<name>``
  The module name (``tlc build --name``), prefix of the whole C API (``<name>_load``,
  ``<name>_<kernel>``, ...), and the name of the target made for the library. A C identifier.

``SOURCES``
  The ``.cu`` files (required). Relative paths are relative to ``CMAKE_CURRENT_SOURCE_DIR``.

``ARCHS``
  GPU targets, in CMake's ``CMAKE_CUDA_ARCHITECTURES`` spelling or nvcc's: ``90`` or ``90a``
  (SASS for that arch and PTX for it, as nvcc's ``-arch=sm_90a``), ``90-real`` (SASS only),
  ``90-virtual`` (PTX only), ``native``, ``all``, ``all-major``, ``sm_90a``, ``compute_80``.
  Default: ``CMAKE_CUDA_ARCHITECTURES`` when it is set, else tlc's default (nvcc's default arch,
  SASS and PTX). One ``-real`` target gives ``<name>.cubin``; anything else ``<name>.fatbin``.

``INCLUDE_DIRECTORIES``
  ``-I`` folders for the kernels. Relative paths are relative to ``CMAKE_CURRENT_SOURCE_DIR``.

``COMPILE_DEFINITIONS``
  Macros, ``NAME`` or ``NAME=VALUE`` (a leading ``-D`` is dropped): ``-D`` each.

``NVCC_FLAGS``
  Flags passed to nvcc (``-Xnvcc`` each), e.g. ``-lineinfo`` or ``--use_fast_math``.

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

``CMAKE_CUDA_COMPILER_LAUNCHER`` (ccache, sccache), where set, is passed as ``--launcher``.

The target ``<name>`` is a global imported shared library: linking it puts ``<name>.h`` and
CUDA's include folder on the include path, links ``lib<name>.so`` and builds it first. Its
properties ``TLC_OUTPUT_DIRECTORY`` and ``TLC_IMAGE`` name the output folder and device image
(for install() rules, or to ship the image of an ``EXTERNAL_IMAGE`` library); with ``PYTHON``,
``TLC_PYTHON_PATH`` is the folder to put on ``sys.path`` (``PYTHONPATH``) to import ``<name>``. ``tlc`` runs again
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
  set(options EXTERNAL_IMAGE PYTHON)
  set(oneValue OUTPUT_DIRECTORY)
  set(multiValue SOURCES ARCHS INCLUDE_DIRECTORIES COMPILE_DEFINITIONS NVCC_FLAGS ENTRIES)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "${options}" "${oneValue}" "${multiValue}")

  set(failed FALSE)

  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    _tlc_launcher_fail("the name must be a C identifier, as it prefixes the library's C API "
                       "(<name>_load, <name>_<kernel>, ...); got '${name}'")
  elseif(TARGET ${name})
    _tlc_launcher_fail("a target named '${name}' already exists")
  endif()
  set(keywords "SOURCES, ARCHS, INCLUDE_DIRECTORIES, COMPILE_DEFINITIONS, NVCC_FLAGS, ENTRIES, "
               "EXTERNAL_IMAGE, PYTHON, OUTPUT_DIRECTORY")
  string(JOIN "" keywords ${keywords})
  if(ARG_UNPARSED_ARGUMENTS)
    list(JOIN ARG_UNPARSED_ARGUMENTS " " unknown)
    _tlc_launcher_fail("unknown arguments: ${unknown} (the keywords are ${keywords})")
  endif()
  foreach(keyword IN LISTS ARG_KEYWORDS_MISSING_VALUES)
    if(NOT keyword STREQUAL "SOURCES") # reported below, with a better message
      _tlc_launcher_fail("${keyword} given without a value")
    endif()
  endforeach()
  if(NOT ARG_SOURCES)
    _tlc_launcher_fail("no SOURCES: give the .cu files to compile")
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
  foreach(source IN LISTS ARG_SOURCES)
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
  if(archCount EQUAL 1 AND ARG_ARCHS MATCHES "-real$")
    set(image "${outDir}/${name}.cubin")
  else()
    set(image "${outDir}/${name}.fatbin")
  endif()
  set(library "${outDir}/lib${name}.so")

  get_property(cudaRoot GLOBAL PROPERTY TLC_CUDA_ROOT)
  set(args ${sources} --cuda-path "${cudaRoot}")
  list(APPEND args ${targetArgs})
  foreach(dir IN LISTS ARG_INCLUDE_DIRECTORIES)
    cmake_path(ABSOLUTE_PATH dir BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    list(APPEND args -I "${dir}")
  endforeach()
  foreach(definition IN LISTS ARG_COMPILE_DEFINITIONS)
    string(REGEX REPLACE "^-D" "" definition "${definition}")
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

  # tlc rewrites an output only when its content changes, which keeps everything downstream from
  # rebuilding for nothing, but leaves nothing with a fresh time stamp for Make to compare with
  # the inputs. The stamp, touched after every run, is that file; the depfile, naming the stamp,
  # lists every file tlc read (sources, the headers they include, templates).
  set(stateDir "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/tlc_${name}")
  set(stamp "${stateDir}/${name}.stamp")
  set(depfile "${stateDir}/${name}.d")
  add_custom_command(
    OUTPUT "${stamp}"
    BYPRODUCTS "${library}" "${outDir}/${name}.h" "${outDir}/${name}.json" "${image}"
               ${pythonFiles}
    COMMAND tlc::tlc build ${args} -o "${outDir}" --name "${name}" -q
            --depfile "${depfile}" --depfile-target "${stamp}"
    COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
    DEPENDS tlc::tlc ${sources}
    DEPFILE "${depfile}"
    COMMENT "tlc: building launcher library ${name}"
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
    TLC_IMAGE "${image}")
  if(ARG_PYTHON)
    set_target_properties(${name} PROPERTIES TLC_PYTHON_PATH "${outDir}")
  endif()
  add_dependencies(${name} ${name}_tlc)
endfunction()
