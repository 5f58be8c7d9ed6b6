//===- PrecisionGraph.cpp - the amp-precision-graph pass ------------------===//
//
// Part of amp-mlir. The data flow of each function as a Graphviz DOT graph
// whose nodes are filled by the precision their op computes in, with the
// conversions drawn apart and labelled with what they cost: the picture of
// what --amp-o1/--amp-o2 did.
//
//===----------------------------------------------------------------------===//

#include "ReportUtils.h"
#include "amp/Dialect/Amp/IR/AmpInterfaces.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/ToolOutputFile.h"

#include <set>

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPPRECISIONGRAPHPASS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {
/// Fill and edge colours of a precision (pale fills keep black text
/// readable; edges use the darker shade of the same hue).
struct Palette {
  const char *fill;
  const char *edge;
};
} // namespace

static constexpr Palette kF32 = {"#9ecae1", "#3182bd"};
static constexpr Palette kF16 = {"#fdae6b", "#e6550d"};
static constexpr Palette kBF16 = {"#a1d99b", "#31a354"};
static constexpr Palette kOtherFloat = {"#cbc9e2", "#756bb1"};
static constexpr Palette kNotFloat = {"#e0e0e0", "#737373"};
static constexpr const char *kConversionOutline = "#d62728";

static Palette getPalette(StringRef precision) {
  if (precision.empty())
    return kNotFloat;
  if (precision == "f32")
    return kF32;
  if (precision == "f16")
    return kF16;
  if (precision == "bf16")
    return kBF16;
  return kOtherFloat;
}

/// The name of the float element type of `type` ("f32"), or empty.
static std::string getFloatElementName(Type type) {
  auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type));
  if (!element)
    return "";
  std::string name;
  llvm::raw_string_ostream os(name);
  element.print(os);
  return name;
}

/// A short spelling of a type for labels: `1x8x32xf16` for a ranked tensor,
/// `*xf16` for an unranked one, `memref<4x4xf32>` without layout, anything
/// else as printed (cut at 40 characters).
static std::string formatTypeCompactly(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto printShape = [&](ArrayRef<int64_t> shape, Type element) {
    for (int64_t dim : shape) {
      if (ShapedType::isDynamic(dim))
        os << '?';
      else
        os << dim;
      os << 'x';
    }
    element.print(os);
  };
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    if (tensor.getRank() == 0) {
      os << "tensor<";
      tensor.getElementType().print(os);
      os << ">";
    } else {
      printShape(tensor.getShape(), tensor.getElementType());
    }
  } else if (auto tensor = dyn_cast<UnrankedTensorType>(type)) {
    os << "*x";
    tensor.getElementType().print(os);
  } else if (auto memref = dyn_cast<MemRefType>(type)) {
    os << "memref<";
    printShape(memref.getShape(), memref.getElementType());
    os << ">";
  } else {
    type.print(os);
  }
  if (text.size() > 40)
    text = text.substr(0, 37) + "...";
  return text;
}

/// The result types of `op`, comma-separated (at most three, then a count).
static std::string formatResultTypes(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  unsigned numResults = op->getNumResults();
  for (unsigned i = 0; i < std::min(numResults, 3u); ++i)
    os << (i ? ", " : "") << formatTypeCompactly(op->getResult(i).getType());
  if (numResults > 3)
    os << ", +" << numResults - 3;
  return text;
}

/// Escapes `text` for a double-quoted DOT string; `\n` in the result stays
/// a line break only where the caller writes it.
static std::string escapeDot(StringRef text) {
  std::string escaped;
  for (char c : text) {
    if (c == '"' || c == '\\')
      escaped.push_back('\\');
    if (c == '\n') {
      escaped += "\\n";
      continue;
    }
    escaped.push_back(c);
  }
  return escaped;
}

namespace {
/// Writes the DOT text of one module.
class GraphWriter {
public:
  GraphWriter(raw_ostream &os, unsigned maxNodes)
      : os(os), maxNodes(maxNodes) {}

  /// Draws `func` as a cluster of argument and op nodes.
  void drawFunction(FunctionOpInterface func);

