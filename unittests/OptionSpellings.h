//===- OptionSpellings.h - checks of a spelling table -----------*- C++ -*-===//
//
// Part of amp-mlir. What the unit tests of the option tables share.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_UNITTESTS_OPTIONSPELLINGS_H
#define AMP_UNITTESTS_OPTIONSPELLINGS_H

#include "amp/Dialect/Amp/Transforms/Options.h"

#include "gtest/gtest.h"

namespace mlir::amp::unittest {
/// Every value of `E` round-trips through its printed spelling, and every
/// alias parses to its value.
template <typename E> void expectRoundTrip() {
  for (const Spelling<E> &spelling : OptionSpellings<E>::values) {
    std::optional<E> parsed =
        parseOptionValue<E>(stringifyOptionValue(spelling.value));
    ASSERT_TRUE(parsed.has_value()) << spelling.name.str();
    EXPECT_EQ(*parsed, spelling.value) << spelling.name.str();
    std::optional<E> alias = parseOptionValue<E>(spelling.name);
    ASSERT_TRUE(alias.has_value()) << spelling.name.str();
    EXPECT_EQ(*alias, spelling.value) << spelling.name.str();
  }
}
} // namespace mlir::amp::unittest

#endif // AMP_UNITTESTS_OPTIONSPELLINGS_H
