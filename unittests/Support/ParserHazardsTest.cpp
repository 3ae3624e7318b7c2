//===- ParserHazardsTest.cpp - the scan for parser-crashing text ----------===//

#include "ext/Support/ParserHazards.h"

#include <gtest/gtest.h>

using ext::findParserHazard;

namespace {

TEST(ParserHazards, IndexDenseArrayAtTheArrayKeyword) {
  std::string text = "\"t.op\"() {a = array<index: 1, 2>} : () -> ()";
  auto hazard = findParserHazard(text);
  ASSERT_TRUE(hazard);
  EXPECT_EQ(hazard->offset, text.find("array"));
  EXPECT_NE(hazard->message.find("llvm/llvm-project#179045"),
            std::string::npos);
  // No elements, and any spacing: the parser crashes on the type alone.
  EXPECT_TRUE(findParserHazard("x = array< index >"));
  EXPECT_TRUE(findParserHazard("x = array<\n  index\n: 3>"));
}

TEST(ParserHazards, IndexThroughTypeAliases) {
  EXPECT_TRUE(findParserHazard("!t = index\nx = array<!t: 1>"));
  // An alias of an alias, defined after its use.
  EXPECT_TRUE(findParserHazard("x = array<!u: 1>\n!u = !t\n!t = index"));
  EXPECT_FALSE(findParserHazard("!t = i64\nx = array<!t: 1>"));
  // A cycle of aliases ends the chain instead of looping.
  EXPECT_FALSE(findParserHazard("!a = !b\n!b = !a\nx = array<!a: 1>"));
}

TEST(ParserHazards, ValidArraysAndLookalikesPass) {
  EXPECT_FALSE(findParserHazard("x = array<i64: 1, 2>"));
  EXPECT_FALSE(findParserHazard("x = array<i32>"));
  EXPECT_FALSE(findParserHazard("x = !llvm.array<4 x index>"));
  EXPECT_FALSE(findParserHazard("x = tensor<4xindex>, y = %array"));
  EXPECT_FALSE(findParserHazard("\"my.array\"() {s = \"array<index\"}"));
  EXPECT_FALSE(findParserHazard("// array<index: 1>\nx = 1"));
  EXPECT_FALSE(findParserHazard("array"));
  EXPECT_FALSE(findParserHazard(""));
}

} // namespace
