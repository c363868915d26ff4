// Quantities with units (SPEC section 2).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/units.hpp>
#include <sonicsim/util/format.hpp>

using nlohmann::json;
using sonicsim::scenario::parse_quantity;
using sonicsim::scenario::Quantity;
using sonicsim::util::format_bandwidth;
using sonicsim::util::format_bytes;
using sonicsim::util::format_time;

namespace {

double parsed(const json& v, Quantity kind) {
  std::string error;
  const auto r = parse_quantity(v, kind, error);
  INFO(v.dump() << " -> " << error);
  REQUIRE(r.has_value());
  CHECK(error.empty());
  return *r;
}

std::string failure(const json& v, Quantity kind) {
  std::string error;
  const auto r = parse_quantity(v, kind, error);
  INFO(v.dump());
  CHECK_FALSE(r.has_value());
  return error;
}

}  // namespace

TEST_CASE("times with units", "[units]") {
  CHECK(parsed("250us", Quantity::Time) == Approx(250e-6));
  CHECK(parsed("2.5ms", Quantity::Time) == Approx(2.5e-3));
  CHECK(parsed("1.2s", Quantity::Time) == Approx(1.2));
  CHECK(parsed("5min", Quantity::Time) == Approx(300));
  CHECK(parsed("1h", Quantity::Time) == Approx(3600));
  CHECK(parsed("40ns", Quantity::Time) == Approx(40e-9));
  CHECK(parsed("10 ms", Quantity::Time) == Approx(0.01));
  CHECK(parsed("1e-3s", Quantity::Time) == Approx(1e-3));
  CHECK(parsed(".5s", Quantity::Time) == Approx(0.5));
  CHECK(parsed("3", Quantity::Time) == Approx(3));
  CHECK(parsed(0.25, Quantity::Time) == Approx(0.25));
  CHECK(parsed(7, Quantity::Time) == Approx(7));
  CHECK(parsed(0, Quantity::Time) == 0.0);
  CHECK(parsed("-0s", Quantity::Time) == 0.0);
}

TEST_CASE("sizes with decimal and binary prefixes", "[units]") {
  CHECK(parsed("512B", Quantity::Size) == 512);
  CHECK(parsed("10kB", Quantity::Size) == Approx(10e3));
  CHECK(parsed("4.7MB", Quantity::Size) == Approx(4.7e6));
  CHECK(parsed("2GB", Quantity::Size) == Approx(2e9));
  CHECK(parsed("1TB", Quantity::Size) == Approx(1e12));
  CHECK(parsed("1KiB", Quantity::Size) == 1024);
  CHECK(parsed("3MiB", Quantity::Size) == 3 * 1024 * 1024);
  CHECK(parsed("1GiB", Quantity::Size) == Approx(1073741824.0));
  CHECK(parsed(9800, Quantity::Size) == 9800);
}

TEST_CASE("bandwidth in bits and bytes per second", "[units]") {
  CHECK(parsed("10Gbps", Quantity::Bandwidth) == Approx(1.25e9));
  CHECK(parsed("1.25GBps", Quantity::Bandwidth) == Approx(1.25e9));
  CHECK(parsed("800bps", Quantity::Bandwidth) == Approx(100));
  CHECK(parsed("8kbps", Quantity::Bandwidth) == Approx(1e3));
  CHECK(parsed("100Mbps", Quantity::Bandwidth) == Approx(12.5e6));
  CHECK(parsed("1Tbps", Quantity::Bandwidth) == Approx(125e9));
  CHECK(parsed("1Bps", Quantity::Bandwidth) == 1);
  CHECK(parsed("2kBps", Quantity::Bandwidth) == Approx(2e3));
  CHECK(parsed("3MBps", Quantity::Bandwidth) == Approx(3e6));
  CHECK(parsed("25Gb/s", Quantity::Bandwidth) == Approx(25e9 / 8));
  CHECK(parsed("1GB/s", Quantity::Bandwidth) == Approx(1e9));
  CHECK(parsed(1e9, Quantity::Bandwidth) == 1e9);
}

