# find_package(tlc): the tlc executable as the imported target tlc::tlc, and
# tlc_add_launcher_library() to build launcher libraries with it (see tlcAddLauncherLibrary.cmake
# or docs/cmake.md).
# Launcher headers include cuda.h, so launcher libraries carry CUDA's include folder: the toolkit
# is found by tlcAddLauncherLibrary.cmake (through tlcCudaToolkit.cmake, which works with stock
# CMake 3.25 and CUDA 13, and agrees with a find_package(CUDAToolkit) the project ran first).
include(${CMAKE_CURRENT_LIST_DIR}/tlcTargets.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/tlcAddLauncherLibrary.cmake)
