// Reading members of JSON documents tlc did not necessarily write (cache entries, remote indexes,
// manifests under `tlc verify`): every accessor checks the member's kind, so malformed input is
// a "no", never an exception.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace tlc {

// Whether `object` is an object with a member `key` of the kind named.
bool hasString(const nlohmann::json& object, const char* key);
bool hasArray(const nlohmann::json& object, const char* key);
bool hasUnsigned(const nlohmann::json& object, const char* key);

// A string member of a JSON object, or nullopt when it is missing or of another type.
std::optional<std::string> stringAt(const nlohmann::json& object, const char* key);

} // namespace tlc
