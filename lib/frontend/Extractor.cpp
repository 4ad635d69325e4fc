// Walking one parsed translation unit: kernels, records, device symbols.
#include "frontend/Extractor.h"

#include "frontend/Annotations.h"
#include "frontend/ClangDiagnostics.h"
#include "frontend/ConstantEvaluator.h"
#include "frontend/ParameterTypes.h"
#include "frontend/ParseCompat.h"
#include "frontend/SourceFacts.h"
#include "frontend/Symbols.h"
#include "frontend/TensorMapSpecs.h"
#include "model/EnumTables.h"
#include "support/Files.h"
#include "support/Identifiers.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/QualTypeNames.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <map>
#include <set>

namespace tlc {
namespace {

// A parameter pack's elements share the pack's name (`Ts... ts` instantiated gives `int ts,
// float ts`), which no C signature or Python keyword can hold twice: each name used more than
// once becomes the name and its place among its uses (`ts0`, `ts1`), skipping any name another
// parameter already has.
void numberRepeatedNames(std::vector<Param>& params) {
  std::map<std::string, unsigned> uses, next;
  std::set<std::string> taken;
  for (const Param& param : params) {
    ++uses[param.name];
    taken.insert(param.name);
  }
  for (Param& param : params) {
    if (uses[param.name] < 2)
      continue;
    std::string base = param.name, name;
    do
      name = base + std::to_string(next[base]++);
    while (taken.count(name));
    taken.insert(name);
    param.name = name;
  }
}

std::optional<uint64_t> evaluateUnsigned(const clang::Expr* expr,
                                         const clang::ASTContext& context) {
  if (!expr || expr->isValueDependent())
    return std::nullopt;
  auto value = expr->getIntegerConstantExpr(context);
  if (!value || value->isNegative())
    return std::nullopt;
  return value->getZExtValue();
}

class Extractor : public clang::RecursiveASTVisitor<Extractor> {
public:
  Extractor(clang::ASTContext& context, clang::Preprocessor& preprocessor,
            TranslationUnitFacts& facts)
      : Context(context), Facts(facts), Diagnostics(context.getDiagnostics()),
        Types(context, facts.records), Mangler(context), Constants(preprocessor, context) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return false; }

  bool VisitFunctionDecl(clang::FunctionDecl* function) {
    if (function->hasAttr<clang::CUDAGlobalAttr>()) {
      if (function->isDependentContext()) {
        rememberTemplate(*function);
        rememberLibraryTemplate(*function);
      } else if (function->doesThisDeclarationHaveABody() || lostItsBody(*function) ||
                 declaresImageKernel(*function))
        extractKernel(*function);
      return true;
    }
    if (function->hasAttr<clang::CUDADeviceAttr>() && !function->isDependentContext() &&
        function->doesThisDeclarationHaveABody())
      recordDefinition(*function, DeviceSymbol::Kind::Function);
    if (isExportedHostFunction(*function))
      Facts.hostFunctions.push_back({function->getQualifiedNameAsString(),
                                     presumedLocation(Context, function->getLocation())});
    return true;
  }

  bool VisitVarDecl(clang::VarDecl* variable) {
    if (!variable->hasGlobalStorage() || variable->isStaticLocal() ||
        variable->getDeclContext()->isDependentContext() || variable->getDescribedVarTemplate())
      return true;
    if (!variable->hasAttr<clang::CUDADeviceAttr>() &&
        !variable->hasAttr<clang::CUDAConstantAttr>() &&
        !variable->hasAttr<clang::HIPManagedAttr>())
      return true;
    if (variable->isThisDeclarationADefinition() == clang::VarDecl::DeclarationOnly)
      return true;
    recordDefinition(*variable, DeviceSymbol::Kind::Variable);
    return true;
  }

