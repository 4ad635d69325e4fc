# tlc::tlc in tlc's wheel, where install(EXPORT) cannot name the executable: the wheel installs it
# into the environment's scripts folder (<prefix>/bin), the package into <prefix>/lib/cmake/tlc,
# so the executable is found from here, wherever pip put the prefix (a venv, ~/.local).
get_filename_component(_tlc_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET tlc::tlc)
  add_executable(tlc::tlc IMPORTED)
  set_target_properties(tlc::tlc PROPERTIES IMPORTED_LOCATION "${_tlc_prefix}/bin/tlc")
endif()
unset(_tlc_prefix)
