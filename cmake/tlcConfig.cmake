# find_package(tlc): the tlc executable as the imported target tlc::tlc, and
# tlc_add_launcher_library() to build launcher libraries with it (see tlcAddLauncherLibrary.cmake
# or docs/cmake.md).
include(CMakeFindDependencyMacro)
# Launcher headers include cuda.h, so launcher libraries carry CUDA's include folder; this also
# finds the toolkit the way the project itself would (CUDAToolkit_ROOT, nvcc on PATH, CUDA_PATH).
find_dependency(CUDAToolkit)

include(${CMAKE_CURRENT_LIST_DIR}/tlcTargets.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/tlcAddLauncherLibrary.cmake)
