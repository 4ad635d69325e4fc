// The module-level functions of every generated API (tlc_NAME_load, tlc_NAME_last_error, ...),
// defined once: NAME.h declares them and NAME_launcher.cpp defines them from this table, each a
// one-line call into the runtime library. Their prefix, tlc_NAME_, cannot be a launcher's
// (launchers are NAME_<kernel>, and module names may not begin with "tlc"), so no kernel name
// collides with them.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

namespace tlc {

struct ModuleApiFunction {
  const char* name;    // after "tlc_NAME_"
  const char* returns; // C return type
  const char* params;  // C parameter list
  const char* call;    // the runtime call that implements it (tlc/runtime.h; gModule is the module)
  const char* doc;     // one line for NAME.h
};

// Every module-level function, in the order NAME.h lists them.
const std::vector<ModuleApiFunction>& moduleApi();

// The table as the templates' `api` list.
nlohmann::json moduleApiView();

} // namespace tlc
