// JsonDocument: JSON read whole with positions; the strict scan refuses duplicate keys and numbers beyond a
// double, which nlohmann would keep silently (last key wins) or refuse without a position.
#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/io/json_document.hpp"
#include "sim/io/json_strict_scan.hpp"

using namespace plansim;

namespace {

std::string error_of(const std::string& text) {
  try {
    (void)JsonDocument::parse(text, "d.json");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the strict scan finds a repeated key where it is, at any depth, decoded", "[json]") {
  CHECK_FALSE(json_strict_defect(R"({"a": 1, "b": {"a": 2}, "c": [{"a": 1}, {"a": 2}]})"));
  const auto top = json_strict_defect(R"({"a": 1, "b": 2, "a": 3})");
  REQUIRE(top);
  CHECK(top->offset == 17);
  CHECK(top->message == "duplicate key 'a'");
  const auto nested = json_strict_defect(R"({"x": [{"k": 1}, {"k": 1, "k": 2}]})");
  REQUIRE(nested);
  CHECK(nested->offset == 26);
  // "\u0061" is "a": the same key written two ways.
  const auto escaped = json_strict_defect(R"({"a": 1, "\u0061": 2})");
  REQUIRE(escaped);
  CHECK(escaped->message == "duplicate key 'a'");
  // Strings that are values are not keys, nor are strings in lists.
  CHECK_FALSE(json_strict_defect(R"({"a": "a", "b": ["a", "a"]})"));
}

TEST_CASE("the strict scan refuses numbers beyond a double and accepts the largest ones", "[json]") {
  CHECK_FALSE(json_strict_defect(R"({"a": 1.7e308, "b": -1.7e308, "c": 1e-400, "d": 12345678901234567890})"));
  const auto inf = json_strict_defect(R"({"a": 1, "b": -2e400})");
  REQUIRE(inf);
  CHECK(inf->offset == 14);
  CHECK(inf->message.find("-2e400") != std::string::npos);
  CHECK(json_strict_defect("[" + std::string(400, '9') + "]"));
}

TEST_CASE("a JSON document reports every defect as file:line:col", "[json]") {
  CHECK(error_of("{\"a\": 1,\n \"a\": 2}") == "d.json:2:2: duplicate key 'a'");
  CHECK(error_of("{\"a\":\n  1e999}") == "d.json:2:3: the number 1e999 is out of range (beyond a double's)");
  CHECK(error_of("{\"a\": 1,}").rfind("d.json:1:", 0) == 0);
  CHECK(error_of(" \n ").rfind("d.json:1:1: the document is empty", 0) == 0);
  const JsonDocument d = JsonDocument::parse("{\"ops\": [\n  {\"a\": 1},\n    [2, 3], \"x\"]}", "d.json");
  const std::vector<SourcePos> at = d.element_positions("/ops");
  REQUIRE(at.size() == 3);
  CHECK((at[0].line == 2 && at[0].column == 3));
  CHECK((at[1].line == 3 && at[1].column == 5));
  CHECK((at[2].line == 3 && at[2].column == 13));
  CHECK(d.element_positions("/missing").empty());
  CHECK_THROWS_WITH(d.number("/ops/0/b"), Catch::StartsWith("d.json:2:3: document: '/ops/0/b' is missing"));
}