  // After the traversal: kernel templates of the input file that nothing instantiated.
  void warnAboutUninstantiatedTemplates() {
    for (const clang::FunctionTemplateDecl* pattern : Templates) {
      if (InstantiatedTemplates.count(pattern))
        continue;
      Diagnostics.warning(pattern->getLocation(),
                          "kernel template '" + pattern->getQualifiedNameAsString() +
                              "' is never instantiated, so it gets no launcher; add an explicit "
                              "instantiation such as 'template __global__ void " +
                              pattern->getNameAsString() + "<...>(...);'");
    }
  }

private:
  // A host function nvcc's -shared library would export: defined here, in the user's code (not a
  // system header), with external linkage, not inline (constexpr, in-class member functions and
  // templates are, or emit nothing of their own), and not `main`.
  bool isExportedHostFunction(const clang::FunctionDecl& function) const {
    if (Facts.declarationsOnly || !function.doesThisDeclarationHaveABody() ||
        function.isDependentContext() || function.isTemplateInstantiation() ||
        function.isInlined() || function.isMain() || function.isDeleted() ||
        function.isDefaulted() || !function.isExternallyVisible())
      return false;
    if (function.hasAttr<clang::CUDADeviceAttr>() && !function.hasAttr<clang::CUDAHostAttr>())
      return false;
    return !isInSystemHeader(Context, function.getLocation());
  }

  // A header of declarations for a device image's kernels (FrontendOptions::declarationsOnly):
  // each kernel it declares is one to launch, the first declaration standing for it, as no
  // definition will come.
  bool declaresImageKernel(const clang::FunctionDecl& function) const {
    return Facts.declarationsOnly && function.isFirstDecl() && !function.isDefined() &&
           !isInSystemHeader(Context, function.getLocation());
  }

  // An instantiated kernel template whose body Clang refused (a `__shared__` object with a
  // constructor, which nvcc only warns about): Clang drops that body and marks the declaration
  // invalid, yet the declaration itself was instantiated, and nvcc, the compiler of record,
  // emits the kernel.
  static bool lostItsBody(const clang::FunctionDecl& function) {
    const clang::FunctionDecl* pattern = function.getTemplateInstantiationPattern();
    return function.isInvalidDecl() && !function.hasBody() && pattern &&
           pattern->doesThisDeclarationHaveABody() && function.getPointOfInstantiation().isValid();
  }

  void rememberTemplate(const clang::FunctionDecl& function) {
    const clang::FunctionTemplateDecl* pattern = function.getDescribedFunctionTemplate();
    if (!pattern || !function.doesThisDeclarationHaveABody())
      return;
    // Templates in headers are libraries (CUTLASS, CUB): leaving them uninstantiated is normal.
    if (!isInMainFile(Context, function.getLocation()))
      return;
    Templates.push_back(pattern->getCanonicalDecl());
  }

  void rememberLibraryTemplate(const clang::FunctionDecl& function) {
    if (!function.getDescribedFunctionTemplate() ||
        !isInSystemHeader(Context, function.getLocation()) || !function.getIdentifier())
      return;
    std::string outermost;
    for (const clang::DeclContext* context = function.getDeclContext(); context;
         context = context->getParent())
      if (const auto* ns = llvm::dyn_cast<clang::NamespaceDecl>(context))
        outermost = ns->getName().str();
    Facts.libraryKernelTemplates.push_back(outermost + "::" + function.getName().str());
  }