  /// Writes the collected edges.
  void writeEdges();

  unsigned getNumDrawn() const { return numDrawn; }
  unsigned getNumLeftOut() const { return numLeftOut; }
  Operation *getFirstLeftOut() const { return firstLeftOut; }

  // Totals over every op considered (drawn or left out), as the report
  // counts them.
  ReportSummary summary;

private:
  /// Reserves a node id, or returns std::nullopt past `maxNodes`.
  std::optional<unsigned> takeNode(Operation *leftOut);
  void drawBlock(Block &block, unsigned depth);
  void drawOp(Operation *op, unsigned depth);
  void addEdges(Operation *user, unsigned userId);
  raw_ostream &indent(unsigned depth) { return os.indent(2 * depth); }

  raw_ostream &os;
  unsigned maxNodes;
  unsigned numDrawn = 0, numLeftOut = 0, numClusters = 0;
  Operation *firstLeftOut = nullptr;
  /// The node of each value's producer: an op, a function argument, or the
  /// region op that owns a nested block argument.
  llvm::DenseMap<Operation *, unsigned> opNodes;
  llvm::DenseMap<Value, unsigned> argNodes;
  /// (producer, user) -> colour, in first-seen order.
  std::vector<std::tuple<unsigned, unsigned, const char *>> edges;
  std::set<std::pair<unsigned, unsigned>> seenEdges;
};
} // namespace

std::optional<unsigned> GraphWriter::takeNode(Operation *leftOut) {
  if (maxNodes && numDrawn >= maxNodes) {
    ++numLeftOut;
    if (!firstLeftOut)
      firstLeftOut = leftOut;
    return std::nullopt;
  }
  return numDrawn++;
}

void GraphWriter::drawFunction(FunctionOpInterface func) {
  indent(1) << "subgraph cluster_" << numClusters++ << " {\n";
  indent(2) << "label=\"" << escapeDot(("func @" + func.getName()).str())
            << "\"; style=\"rounded\"; color=\"#999999\"; fontsize=12;\n";
  Operation *funcOp = func.getOperation();
  for (BlockArgument arg : func.getArguments()) {
    std::optional<unsigned> id = takeNode(funcOp);
    if (!id)
      continue;
    argNodes[arg] = *id;
    Palette palette = getPalette(getFloatElementName(arg.getType()));
    indent(2) << "n" << *id << " [label=\"%arg" << arg.getArgNumber() << "\\n"
              << escapeDot(formatTypeCompactly(arg.getType()))
              << "\", shape=ellipse, style=filled, fillcolor=\"" << palette.fill
              << "\"];\n";
  }
  for (Region &region : funcOp->getRegions())
    for (Block &block : region)
      drawBlock(block, 2);
  indent(1) << "}\n";
}

void GraphWriter::drawBlock(Block &block, unsigned depth) {
  for (Operation &op : block)
    drawOp(&op, depth);
}

