// The module model as JSON (`inspect --json` and the templates' view).
#include "model/ModelJson.h"

#include "model/EnumTables.h"

namespace tlc {

using nlohmann::json;

template <typename T> static json orNull(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json toJson(const SourceLocation& location) {
  return {{"file", location.file}, {"line", location.line}, {"column", location.column}};
}

json toJson(const CType& type) {
  json pointers = json::array();
  for (const CType::Pointer& pointer : type.pointers)
    pointers.push_back({{"const", pointer.isConst}, {"restrict", pointer.isRestrict}});
  json out = {{"base", type.base},
              {"base_kind", toString(type.baseKind)},
              {"is_mirror", type.baseKind == CType::Base::Record},
              {"is_bytes", type.baseKind == CType::Base::Bytes},
              {"const", type.baseConst},
              {"pointers", pointers}};
  if (type.baseKind == CType::Base::Toolkit)
    out["header"] = type.header;
  return out;
}

static json tensorMapJson(const TensorMapSpec& spec) {
  json out = {{"mode", toString(spec.mode)},
              {"annotation", spec.text},
              {"location", toJson(spec.location)},
              {"dtype", toString(spec.dtype)},
              {"dtype_enum", driverName(spec.dtype)},
              {"element_bits", describe(spec.dtype).bits},
              {"rank", spec.rank},
              {"element_strides", spec.elemStrides},
              {"swizzle", toString(spec.swizzle)},
              {"swizzle_enum", driverName(spec.swizzle)},
              {"l2_promotion", toString(spec.l2)},
              {"l2_promotion_enum", driverName(spec.l2)},
              {"oob_fill", toString(spec.oob)},
              {"oob_fill_enum", driverName(spec.oob)},
              {"interleave", toString(spec.interleave)},
              {"interleave_enum", driverName(spec.interleave)},
              {"address_alignment", spec.addressAlignment},
              {"stride_multiple", spec.strideMultiple},
              {"dim0_multiple", spec.dim0Multiple},
              {"group", spec.group}};
  if (spec.mode == TensorMapMode::Tiled) {
    out["box"] = spec.box;
  } else {
    out["lower_corner"] = spec.lower;
    out["upper_corner"] = spec.upper;
    out["channels_per_pixel"] = spec.channels;
    out["pixels_per_column"] = spec.pixels;
  }
  return out;
}

json toJson(const Param& param) {
  json out = {{"index", param.index},
              {"name", param.name},
              {"type", param.type},
              {"canonical_type", param.canonicalType},
              {"size", param.size},
              {"align", param.align},
              {"kind", toString(param.kind)},
              {"c_type", toJson(param.ctype)},
              {"location", toJson(param.location)},
              {"c_name", param.cName},
              {"is_tensor_map", param.tensorMap.has_value()},
              {"is_empty", param.kind == ParamKind::Empty}};
  switch (param.kind) {
  case ParamKind::Pointer:
    out["pointer"] = {{"pointee", param.pointer.pointee},
                      {"const", param.pointer.pointeeConst},
                      {"restrict", param.pointer.isRestrict}};
    break;
  case ParamKind::Scalar:
    out["scalar"] = {
        {"type", toString(param.scalar.type)},
        {"enum", param.scalar.enumName.empty() ? json(nullptr) : json(param.scalar.enumName)}};
    break;
  case ParamKind::Record:
    out["record"] = {{"name", param.record.name},
                     {"c_name", param.record.cName},
                     {"header", param.record.header}};
    break;
  case ParamKind::TensorMap:
    out["tensor_map"] = param.tensorMap ? tensorMapJson(*param.tensorMap) : json(nullptr);
    break;
  case ParamKind::Empty: // is_empty says all there is
  case ParamKind::Bytes: // size, align and c_type say all there is
    break;
  }
  return out;
}

json toJson(const Kernel& kernel) {
  json templateArgs = json::array();
  for (const TemplateArgument& arg : kernel.templateArgs)
    templateArgs.push_back({{"kind", toString(arg.kind)}, {"value", arg.value}});
  json params = json::array();
  for (const Param& param : kernel.params)
    params.push_back(toJson(param));
  json bounds = nullptr;
  if (kernel.launchBounds)
    bounds = {{"max_threads", kernel.launchBounds->maxThreads},
              {"min_blocks", orNull(kernel.launchBounds->minBlocks)},
              {"max_blocks_per_cluster", orNull(kernel.launchBounds->maxBlocksPerCluster)}};
  return {
      {"name", kernel.name},
      {"display_name", kernel.displayName},
      {"symbol", kernel.symbol},
      {"launcher", kernel.launcher},
      {"extern_c", kernel.externC},
      {"from_image", kernel.fromImage},
      {"linkage", kernel.internalLinkage ? "internal"
                  : kernel.weak          ? "weak"
                                         : "strong"},
      {"targets", kernel.targets},
      {"location", toJson(kernel.location)},
      {"instantiated_at", kernel.instantiatedAt ? toJson(*kernel.instantiatedAt) : json(nullptr)},
      {"template_args", templateArgs},
      {"launch_bounds", bounds},
      {"cluster_dims", orNull(kernel.clusterDims)},
      {"explicit_name", kernel.explicitName.empty() ? json(nullptr) : json(kernel.explicitName)},
      {"translation_units", kernel.translationUnits},
      {"params", params},
      {"index", kernel.index},
      {"has_params", !kernel.params.empty()},
      {"first_tensor_map", kernel.firstTensorMap},
      {"tensor_map_count", kernel.tensorMapCount},
      {"has_tensor_maps", kernel.tensorMapCount != 0}};
}

json toJson(const Record& record) {
  json fields = json::array();
  for (const RecordField& field : record.fields)
    fields.push_back({{"name", field.name},
                      {"c_type", toJson(field.ctype)},
                      {"offset", field.offset},
                      {"array_dims", field.arrayDims}});
  return {{"name", record.name},     {"c_name", record.cName},
          {"header", record.header}, {"location", toJson(record.location)},
          {"size", record.size},     {"align", record.align},
          {"opaque", record.opaque}, {"fields", fields}};
}

json toJson(const Module& module) {
  json kernels = json::array();
  for (const Kernel& kernel : module.kernels)
    kernels.push_back(toJson(kernel));
  json records = json::array();
  for (const Record& record : module.records)
    records.push_back(toJson(record));
  return {{"inputs", module.inputs},
          {"kernels", kernels},
          {"records", records},
          {"other_entries", module.otherEntries}};
}

json moduleDocument(const Module& module, const ToolVersions& versions, const std::string& arch) {
  json document = toJson(module);
  document.update({{"schema", "tlc.module"},
                   {"schema_version", kSchemaVersion},
                   {"tlc_version", versions.tlc},
                   {"clang_version", versions.clang},
                   {"cuda_version", versions.cuda},
                   {"arch", arch},
                   {"library_kernel_templates", module.libraryKernelTemplates}});
  return document;
}

} // namespace tlc
