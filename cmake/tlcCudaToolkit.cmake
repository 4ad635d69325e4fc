# Finds the CUDA toolkit that tlc and its launcher libraries need: nvcc and cuda.h, nothing else.
#
# Why not find_package(CUDAToolkit): Debian 12's stock CMake 3.25.1 fails inside that module with
# CUDA 13 ("set_property could not find TARGET CUDA::nvToolsExt", FindCUDAToolkit.cmake:1088, in
# any project whose cmake_minimum_required is 3.25 or newer), and tlc needs only two files of the
# toolkit. Included by tlc's own build, by tlcConfig.cmake and by tlcAddLauncherLibrary.cmake.
#
# Sets, as cache variables:
#   TLC_CUDA_ROOT          the toolkit's root folder
#   TLC_NVCC_EXECUTABLE    <root>/bin/nvcc
#   TLC_CUDA_INCLUDE_DIR   <root>/include (holds cuda.h)
#   TLC_CUDA_VERSION       CUDA_VERSION from cuda.h, as MAJOR.MINOR
#
# The root is, first that is set: TLC_CUDA_ROOT; CUDAToolkit_ROOT (variable or environment);
# CUDAToolkit_BIN_DIR/.. when the project already ran find_package(CUDAToolkit), so both agree;
# CUDA_PATH, CUDA_HOME (environment); NVIDIA's CUDA wheels (site-packages/nvidia/cu13) in the
# Python environment whose prefix holds this package (tlc's wheel); the folder above nvcc on
# PATH; /usr/local/cuda. As in tlc
# itself, the first one that is set decides: a toolkit the user named is never silently swapped
# for another one.

include_guard(GLOBAL)
set(_TLC_CUDA_TOOLKIT_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(_tlc_find_cuda_toolkit)
  # NVIDIA's CUDA wheels in the Python environment tlc's wheel installed this package into
  # (<prefix>/lib/cmake/tlc), as tlc itself finds them (toolchain/Toolchain.h).
  cmake_path(SET prefix NORMALIZE "${_TLC_CUDA_TOOLKIT_DIR}/../../..")
  file(GLOB _tlc_wheel_nvcc "${prefix}/lib/python3.*/site-packages/nvidia/cu13/bin/nvcc")
  if(TLC_CUDA_ROOT)
    set(root "${TLC_CUDA_ROOT}")
    set(source "TLC_CUDA_ROOT")
  elseif(CUDAToolkit_ROOT)
    set(root "${CUDAToolkit_ROOT}")
    set(source "CUDAToolkit_ROOT")
  elseif(DEFINED ENV{CUDAToolkit_ROOT} AND NOT "$ENV{CUDAToolkit_ROOT}" STREQUAL "")
    set(root "$ENV{CUDAToolkit_ROOT}")
    set(source "the environment's CUDAToolkit_ROOT")
  elseif(CUDAToolkit_BIN_DIR)
    cmake_path(GET CUDAToolkit_BIN_DIR PARENT_PATH root)
    set(source "find_package(CUDAToolkit)")
  elseif(DEFINED ENV{CUDA_PATH} AND NOT "$ENV{CUDA_PATH}" STREQUAL "")
    set(root "$ENV{CUDA_PATH}")
    set(source "the environment's CUDA_PATH")
  elseif(DEFINED ENV{CUDA_HOME} AND NOT "$ENV{CUDA_HOME}" STREQUAL "")
    set(root "$ENV{CUDA_HOME}")
    set(source "the environment's CUDA_HOME")
  elseif(_tlc_wheel_nvcc)
    list(SORT _tlc_wheel_nvcc COMPARE NATURAL ORDER DESCENDING) # the newest Python's
    list(GET _tlc_wheel_nvcc 0 nvcc)
    cmake_path(GET nvcc PARENT_PATH bin)
    cmake_path(GET bin PARENT_PATH root)
    set(source "NVIDIA's CUDA wheels beside tlc")
  else()
    find_program(_tlc_nvcc_on_path nvcc NO_CACHE)
    if(_tlc_nvcc_on_path)
      file(REAL_PATH "${_tlc_nvcc_on_path}" nvcc)
      cmake_path(GET nvcc PARENT_PATH bin)
      cmake_path(GET bin PARENT_PATH root)
      set(source "nvcc on PATH")
    else()
      set(root "/usr/local/cuda")
      set(source "the default")
    endif()
  endif()

  set(nvcc "${root}/bin/nvcc")
  set(header "${root}/include/cuda.h")
  if(NOT EXISTS "${nvcc}" OR IS_DIRECTORY "${nvcc}")
    set(problem "no ${nvcc}")
  elseif(NOT EXISTS "${header}")
    set(problem "no ${header}")
  else()
    file(STRINGS "${header}" versionLine REGEX "^#define[ \t]+CUDA_VERSION[ \t]+[0-9]+")
    if(NOT versionLine MATCHES "CUDA_VERSION[ \t]+([0-9]+)")
      set(problem "cannot read CUDA_VERSION from ${header}")
    endif()
  endif()
  if(problem)
    message(FATAL_ERROR "tlc: no CUDA toolkit at '${root}' (from ${source}): ${problem}. "
                        "Install NVIDIA's CUDA toolkit (12.8 or newer), or name its root with "
                        "-DTLC_CUDA_ROOT=<dir> or the environment's CUDA_PATH.")
  endif()
  math(EXPR major "${CMAKE_MATCH_1} / 1000")
  math(EXPR minor "${CMAKE_MATCH_1} % 1000 / 10")

  set(TLC_CUDA_ROOT "${root}" CACHE PATH "The CUDA toolkit tlc uses" FORCE)
  set(TLC_NVCC_EXECUTABLE "${nvcc}" CACHE FILEPATH "nvcc of TLC_CUDA_ROOT" FORCE)
  set(TLC_CUDA_INCLUDE_DIR "${root}/include" CACHE PATH "cuda.h's folder in TLC_CUDA_ROOT" FORCE)
  set(TLC_CUDA_VERSION "${major}.${minor}" CACHE STRING "CUDA_VERSION of TLC_CUDA_ROOT" FORCE)
  mark_as_advanced(TLC_NVCC_EXECUTABLE TLC_CUDA_INCLUDE_DIR TLC_CUDA_VERSION)
endfunction()

_tlc_find_cuda_toolkit()
if(NOT TLC_CUDA_TOOLKIT_REPORTED)
  message(STATUS "tlc: CUDA ${TLC_CUDA_VERSION} at ${TLC_CUDA_ROOT}")
  set(TLC_CUDA_TOOLKIT_REPORTED TRUE CACHE INTERNAL "")
endif()
