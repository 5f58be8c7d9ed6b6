//===- CastPlacement.cpp - optimal precision assignment -------------------===//
//
// Part of amp-mlir.
//
// The min-cut construction. Source side = high (f32), sink side = low.
// A fixed op is tied to its terminal by an infinite edge. A value with
// endpoints M costs w * [labels of M not all equal], which is
//     w * [not all of M on the source side]
//   + w * [not all of M on the sink side] - w,
// and each of the two terms is exactly one auxiliary node (Kolmogorov and
// Zabih's construction for such higher-order terms). A third type (a bf16
// pin in an f16 module) is never a label: when it is the value's own type,
// or a use's while the producer can write either, the value costs
// w * [some use high] + w * [some use low] over the other uses (the same
// two terms without the -w); otherwise a use of the third type only adds a
// constant. The two terms:
//   a: s -> a (w), a -> m (inf) for m in M   -- cut unless all m in S;
//   b: m -> b (inf), b -> t (w) for m in M   -- cut unless all m in T.
// The constant -w does not move the minimum. Ties are broken towards low
// precision by a unit edge op -> t for every free op (paid when the op
// stays high), with the real weights scaled so that all unit edges together
// weigh less than one byte.
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/CastPlacement.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <queue>

using namespace mlir;
using namespace mlir::amp;

unsigned CastPlacementProblem::addOp(std::optional<bool> fixedLow) {
  ops.push_back(fixedLow);
  return ops.size() - 1;
}

unsigned CastPlacementProblem::addValue(int64_t weight, Endpoint producer) {
  values.push_back({weight, true, {producer}});
  return values.size() - 1;
}

unsigned CastPlacementProblem::addValue(int64_t weight) {
  values.push_back({weight, false, {}});
  return values.size() - 1;
}

void CastPlacementProblem::addUse(unsigned value, Endpoint use) {
  values[value].endpoints.push_back(use);
}

/// The type of an endpoint: 0 = high, 1 = low, 2 + n = the n-th other.
static unsigned getTypeOf(const CastPlacementProblem::Endpoint &e,
                          llvm::ArrayRef<bool> lowLabels) {
  using Kind = CastPlacementProblem::Endpoint::Kind;
  switch (e.kind) {
  case Kind::FollowsOp:
    return lowLabels[e.op] ? 1 : 0;
  case Kind::FixedHigh:
    return 0;
  case Kind::FixedLow:
    return 1;
  case Kind::FixedOther:
    return 2 + e.op;
  }
  return 0;
}

void CastPlacementProblem::addHighCost(unsigned op, int64_t cost) {
  // A value the op must read in the low type: it costs `cost` exactly when
  // the op is high, which the cut then counts like any other value.
  addUse(addValue(cost, Endpoint::low()), Endpoint::follows(op));
}

int64_t CastPlacementProblem::getCost(llvm::ArrayRef<bool> lowLabels) const {
  assert(lowLabels.size() == ops.size() && "one label per op");
  int64_t cost = 0;
  for (const Value &value : values) {
    if (value.endpoints.empty())
      continue;
    llvm::SmallVector<unsigned, 4> useTypes;
    auto uses =
        llvm::ArrayRef(value.endpoints).drop_front(value.hasProducer ? 1 : 0);
    for (const Endpoint &e : uses) {
      unsigned type = getTypeOf(e, lowLabels);
      if (!llvm::is_contained(useTypes, type))
        useTypes.push_back(type);
    }
    int64_t conversions;
    if (value.hasProducer) {
      unsigned own = getTypeOf(value.endpoints.front(), lowLabels);
      conversions = useTypes.size() - llvm::count(useTypes, own);
    } else {
      conversions = useTypes.empty() ? 0 : int64_t(useTypes.size()) - 1;
    }
    cost += conversions * value.weight;
  }
  return cost;
}

namespace {
/// Dinic's maximum flow with 64-bit capacities.
class MaxFlow {
public:
  static constexpr int64_t kInf = std::numeric_limits<int64_t>::max() / 4;

  explicit MaxFlow(unsigned numNodes) : graph(numNodes) {}

  void addEdge(unsigned from, unsigned to, int64_t capacity) {
    if (from == to || capacity == 0)
      return;
    graph[from].push_back({to, capacity, unsigned(graph[to].size())});
    graph[to].push_back({from, 0, unsigned(graph[from].size() - 1)});
  }

  void run(unsigned source, unsigned sink) {
    while (buildLevels(source, sink)) {
      next.assign(graph.size(), 0);
      while (push(source, sink, kInf) > 0) {
      }
    }
  }

  /// Nodes reachable from `source` in the residual graph (the source side
  /// of the minimum cut with the fewest nodes).
  std::vector<bool> reachableFrom(unsigned source) const {
    std::vector<bool> seen(graph.size(), false);
    std::vector<unsigned> stack{source};
    seen[source] = true;
    while (!stack.empty()) {
      unsigned node = stack.back();
      stack.pop_back();
      for (const Edge &e : graph[node])
        if (e.capacity > 0 && !seen[e.to]) {
          seen[e.to] = true;
          stack.push_back(e.to);
        }
    }
    return seen;
  }

private:
  struct Edge {
    unsigned to;
    int64_t capacity;
    unsigned reverse;
  };

  bool buildLevels(unsigned source, unsigned sink) {
    level.assign(graph.size(), -1);
    std::queue<unsigned> queue;
    level[source] = 0;
    queue.push(source);
    while (!queue.empty()) {
      unsigned node = queue.front();
      queue.pop();
      for (const Edge &e : graph[node])
        if (e.capacity > 0 && level[e.to] < 0) {
          level[e.to] = level[node] + 1;
          queue.push(e.to);
        }
    }
    return level[sink] >= 0;
  }