  void extractKernel(clang::FunctionDecl& function) {
    const clang::FunctionDecl* pattern = function.getTemplateInstantiationPattern();
    const clang::FunctionDecl& definition = pattern ? *pattern : function;
    if (const clang::FunctionTemplateDecl* primary = function.getPrimaryTemplate())
      InstantiatedTemplates.insert(primary->getCanonicalDecl());

    if (isInSystemHeader(Context, definition.getLocation())) {
      // In the image, but a library's business: known for verification, given no launcher.
      if (function.isExternallyVisible())
        Facts.otherEntries.push_back(Mangler.symbolOf(function));
      return;
    }
    std::string symbol = Mangler.symbolOf(function);
    if (!SeenKernels.insert(symbol).second)
      return;

    std::string displayName = nameForMessages(function);

    Kernel kernel;
    kernel.name = function.getQualifiedNameAsString();
    kernel.displayName = displayName;
    kernel.symbol = symbol;
    kernel.externC = function.isExternC();
    kernel.weak = Context.GetGVALinkageForFunction(&function) != clang::GVA_StrongExternal;
    kernel.internalLinkage = !function.isExternallyVisible();
    kernel.location = presumedLocation(Context, definition.getLocation());
    kernel.translationUnits.push_back(Facts.input);
    if (function.getTemplateSpecializationKind() != clang::TSK_Undeclared &&
        function.getTemplateSpecializationKind() != clang::TSK_ExplicitSpecialization &&
        function.getPointOfInstantiation().isValid())
      kernel.instantiatedAt = presumedLocation(Context, function.getPointOfInstantiation());
    if (const clang::TemplateArgumentList* args = function.getTemplateSpecializationArgs())
      for (const clang::TemplateArgument& arg : args->asArray())
        appendTemplateArgument(arg, kernel.templateArgs);

    bool valid = readLaunchAttributes(function, kernel);
    valid &= readKernelAnnotations(function, definition, kernel);
    valid &= readParameters(function, displayName, kernel);
    valid &= readTensorMaps(function, displayName, kernel);
    if (!valid)
      return;
    recordDefinition(function, DeviceSymbol::Kind::Kernel);
    Facts.kernels.push_back(std::move(kernel));
  }

  std::string nameForMessages(const clang::FunctionDecl& function) {
    std::string name;
    llvm::raw_string_ostream os(name);
    clang::PrintingPolicy policy(Context.getLangOpts());
    policy.SuppressTagKeyword = true;
    function.getNameForDiagnostic(os, policy, /*Qualified=*/true);
    return name;
  }

  void appendTemplateArgument(const clang::TemplateArgument& arg,
                              std::vector<TemplateArgument>& out) {
    clang::PrintingPolicy policy(Context.getLangOpts());
    policy.SuppressTagKeyword = true;
    policy.FullyQualifiedName = true;
    switch (arg.getKind()) {
    case clang::TemplateArgument::Pack:
      for (const clang::TemplateArgument& element : arg.pack_elements())
        appendTemplateArgument(element, out);
      return;
    case clang::TemplateArgument::Type:
      out.push_back({TemplateArgumentKind::Type,
                     clang::TypeName::getFullyQualifiedName(arg.getAsType(), Context, policy)});
      return;
    case clang::TemplateArgument::Integral: {
      const llvm::APSInt& value = arg.getAsIntegral();
      if (arg.getIntegralType()->isBooleanType()) {
        out.push_back({TemplateArgumentKind::Value, value.getBoolValue() ? "true" : "false"});
        return;
      }
      if (const auto* enumType = arg.getIntegralType()->getAs<clang::EnumType>()) {
        for (const clang::EnumConstantDecl* constant : enumType->getDecl()->enumerators())
          if (llvm::APSInt::isSameValue(constant->getInitVal(), value)) {
            out.push_back({TemplateArgumentKind::Value, constant->getQualifiedNameAsString()});
            return;
          }
      }
      out.push_back({TemplateArgumentKind::Value, llvm::toString(value, 10)});
      return;
    }
    default: {
      std::string text;
      llvm::raw_string_ostream os(text);
      arg.print(policy, os, /*IncludeType=*/false);
      out.push_back({TemplateArgumentKind::Value, text});
      return;
    }
    }
  }