void GraphWriter::drawOp(Operation *op, unsigned depth) {
  summary.count(op);
  bool hasModel = isa<AmpPrecisionOpInterface>(op);
  Value input;
  Type output;
  bool conversion = isConversion(op, input, output);
  // Ops with regions and no model (loops, conditionals, guards) become a
  // box holding their own node and their body.
  bool cluster = !hasModel && !conversion && op->getNumRegions() != 0;
  std::optional<unsigned> id = takeNode(op);
  if (id) {
    opNodes[op] = *id;
    if (cluster) {
      indent(depth) << "subgraph cluster_" << numClusters++ << " {\n";
      ++depth;
      indent(depth) << "label=\"" << escapeDot(op->getName().getStringRef())
                    << "\"; style=\"dashed,rounded\"; color=\"#999999\";\n";
    }
    std::string label = op->getName().getStringRef().str();
    if (auto callee = op->getAttrOfType<FlatSymbolRefAttr>("callee"))
      label += " @" + callee.getValue().str();
    indent(depth) << "n" << *id << " [";
    if (conversion) {
      std::optional<uint64_t> bytes = getBytesConverted(input, output);
      std::string from = getFloatElementName(input.getType());
      std::string to = getFloatElementName(output);
      std::string shape = formatTypeCompactly(output);
      // The shape without its element type: "1x8x16" of "1x8x16xf16".
      StringRef dims = StringRef(shape);
      if (dims.ends_with("x" + to))
        dims = dims.drop_back(to.size() + 1);
      else if (dims == to)
        dims = "scalar";
      // A narrowing the contraction's epilogue writes moves nothing more.
      label += "\n" + from + " -> " + to + "\n" + dims.str() + ", " +
               (isEpilogueNarrowing(op) ? std::string("in the epilogue")
                : bytes                 ? formatBytes(*bytes)
                                        : std::string("? B"));
      os << "label=\"" << escapeDot(label)
         << "\", shape=hexagon, style=filled, penwidth=3, color=\""
         << kConversionOutline << "\", fillcolor=\"" << getPalette(from).fill
         << ":" << getPalette(to).fill << "\", gradientangle=270";
    } else {
      if (op->getNumResults())
        label += "\n" + formatResultTypes(op);
      Palette palette = getPalette(getFloatOpPrecision(op));
      os << "label=\"" << escapeDot(label) << "\", fillcolor=\"" << palette.fill
         << "\"";
      if (StringRef(palette.fill) == kNotFloat.fill)
        os << ", fontcolor=\"#404040\"";
    }
    os << "];\n";
    addEdges(op, *id);
  }
  // The body of a model op is part of it; other regions are drawn (or, past
  // max-nodes, counted).
  if (hasModel)
    return;
  for (Region &region : op->getRegions())
    for (Block &block : region) {
      if (id)
        for (BlockArgument arg : block.getArguments())
          argNodes[arg] = *id;
      drawBlock(block, depth);
    }
  if (id && cluster)
    indent(depth - 1) << "}\n";
}

void GraphWriter::addEdges(Operation *user, unsigned userId) {
  llvm::SetVector<Value> used(user->operand_begin(), user->operand_end());
  // Values a model op's body captures from above flow into the op too.
  if (isa<AmpPrecisionOpInterface>(user))
    getUsedValuesDefinedAbove(user->getRegions(), used);
  for (Value value : used) {
    std::optional<unsigned> from;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto it = argNodes.find(arg);
      if (it != argNodes.end())
        from = it->second;
    } else {
      auto it = opNodes.find(value.getDefiningOp());
      if (it != opNodes.end())
        from = it->second;
    }
    if (!from || !seenEdges.insert({*from, userId}).second)
      continue;
    edges.emplace_back(*from, userId,
                       getPalette(getFloatElementName(value.getType())).edge);
  }
}

void GraphWriter::writeEdges() {
  for (auto [from, to, colour] : edges)
    indent(1) << "n" << from << " -> n" << to << " [color=\"" << colour
              << "\"];\n";
}

/// Escapes `text` for a Graphviz HTML-like label.
static std::string escapeHtml(StringRef text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
    case '&':
      escaped += "&amp;";
      break;
    case '<':
      escaped += "&lt;";
      break;
    case '>':
      escaped += "&gt;";
      break;
    case '"':
      escaped += "&quot;";
      break;
    default:
      escaped.push_back(c);
    }
  }
  return escaped;
}

