# Where `cmake --install` puts tlc: the GNU layout under the prefix (bin/tlc, share/tlc,
# include/tlc, lib/tlc, lib/cmake/tlc, share/man). In tlc's wheel (TLC_WHEEL, built by
# scikit-build-core from pyproject.toml) the same layout goes under the wheel's data folder,
# which pip unpacks into the environment's prefix, and the executable into its scripts folder,
# which pip puts in <prefix>/bin: an installed wheel is laid out exactly as an install from
# source, so tlc finds its files relative to itself in both (support/InstallLayout.h), and
# find_package(tlc) finds the package under <prefix>/lib/cmake/tlc.
#   TLC_INSTALL_ROOT    "" (destinations relative to the prefix), or the wheel's data folder/
#   TLC_INSTALL_BINDIR  where the executable goes
if(TLC_WHEEL)
  if(NOT SKBUILD_DATA_DIR OR NOT SKBUILD_SCRIPTS_DIR)
    message(FATAL_ERROR "TLC_WHEEL builds tlc's wheel, through scikit-build-core: run "
                        "`pip wheel . -w dist` (pyproject.toml), not cmake directly")
  endif()
  set(TLC_INSTALL_ROOT "${SKBUILD_DATA_DIR}/")
  set(TLC_INSTALL_BINDIR "${SKBUILD_SCRIPTS_DIR}")
else()
  set(TLC_INSTALL_ROOT "")
  set(TLC_INSTALL_BINDIR "${CMAKE_INSTALL_BINDIR}")
endif()