  bool readLaunchAttributes(const clang::FunctionDecl& function, Kernel& kernel) {
    bool valid = true;
    if (const auto* bounds = function.getAttr<clang::CUDALaunchBoundsAttr>()) {
      LaunchBounds out;
      auto maxThreads = evaluateUnsigned(bounds->getMaxThreads(), Context);
      if (!maxThreads) {
        Diagnostics.error(bounds->getLocation(),
                          "__launch_bounds__ must be non-negative integer constants");
        valid = false;
      } else {
        out.maxThreads = *maxThreads;
        if (bounds->getMinBlocks())
          out.minBlocks = evaluateUnsigned(bounds->getMinBlocks(), Context);
        if (bounds->getMaxBlocks())
          out.maxBlocksPerCluster = evaluateUnsigned(bounds->getMaxBlocks(), Context);
        kernel.launchBounds = out;
      }
    }
    if (const auto* cluster = function.getAttr<clang::CUDAClusterDimsAttr>()) {
      std::array<uint64_t, 3> dims = {1, 1, 1};
      const clang::Expr* exprs[] = {cluster->getX(), cluster->getY(), cluster->getZ()};
      for (int i = 0; i < 3; ++i) {
        if (!exprs[i])
          continue;
        auto value = evaluateUnsigned(exprs[i], Context);
        if (!value || *value == 0) {
          Diagnostics.error(cluster->getLocation(),
                            "__cluster_dims__ must be positive integer constants");
          valid = false;
          break;
        }
        dims[i] = *value;
      }
      kernel.clusterDims = dims;
    }
    return valid;
  }

  bool readKernelAnnotations(const clang::FunctionDecl& function,
                             const clang::FunctionDecl& definition, Kernel& kernel) {
    std::vector<Annotation> annotations = readAnnotations(function, Diagnostics);
    if (annotations.empty() && &definition != &function)
      annotations = readAnnotations(definition, Diagnostics);
    for (const Annotation& annotation : annotations) {
      if (annotation.key != "name") {
        Diagnostics.error(annotation.location,
                          "TLC_" + llvm::StringRef(annotation.key).upper() +
                              " belongs after a CUtensorMap parameter, not on a kernel");
        return false;
      }
      if (!isCIdentifier(annotation.value)) {
        Diagnostics.error(annotation.location,
                          "TLC_NAME(\"" + annotation.value + "\") is not a valid C identifier");
        return false;
      }
      if (!kernel.explicitName.empty() && kernel.explicitName != annotation.value) {
        Diagnostics.error(annotation.location, "a second TLC_NAME(\"" + annotation.value +
                                                   "\") on a kernel named TLC_NAME(\"" +
                                                   kernel.explicitName + "\") already");
        return false;
      }
      kernel.explicitName = annotation.value;
      kernel.explicitNameLocation = presumedLocation(Context, annotation.location);
    }
    return true;
  }

  bool readParameters(const clang::FunctionDecl& function, const std::string& displayName,
                      Kernel& kernel) {
    bool valid = true;
    std::string untyped; // "'o' ('Owner': not trivially copyable), ..."
    for (unsigned i = 0; i < function.getNumParams(); ++i) {
      const clang::ParmVarDecl& parameter = *function.getParamDecl(i);
      Param param;
      std::string why;
      switch (Types.classify(parameter, i, param, why)) {
      case ParameterTypes::Outcome::Refused:
        Diagnostics.error(parameter.getLocation(), "parameter '" + param.name + "' of kernel '" +
                                                       displayName + "' has type '" + param.type +
                                                       "', which tlc cannot pass: " + why);
        valid = false;
        continue;
      case ParameterTypes::Outcome::Untyped:
        untyped += (untyped.empty() ? "" : ", ") +
                   ("'" + param.name + "' ('" + param.type + "': " + why + ")");
        break;
      case ParameterTypes::Outcome::Typed:
        break;
      }
      valid &= readParameterAnnotations(parameter, param);
      kernel.params.push_back(std::move(param));
    }
    numberRepeatedNames(kernel.params);
    // nvcc compiles the kernel whatever C can spell: its launcher takes such parameters as bytes.
    if (valid && !untyped.empty())
      Diagnostics.warning(function.getLocation(),
                          "kernel '" + displayName +
                              "' takes parameters tlc cannot type, which its launcher takes as "
                              "bytes, as many as nvcc's image gives each: " +
                              untyped);
    return valid;
  }