/// The graph's label: the title lines, then the legend as a table of two
/// rows, so that it spans the top of the picture rather than widening it.
static void writeLabel(raw_ostream &os, ArrayRef<std::string> titleLines) {
  auto cell = [&](StringRef attributes, StringRef text) {
    os << "          <TD" << (attributes.empty() ? "" : " ") << attributes
       << ">" << text << "</TD>\n";
  };
  auto fill = [](const Palette &palette) {
    return ("BGCOLOR=\"" + StringRef(palette.fill) + "\"").str();
  };
  os << "  label=<\n"
     << "    <TABLE BORDER=\"0\" CELLSPACING=\"2\">\n";
  for (const std::string &line : titleLines)
    os << "      <TR><TD><FONT POINT-SIZE=\"14\">" << escapeHtml(line)
       << "</FONT></TD></TR>\n";
  os << "      <TR><TD>\n"
     << "        <TABLE BORDER=\"1\" CELLBORDER=\"0\" CELLSPACING=\"3\" "
        "CELLPADDING=\"3\" COLOR=\"#999999\">\n"
     << "        <TR>\n";
  cell(fill(kF32), "fp32 op");
  cell(fill(kF16), "f16 op");
  cell(fill(kBF16), "bf16 op");
  cell(fill(kOtherFloat), "other float op");
  os << "        </TR>\n        <TR>\n";
  cell(fill(kNotFloat), "not a float op");
  cell(("BORDER=\"2\" COLOR=\"" + StringRef(kConversionOutline) +
        "\" BGCOLOR=\"" + kF32.fill + ":" + kF16.fill +
        "\" GRADIENTANGLE=\"270\"")
           .str(),
       "conversion (hexagon):<BR/>source -&gt; target, bytes per call");
  cell("", "ellipse: function argument");
  cell("", "edge: producer -&gt; user,<BR/>coloured by element type");
  os << "        </TR>\n"
     << "        </TABLE>\n"
     << "      </TD></TR>\n"
     << "    </TABLE>>;\n";
}

LogicalResult
mlir::amp::emitAmpPrecisionGraph(ModuleOp module,
                                 const AmpPrecisionGraphPassOptions &options) {
  SmallVector<FunctionOpInterface> funcs;
  module.walk([&](FunctionOpInterface func) {
    if (func.isExternal())
      return;
    if (options.function.empty() || func.getName() == options.function)
      funcs.push_back(func);
  });
  if (!options.function.empty() && funcs.empty()) {
    module.emitError("amp-precision-graph: no function named '")
        << options.function << "' with a body";
    return failure();
  }

  std::string body;
  llvm::raw_string_ostream bodyOs(body);
  GraphWriter writer(bodyOs, options.maxNodes);
  for (FunctionOpInterface func : funcs)
    writer.drawFunction(func);
  writer.writeEdges();

  if (Operation *firstLeftOut = writer.getFirstLeftOut())
    firstLeftOut->emitWarning("amp-precision-graph: the graph stops here: ")
        << writer.getNumLeftOut() << " of "
        << writer.getNumDrawn() + writer.getNumLeftOut()
        << " nodes left out (max-nodes=" << options.maxNodes << ")";

  // The title: the report's summary line.
  SmallVector<std::string, 2> titleLines(1);
  llvm::raw_string_ostream titleOs(titleLines.front());
  titleOs << writer.summary.format(options.title);
  if (writer.getNumLeftOut())
    titleLines.push_back(("(first " + Twine(writer.getNumDrawn()) + " of " +
                          Twine(writer.getNumDrawn() + writer.getNumLeftOut()) +
                          " nodes; raise max-nodes to see all)")
                             .str());

  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> file;
  raw_ostream *os = &llvm::errs();
  if (!options.output.empty()) {
    file = openOutputFile(options.output, &errorMessage);
    if (!file) {
      module.emitError("amp-precision-graph: ") << errorMessage;
      return failure();
    }
    os = &file->os();
  }
  *os << "digraph amp_precision_graph {\n";
  writeLabel(*os, titleLines);
  *os << "  labelloc=t; fontname=\"Helvetica\"; fontsize=10;\n"
      << "  rankdir=TB; nodesep=0.25; ranksep=0.35;\n"
      << "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", "
         "fontsize=10];\n"
      << "  edge [arrowsize=0.6, penwidth=1.2];\n";
  *os << body << "}\n";
  if (file)
    file->keep();
  return success();
}

namespace {
struct AmpPrecisionGraphPass
    : public amp::impl::AmpPrecisionGraphPassBase<AmpPrecisionGraphPass> {
  using Base::Base;

  void runOnOperation() override {
    AmpPrecisionGraphPassOptions options;
    options.output = output;
    options.title = title;
    options.function = function;
    options.maxNodes = maxNodes;
    if (failed(emitAmpPrecisionGraph(getOperation(), options)))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
