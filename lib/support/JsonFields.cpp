// Checked access to members of JSON documents (JsonFields.h).
#include "support/JsonFields.h"

namespace tlc {

namespace {

const nlohmann::json* memberOf(const nlohmann::json& object, const char* key) {
  if (!object.is_object())
    return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

} // namespace

bool hasString(const nlohmann::json& object, const char* key) {
  const nlohmann::json* member = memberOf(object, key);
  return member && member->is_string();
}

bool hasArray(const nlohmann::json& object, const char* key) {
  const nlohmann::json* member = memberOf(object, key);
  return member && member->is_array();
}

bool hasUnsigned(const nlohmann::json& object, const char* key) {
  const nlohmann::json* member = memberOf(object, key);
  return member && member->is_number_unsigned();
}

std::optional<std::string> stringAt(const nlohmann::json& object, const char* key) {
  if (!hasString(object, key))
    return std::nullopt;
  return object.at(key).get<std::string>();
}

} // namespace tlc