  bool readParameterAnnotations(const clang::ParmVarDecl& parameter, Param& param) {
    bool valid = true;
    for (const Annotation& annotation : readAnnotations(parameter, Diagnostics)) {
      if (annotation.key == "name") {
        Diagnostics.error(annotation.location, "TLC_NAME belongs on a kernel, not a parameter");
        valid = false;
        continue;
      }
      if (param.kind != ParamKind::TensorMap) {
        Diagnostics.error(annotation.location,
                          "TLC_" + llvm::StringRef(annotation.key).upper() +
                              " applies only to 'const __grid_constant__ CUtensorMap' parameters");
        valid = false;
        continue;
      }
      if (param.tensorMap) {
        // One descriptor, one layout: a second annotation would silently win over the first.
        Diagnostics.error(annotation.location,
                          "a second TLC_" + llvm::StringRef(annotation.key).upper() +
                              " on parameter '" + param.name +
                              "', which has one already; give each tensor map one annotation");
        valid = false;
        continue;
      }
      TensorMapSpec spec;
      for (const TensorMapModeRow& mode : EnumTable<TensorMapMode>::rows())
        if (annotation.key == mode.annotationKey)
          spec.mode = mode.value;
      spec.text = annotation.value;
      spec.location = presumedLocation(Context, annotation.location);
      param.tensorMap = spec;
    }
    return valid;
  }

  // The kernel's non-type template parameters with this instance's values, for annotations
  // such as box=(BK)x(BM).
  llvm::StringMap<int64_t> templateValues(const clang::FunctionDecl& function) {
    llvm::StringMap<int64_t> values;
    const clang::FunctionTemplateDecl* primary = function.getPrimaryTemplate();
    const clang::TemplateArgumentList* args = function.getTemplateSpecializationArgs();
    if (!primary || !args)
      return values;
    const clang::TemplateParameterList* params = primary->getTemplateParameters();
    for (unsigned i = 0; i < params->size() && i < args->size(); ++i)
      if (args->get(i).getKind() == clang::TemplateArgument::Integral)
        values[params->getParam(i)->getName()] = args->get(i).getAsIntegral().getExtValue();
    return values;
  }

  // Every tensor-map parameter needs a TLC_TMA/TLC_TMA_IM2COL annotation the driver can encode.
  bool readTensorMaps(const clang::FunctionDecl& function, const std::string& displayName,
                      Kernel& kernel) {
    llvm::StringMap<int64_t> bound = templateValues(function);
    const clang::DeclContext* scope = function.getDeclContext();
    ValueEvaluator evaluate = [&](llvm::StringRef text, int64_t& value, std::string& error) {
      return Constants.evaluate(text, scope, bound, value, error);
    };
    bool valid = true;
    for (Param& param : kernel.params) {
      if (param.kind != ParamKind::TensorMap)
        continue;
      clang::SourceLocation at = function.getParamDecl(param.index)->getLocation();
      if (!param.tensorMap) {
        Diagnostics.error(at, "tensor-map parameter '" + param.name + "' of kernel '" +
                                  displayName +
                                  "' needs TLC_TMA(\"...\") or TLC_TMA_IM2COL(\"...\") after its "
                                  "name, describing the box the kernel loads (tlc/annotations.h)");
        valid = false;
        continue;
      }
      const char* macro = describe(param.tensorMap->mode).macro;
      for (const std::string& problem : parseTensorMapSpec(*param.tensorMap, evaluate)) {
        Diagnostics.error(at,
                          std::string(macro) + " of parameter '" + param.name + "': " + problem);
        valid = false;
      }
    }
    return valid;
  }