  /// Finds one augmenting path in the level graph with an explicit stack
  /// (paths can run through every op of a long chain) and pushes its
  /// bottleneck. Returns the amount pushed, 0 when there is none.
  int64_t push(unsigned source, unsigned sink, int64_t limit) {
    // path[i] = (node, index of the edge taken from it)
    std::vector<std::pair<unsigned, unsigned>> path;
    unsigned node = source;
    while (true) {
      if (node == sink) {
        int64_t pushed = limit;
        for (auto [from, edge] : path)
          pushed = std::min(pushed, graph[from][edge].capacity);
        for (auto [from, edge] : path) {
          Edge &e = graph[from][edge];
          e.capacity -= pushed;
          graph[e.to][e.reverse].capacity += pushed;
        }
        return pushed;
      }
      bool advanced = false;
      for (unsigned &i = next[node]; i < graph[node].size(); ++i) {
        const Edge &e = graph[node][i];
        if (e.capacity > 0 && level[e.to] == level[node] + 1) {
          path.push_back({node, i});
          node = e.to;
          advanced = true;
          break;
        }
      }
      if (advanced)
        continue;
      // Dead end: retreat and skip the edge that led here.
      if (path.empty())
        return 0;
      level[node] = -1;
      node = path.back().first;
      path.pop_back();
      ++next[node];
    }
  }

  std::vector<std::vector<Edge>> graph;
  std::vector<int> level;
  std::vector<unsigned> next;
};
} // namespace

llvm::SmallVector<bool> CastPlacementProblem::solve() const {
  unsigned numFree = llvm::count_if(
      ops, [](const std::optional<bool> &label) { return !label; });
  const int64_t scale = int64_t(numFree) + 1;
  // Nodes: 0 = source (high), 1 = sink (low), ops, then two per value.
  const unsigned source = 0, sink = 1, firstOp = 2;
  unsigned firstAux = firstOp + ops.size();
  MaxFlow flow(firstAux + 2 * values.size());

  for (unsigned op = 0; op < ops.size(); ++op) {
    if (!ops[op])
      flow.addEdge(firstOp + op, sink, 1); // tie-break: prefer low
    else if (*ops[op])
      flow.addEdge(firstOp + op, sink, MaxFlow::kInf);
    else
      flow.addEdge(source, firstOp + op, MaxFlow::kInf);
  }
  auto node = [&](const Endpoint &e) -> unsigned {
    switch (e.kind) {
    case Endpoint::Kind::FollowsOp:
      return firstOp + e.op;
    case Endpoint::Kind::FixedHigh:
      return source;
    case Endpoint::Kind::FixedLow:
      return sink;
    case Endpoint::Kind::FixedOther:
      break;
    }
    assert(false && "other types are not nodes");
    return source;
  };
  for (unsigned v = 0; v < values.size(); ++v) {
    const Value &value = values[v];
    if (value.weight == 0)
      continue;
    int64_t w = value.weight * scale;
    unsigned a = firstAux + 2 * v, b = a + 1;
    using Kind = Endpoint::Kind;
    bool producerIsOther =
        value.hasProducer && value.endpoints.front().kind == Kind::FixedOther;
    auto uses =
        llvm::ArrayRef(value.endpoints).drop_front(value.hasProducer ? 1 : 0);
    bool useIsOther = llvm::any_of(
        uses, [](const Endpoint &e) { return e.kind == Kind::FixedOther; });
    // Members on the two labels; other types only add constants.
    llvm::SmallVector<unsigned, 4> members;
    bool separate = producerIsOther || (!value.hasProducer && useIsOther);
    for (const Endpoint &e : separate ? uses : value.endpoints)
      if (e.kind != Kind::FixedOther)
        members.push_back(node(e));
    if (members.empty())
      continue;
    if (!separate && members.size() < 2)
      continue;
    // a: pays w unless every member is high; b: unless every member is low.
    // Together: w * [mixed] + w (the shared cast, a constant), or, when the
    // value's own type is neither label, w * [some high] + w * [some low].
    flow.addEdge(source, a, w);
    flow.addEdge(b, sink, w);
    for (unsigned n : members) {
      flow.addEdge(a, n, MaxFlow::kInf);
      flow.addEdge(n, b, MaxFlow::kInf);
    }
  }
  flow.run(source, sink);
  std::vector<bool> highSide = flow.reachableFrom(source);
  llvm::SmallVector<bool> labels(ops.size());
  for (unsigned op = 0; op < ops.size(); ++op)
    labels[op] = ops[op] ? *ops[op] : !highSide[firstOp + op];
  return labels;
}

llvm::SmallVector<bool> CastPlacementProblem::solveExhaustively() const {
  llvm::SmallVector<unsigned> freeOps;
  llvm::SmallVector<bool> labels(ops.size());
  for (unsigned op = 0; op < ops.size(); ++op) {
    if (ops[op])
      labels[op] = *ops[op];
    else
      freeOps.push_back(op);
  }
  assert(freeOps.size() <= 24 && "too many free ops to enumerate");
  llvm::SmallVector<bool> best(labels);
  int64_t bestCost = std::numeric_limits<int64_t>::max();
  unsigned bestLow = 0;
  for (uint64_t mask = 0; mask < (uint64_t(1) << freeOps.size()); ++mask) {
    unsigned numLow = 0;
    for (unsigned i = 0; i < freeOps.size(); ++i) {
      labels[freeOps[i]] = (mask >> i) & 1;
      numLow += labels[freeOps[i]];
    }
    int64_t cost = getCost(labels);
    if (cost < bestCost || (cost == bestCost && numLow > bestLow)) {
      bestCost = cost;
      bestLow = numLow;
      best = labels;
    }
  }
  return best;
}
