//===- Policy.cpp - AMP precision policies --------------------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Policy.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::amp;

LogicalResult
mlir::amp::loadPolicyFile(StringRef path, AmpPolicy &policy, bool keepDtype,
                          bool keepGuard,
                          function_ref<InFlightDiagnostic()> emitError) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return emitError() << "cannot read policy file '" << path
                       << "': " << buffer.getError().message();
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return emitError() << "malformed policy file '" << path
                       << "': " << llvm::toString(json.takeError());
  const llvm::json::Object *root = json->getAsObject();
  if (!root)
    return emitError() << "malformed policy file '" << path
                       << "': expected a JSON object";

  auto readList = [&](StringRef key, llvm::StringSet<> &into) -> LogicalResult {
    const llvm::json::Value *value = root->get(key);
    if (!value)
      return success();
    const llvm::json::Array *array = value->getAsArray();
    if (!array)
      return emitError() << "policy file '" << path << "': '" << key
                         << "' must be an array of op names";
    for (const llvm::json::Value &item : *array) {
      std::optional<StringRef> name = item.getAsString();
      if (!name)
        return emitError() << "policy file '" << path << "': '" << key
                           << "' must be an array of op names";
      into.insert(*name);
    }
    return success();
  };

  for (const auto &entry : *root) {
    StringRef key = entry.first;
    if (key != "dtype" && key != "custom_white_list" &&
        key != "custom_black_list" && key != "categories" &&
        key != "use_fp16_guard")
      return emitError() << "policy file '" << path << "': unknown key '" << key
                         << "' (expected dtype, custom_white_list, "
                            "custom_black_list, categories, use_fp16_guard)";
  }
  if (failed(readList("custom_white_list", policy.whiteList)) ||
      failed(readList("custom_black_list", policy.blackList)))
    return failure();

  if (const llvm::json::Value *dtype = root->get("dtype")) {
    std::optional<StringRef> name = dtype->getAsString();
    std::optional<Precision> precision =
        name ? parseLowPrecision(*name) : std::nullopt;
    if (!precision)
      return emitError() << "policy file '" << path
                         << "': 'dtype' must be \"f16\" or \"bf16\"";
    if (!keepDtype)
      policy.dtype = *precision;
  }
  if (const llvm::json::Value *guard = root->get("use_fp16_guard")) {
    std::optional<bool> value = guard->getAsBoolean();
    if (!value)
      return emitError() << "policy file '" << path
                         << "': 'use_fp16_guard' must be true or false";
    if (!keepGuard)
      policy.useFp16Guard = *value;
  }
  if (const llvm::json::Value *categories = root->get("categories")) {
    const llvm::json::Object *object = categories->getAsObject();
    if (!object)
      return emitError() << "policy file '" << path
                         << "': 'categories' must map op names to "
                            "\"white\", \"black\" or \"gray\"";
    for (const auto &entry : *object) {
      std::optional<StringRef> name = entry.second.getAsString();
      std::optional<Category> category =
          name ? symbolizeCategory(*name) : std::nullopt;
      if (!category || *category == Category::Unsupported)
        return emitError() << "policy file '" << path << "': category of '"
                           << entry.first.str()
                           << "' must be \"white\", \"black\" or \"gray\"";
      policy.categories[entry.first.str()] = *category;
    }
  }
  return success();
}

LogicalResult
mlir::amp::verifyPolicy(const AmpPolicy &policy, MLIRContext *context,
                        function_ref<InFlightDiagnostic()> emitError) {
  auto known = [&](StringRef name, StringRef where) -> LogicalResult {
    if (RegisteredOperationName::lookup(name, context))
      return success();
    return emitError() << "unknown operation '" << name << "' in " << where;
  };
  // Sorted, so that the first error reported does not depend on hashing.
  auto sorted = [](const llvm::StringSet<> &set) {
    std::vector<std::string> names;
    for (const auto &entry : set)
      names.push_back(entry.getKey().str());
    llvm::sort(names);
    return names;
  };
  for (const std::string &name : sorted(policy.whiteList))
    if (failed(known(name, "custom-white-list")))
      return failure();
  for (const std::string &name : sorted(policy.blackList)) {
    if (failed(known(name, "custom-black-list")))
      return failure();
    if (policy.whiteList.contains(name))
      return emitError() << "operation '" << name
                         << "' is in both custom-white-list and "
                            "custom-black-list";
  }
  std::vector<std::string> overridden;
  for (const auto &entry : policy.categories)
    overridden.push_back(entry.getKey().str());
  llvm::sort(overridden);
  for (const std::string &name : overridden)
    if (failed(known(name, "the policy's categories")))
      return failure();
  return success();
}