  void recordDefinition(const clang::NamedDecl& decl, DeviceSymbol::Kind kind) {
    if (!decl.isExternallyVisible() || isInSystemHeader(Context, decl.getLocation()))
      return;
    DeviceSymbol symbol;
    symbol.kind = kind;
    symbol.symbol = Mangler.symbolOf(decl);
    symbol.name = decl.getQualifiedNameAsString();
    if (const auto* function = llvm::dyn_cast<clang::FunctionDecl>(&decl)) {
      symbol.weak = Context.GetGVALinkageForFunction(function) != clang::GVA_StrongExternal;
      const clang::FunctionDecl* pattern = function->getTemplateInstantiationPattern();
      const clang::FunctionDecl& definition = pattern ? *pattern : *function;
      symbol.location = presumedLocation(Context, definition.getLocation());
      symbol.definitionKey = definitionKey(Context, definition.getSourceRange());
    } else {
      const auto& variable = llvm::cast<clang::VarDecl>(decl);
      symbol.weak = Context.GetGVALinkageForVariable(&variable) != clang::GVA_StrongExternal;
      symbol.location = presumedLocation(Context, variable.getLocation());
      symbol.definitionKey = definitionKey(Context, variable.getSourceRange());
    }
    symbol.translationUnit = Facts.input;
    Facts.definitions.push_back(std::move(symbol));
  }

  clang::ASTContext& Context;
  TranslationUnitFacts& Facts;
  ClangDiagnostics Diagnostics;
  ParameterTypes Types;
  SymbolMangler Mangler;
  llvm::StringSet<> SeenKernels;
  std::vector<const clang::FunctionTemplateDecl*> Templates;
  llvm::SmallPtrSet<const clang::FunctionTemplateDecl*, 16> InstantiatedTemplates;
  ConstantEvaluator Constants;
};

class ExtractorConsumer : public clang::ASTConsumer {
public:
  ExtractorConsumer(clang::Preprocessor& preprocessor, TranslationUnitFacts& facts)
      : Preprocessor(preprocessor), Facts(facts) {}

  // Clang reads declarations: the bodies of the CUDA and C++ headers' ordinary functions (most of
  // what a parse reads) are skipped. Templates keep theirs, since instantiating them may
  // instantiate kernels; so do constexpr functions and deduced return types (Clang keeps those
  // itself), and every function of the user's own files.
  bool shouldSkipFunctionBody(clang::Decl* decl) override {
    return skipsBodyOf(decl, Preprocessor.getSourceManager());
  }

  // The top-level declarations this parse read itself, not from a preamble (Preamble.h).
  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    LocalDecls.insert(LocalDecls.end(), group.begin(), group.end());
    return true;
  }

  void HandleTranslationUnit(clang::ASTContext& context) override {
    // Facts from a broken AST would only add noise to the real errors. Errors Clang made in
    // function bodies, which nvcc does not share, were not passed on (Frontend.cpp) and do not
    // count: the client counts the errors it showed.
    const clang::DiagnosticConsumer* shown = context.getDiagnostics().getClient();
    if (shown ? shown->getNumErrors() > 0 : context.getDiagnostics().hasErrorOccurred())
      return;
    // With a preamble loaded, the walk covers what this parse read itself: walking the whole
    // translation unit would read every declaration of the preamble's CUDA and C++ headers back
    // from the precompiled file (most of a small file's parse, as clangd found) only to pass
    // them by, since they hold no kernel and nothing of the user's. Kernel templates the input
    // instantiates are reached through their own declarations, which the input or its headers
    // made.
    if (context.getExternalSource())
      context.setTraversalScope(LocalDecls);
    Extractor extractor(context, Preprocessor, Facts);
    extractor.TraverseDecl(context.getTranslationUnitDecl());
    extractor.warnAboutUninstantiatedTemplates();
    recordFilesRead(context.getSourceManager());
  }

private:
  std::vector<clang::Decl*> LocalDecls;