TEST_CASE("bad quantities name the accepted units", "[units]") {
  const std::string parsecs = failure("10 parsecs", Quantity::Time);
  CHECK_THAT(parsecs, Catch::Contains("found \"10 parsecs\""));
  CHECK_THAT(parsecs, Catch::Contains("unknown unit \"parsecs\""));
  CHECK_THAT(parsecs, Catch::Contains("ns, us, \u00b5s, ms, s, min, h"));

  // Units of another kind of quantity are not silently accepted.
  CHECK_THAT(failure("10ms", Quantity::Size), Catch::Contains("kB"));
  CHECK_THAT(failure("10MB", Quantity::Bandwidth), Catch::Contains("Gbps"));
  // Case carries meaning: "mb" is neither megabytes nor megabits.
  CHECK_THAT(failure("5mb", Quantity::Size), Catch::Contains("unknown unit"));
  CHECK_THAT(failure("", Quantity::Time), Catch::Contains("expected a time"));
  CHECK_THAT(failure("ms", Quantity::Time), Catch::Contains("found \"ms\""));
  CHECK_THAT(failure("1.2.3s", Quantity::Time), Catch::Contains("unknown unit"));
  CHECK_THAT(failure("inf", Quantity::Time), Catch::Contains("expected a time"));
  CHECK_THAT(failure("nan s", Quantity::Time), Catch::Contains("expected a time"));
  CHECK_THAT(failure("0x10s", Quantity::Time), Catch::Contains("unknown unit"));
  CHECK_THAT(failure("-5ms", Quantity::Time), Catch::Contains("non-negative"));
  CHECK_THAT(failure(-1, Quantity::Size), Catch::Contains("non-negative"));
  CHECK_THAT(failure("1e400s", Quantity::Time), Catch::Contains("finite"));
  CHECK_THAT(failure(std::numeric_limits<double>::infinity(), Quantity::Time),
             Catch::Contains("found inf"));
  CHECK_THAT(failure(std::nan(""), Quantity::Time), Catch::Contains("NaN"));
  CHECK_THAT(failure(true, Quantity::Time), Catch::Contains("found true"));
  CHECK_THAT(failure(nullptr, Quantity::Bandwidth), Catch::Contains("found null"));
  CHECK_THAT(failure(json::array({1}), Quantity::Size), Catch::Contains("found an array"));
}

TEST_CASE("human formatting keeps three significant digits", "[units]") {
  CHECK(format_time(0.0012) == "1.20 ms");
  CHECK(format_time(250e-6) == "250 us");
  CHECK(format_time(1.5) == "1.50 s");
  CHECK(format_time(300) == "5.00 min");
  CHECK(format_time(7200) == "2.00 h");
  CHECK(format_time(3e-9) == "3.00 ns");
  CHECK(format_time(0) == "0 s");
  CHECK(format_time(0.9999) == "1.00 s");
  CHECK(format_bytes(9800) == "9.80 kB");
  CHECK(format_bytes(16) == "16.0 B");
  CHECK(format_bytes(4.7e6) == "4.70 MB");
  CHECK(format_bandwidth(1.25e9) == "10.0 Gbps");
  CHECK(format_bandwidth(12.5e6) == "100 Mbps");
  CHECK(format_time(std::numeric_limits<double>::infinity()) == "inf");
}

TEST_CASE("every quantity lies in a range the engine represents", "[units][limits]") {
  // A round trip of two 1e308 s latencies is infinite: refused at the key, whatever the key.
  CHECK(failure(1e308, Quantity::Time).find("at most 1e9 s") != std::string::npos);
  CHECK(failure("1e300h", Quantity::Time).find("found \"1e300h\"") != std::string::npos);
  CHECK(parsed(1e9, Quantity::Time) == 1e9);
  CHECK(parsed(0, Quantity::Time) == 0.0);
  CHECK(parsed(1e-300, Quantity::Time) == 1e-300);  // tiny is the tick rule's business
  CHECK(failure(2e15, Quantity::Size).find("at most 1e15 bytes") != std::string::npos);
  CHECK(parsed("1TB", Quantity::Size) == 1e12);
  CHECK(failure("0.5bps", Quantity::Bandwidth).find("from 1 bps to 8 Pbps") != std::string::npos);
  CHECK(failure("9000Tbps", Quantity::Bandwidth).find("from 1 bps") != std::string::npos);
  CHECK(parsed("1bps", Quantity::Bandwidth) == 0.125);
  CHECK(parsed(0, Quantity::Bandwidth) == 0.0);  // 0 is each key's own rule (positive())
  CHECK(failure(1e-12, Quantity::Rate).find("from 1e-9 to 1e9") != std::string::npos);
  CHECK(failure("2000MHz", Quantity::Rate).find("from 1e-9 to 1e9") != std::string::npos);
  CHECK(parsed("1MHz", Quantity::Rate) == 1e6);
}

TEST_CASE("text cells are read strictly: decimal numbers, whole numbers in range",
          "[units][cells]") {
  using sonicsim::util::parse_number;
  using sonicsim::util::parse_whole_number;
  CHECK(parse_number("1.5") == 1.5);
  CHECK(parse_number("-2e3") == -2000.0);
  CHECK(parse_number("+.5") == 0.5);
  CHECK(parse_number("5.") == 5.0);
  for (const char* bad : {"", "0x9", "0X1p3", "inf", "nan", "infinity", " 5", "5 ", "5ms", "1e",
                          "1e400", "--1", "+-1", ".", "-", "1,5", "1.2.3"})
    CHECK_FALSE(parse_number(bad).has_value());
  CHECK(parse_whole_number("16", 1, 100) == 16);
  CHECK(parse_whole_number("+16", 1, 100) == 16);
  CHECK(parse_whole_number("-3", -5, 5) == -3);
  for (const char* bad :
       {"1.5", "1e18", "0x9", "", "+", "+-1", "101", "0", "16 ", "99999999999999999999"})
    CHECK_FALSE(parse_whole_number(bad, 1, 100).has_value());
}
