//===- amp-opt-fuzzer.cpp - libFuzzer target for amp-opt's pipelines ------===//
//
// Part of amp-mlir. Built only with -DAMP_ENABLE_FUZZER=ON and clang (see
// docs/reliability.md; `make fuzz` runs it on the lit tests' inputs).
//
// Each input is parsed as an MLIR module in a context with everything amp-opt
// registers. Inputs that do not parse or verify are skipped (their
// diagnostics are swallowed). Every pipeline of `AMP_FUZZ_PIPELINES` then
// runs on a clone of the module; the IR is verified after every pass that
// succeeded, and again at the end. A pipeline that fails with a diagnostic is
// not a bug (unsupported input); a pass that succeeds and leaves IR that does
// not verify, on a module that verified before, is: the fuzzer aborts and
// libFuzzer saves the input. Crashes (segfaults, assertions in amp-mlir
// code, sanitizer reports) are caught by libFuzzer as usual.
//
//===----------------------------------------------------------------------===//

#include "amp/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// One step of a fuzzed chain: a pass pipeline that runs on the module that
/// the previous step of the chain left.
using Chain = std::vector<std::string>;

/// The chains run on every input, each on its own clone. Overridden by
/// AMP_FUZZ_PIPELINES: chains separated by ';', steps of a chain by '|'
/// (each step a textual pipeline anchored on builtin.module), e.g.
///   AMP_FUZZ_PIPELINES='amp-o1|lower-to-cpu;amp-o2'
/// lower-to-gpu stops at PTX text (format=isa): no ptxas runs. The
/// defaults are the five pipelines issue 45's mutation run used (O1, O2,
/// O2 and the CPU, bf16 and the GPU simulator, fp8 and the CPU; each step
/// is verified, so a chain covers its prefixes), the GPU pipeline to PTX,
/// and the CPU pipeline on the input as written.
const char *const kDefaultChains =
    "amp-o1|lower-to-cpu;"
    "amp-o2|lower-to-cpu;"
    "amp-o2{dtype=bf16}|lower-to-gpu{simulate=true};"
    "amp-o2{dtype=fp8}|lower-to-cpu;"
    "amp-o2|lower-to-gpu{format=isa};"
    "lower-to-cpu";

struct FuzzState {
  std::unique_ptr<MLIRContext> context;
  std::vector<Chain> chains;
  /// Set by the instrumentation: the pass after which verification failed.
  std::string brokenBy;
};

FuzzState *state = nullptr;

[[noreturn]] void fatal(const llvm::Twine &message) {
  llvm::errs() << "amp-opt-fuzzer: " << message << "\n";
  llvm::errs().flush();
  std::abort();
}

std::vector<Chain> parseChains(llvm::StringRef text) {
  std::vector<Chain> chains;
  llvm::SmallVector<llvm::StringRef> chainTexts, stepTexts;
  text.split(chainTexts, ';', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (llvm::StringRef chainText : chainTexts) {
    Chain chain;
    stepTexts.clear();
    chainText.split(stepTexts, '|', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    for (llvm::StringRef step : stepTexts)
      if (!step.trim().empty())
        chain.push_back(step.trim().str());
    if (!chain.empty())
      chains.push_back(std::move(chain));
  }
  return chains;
}

/// Verifies the op a pass ran on after the pass succeeded. The pass manager's
/// own verifier is off: its failure would look like an ordinary pass failure.
struct VerifyAfterEachPass : public PassInstrumentation {
  void runAfterPass(Pass *pass, Operation *op) override {
    if (!state->brokenBy.empty())
      return;
    if (failed(verify(op)))
      state->brokenBy = pass->getArgument().empty()
                            ? pass->getName().str()
                            : pass->getArgument().str();
  }
};

/// Builds the pass manager of one step; aborts if the step does not parse
/// (a bad AMP_FUZZ_PIPELINES or an unregistered pipeline is not a finding).
void buildStep(PassManager &pm, const std::string &step) {
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(step, pm, os)))
    fatal("cannot parse pipeline '" + step + "': " + error);
  pm.enableVerifier(false);
  pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>());
}

} // namespace

/// ASan defaults of this binary (ASAN_OPTIONS adds to them). LLVM's
/// BumpPtrAllocator poisons the free part of its slabs when the code that
/// inlines it is built with ASan, and unpoisons what it hands out: our
/// (instrumented) code poisons a slab, Debian's uninstrumented libMLIR then
/// allocates from the same slab without unpoisoning, and its next memmove
/// into the block is reported as a use-after-poison. Manual poisoning is
/// turned off; ASan's own redzones and shadow work as usual.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  state = new FuzzState();
  DialectRegistry registry;
  amp::registerAllDialects(registry);
  amp::registerAllPasses();
  state->context = std::make_unique<MLIRContext>(registry);
  // One thread: deterministic, and no thread pool per input.
  state->context->disableMultithreading();
  // Everything loaded up front, as amp-opt does when it parses.
  state->context->loadAllAvailableDialects();

  const char *env = std::getenv("AMP_FUZZ_PIPELINES");
  state->chains = parseChains(env && *env ? env : kDefaultChains);
  if (state->chains.empty())
    fatal("AMP_FUZZ_PIPELINES names no pipeline");
  // Check every step once, before the first input.
  for (const Chain &chain : state->chains)
    for (const std::string &step : chain) {
      PassManager pm(state->context.get());
      buildStep(pm, "builtin.module(" + step + ")");
    }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext *context = state->context.get();
  // Swallow every diagnostic: invalid inputs and failing pipelines are
  // expected, and printing them would drown libFuzzer's output.
  ScopedDiagnosticHandler silence(context,
                                  [](Diagnostic &) { return success(); });

  // The lexer relies on a NUL after the buffer (as files and std::string
  // have); libFuzzer's data has none.
  std::string text(reinterpret_cast<const char *>(data), size);
  ParserConfig config(context, /*verifyAfterParse=*/true);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, config, "fuzz-input");
  if (!module)
    return -1; // Not added to the corpus.

  for (const Chain &chain : state->chains) {
    OwningOpRef<ModuleOp> clone = module->clone();
    std::string done;
    for (const std::string &step : chain) {
      PassManager pm(context);
      buildStep(pm, "builtin.module(" + step + ")");
      state->brokenBy.clear();
      LogicalResult result = pm.run(*clone);
      if (!state->brokenBy.empty())
        fatal("the IR does not verify after pass '" + state->brokenBy +
              "' of '" + step + "'" +
              (done.empty() ? "" : " (after " + done + ")") +
              " on an input that verified");
      if (failed(result))
        break; // Rejected with a diagnostic: not a finding.
      if (failed(verify(*clone)))
        fatal("the module does not verify after '" + step + "'" +
              (done.empty() ? "" : " (after " + done + ")"));
      done += done.empty() ? step : "|" + step;
    }
  }
  return 0;
}