  void recordFilesRead(const clang::SourceManager& sources) {
    // The compatibility header and the fallback stand-ins are virtual: nothing to depend on.
    llvm::StringRef virtualFolder = llvm::sys::path::parent_path(parseCompatHeaderPath());
    for (auto it = sources.fileinfo_begin(); it != sources.fileinfo_end(); ++it)
      if (!it->first.getName().starts_with(virtualFolder.str() + "/"))
        Facts.filesRead.push_back(it->first.getName().str());
    std::sort(Facts.filesRead.begin(), Facts.filesRead.end());
    // The user's headers: files entered as user files (a -I folder's, the input's folder's), not
    // as system ones. The preamble holds only the force-included system headers (Preamble.h), so
    // every user header is a local entry.
    clang::OptionalFileEntryRef mainFile = sources.getFileEntryRefForID(sources.getMainFileID());
    std::set<std::string> headers;
    for (unsigned i = 0; i < sources.local_sloc_entry_size(); ++i) {
      const clang::SrcMgr::SLocEntry& entry = sources.getLocalSLocEntry(i);
      if (!entry.isFile() || clang::SrcMgr::isSystem(entry.getFile().getFileCharacteristic()))
        continue;
      clang::OptionalFileEntryRef file = entry.getFile().getContentCache().OrigEntry;
      if (!file || (mainFile && *file == *mainFile) || file->getName() == parseCompatHeaderPath())
        continue;
      headers.insert(absolutePath(file->getName().str()));
    }
    Facts.userHeaders.assign(headers.begin(), headers.end());
  }

  clang::Preprocessor& Preprocessor;
  TranslationUnitFacts& Facts;
};

} // namespace

namespace {

// libstdc++'s special math functions (std::beta, std::cyl_bessel_j, ...: <cmath> includes them
// for C++17): skipping the bodies of their templates saves a twentieth of a first parse's
// instructions. Those bodies call only each other, never a callable of the user's (which could
// instantiate a kernel), so unlike other templates' they may be skipped.
bool inSpecialMathFunctions(llvm::StringRef file) {
  return file.ends_with("/bits/specfun.h") ||
         (file.ends_with(".tcc") &&
          llvm::sys::path::filename(llvm::sys::path::parent_path(file)) == "tr1");
}

// A function only device code calls (`__device__`, not `__host__` nor `__global__`; Clang makes
// an unmarked constexpr function both; a constexpr one keeps its body anyway). Instantiating its
// body cannot make a kernel the launcher library needs: kernels are launched and named from host
// code, and a library's device-side launches (CUB's and Thrust's dispatch, for dynamic
// parallelism) sit in `__host__ __device__` functions, which keep their bodies. Skipping these is
// what makes the parse of template-heavy device code (CUB's block primitives, CUTLASS's
// collectives) cheap next to nvcc's own compile of it.
bool deviceOnly(const clang::FunctionDecl& function) {
  return function.hasAttr<clang::CUDADeviceAttr>() && !function.hasAttr<clang::CUDAHostAttr>() &&
         !function.hasAttr<clang::CUDAGlobalAttr>() && !function.isConstexpr();
}

} // namespace

bool skipsBodyOf(const clang::Decl* decl, const clang::SourceManager& sources) {
  const clang::FunctionDecl* function = decl->getAsFunction();
  if (!function || function->isTemplateInstantiation())
    return false;
  clang::SourceLocation where = sources.getExpansionLoc(function->getLocation());
  if (!sources.isInSystemHeader(where))
    return false;
  return !function->isTemplated() || inSpecialMathFunctions(sources.getFilename(where)) ||
         deviceOnly(*function);
}

std::unique_ptr<clang::ASTConsumer> makeExtractorConsumer(clang::CompilerInstance& ci,
                                                          TranslationUnitFacts& facts) {
  return std::make_unique<ExtractorConsumer>(ci.getPreprocessor(), facts);
}

} // namespace tlc
