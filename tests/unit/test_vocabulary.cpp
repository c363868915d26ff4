// The shared vocabulary: link classes, CSV cells, trimmed text and percentages are written one way
// across sonicsim, so a sweep table, a compare table and a measurement file agree.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <sonicsim/scenario/scenario.hpp>
#include <sonicsim/util/csv.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/text.hpp>

namespace sc = sonicsim::scenario;
using namespace sonicsim;

TEST_CASE("link classes: names in path order, read back, and the scenario's link of each",
          "[vocabulary]") {
  std::vector<std::string> names;
  for (sc::LinkClass c : sc::kLinkClasses) {
    names.emplace_back(sc::link_class_name(c));
    CHECK(sc::link_class_named(sc::link_class_name(c)) == c);
    CHECK(sc::kLinkClasses[sc::index_of(c)] == c);
  }
  CHECK(names == std::vector<std::string>{"client_nic", "site_uplink", "wan", "server_nic"});
  CHECK_FALSE(sc::link_class_named("uplink").has_value());
  CHECK_FALSE(sc::link_class_named("").has_value());
  CHECK(sc::link_class_list() == "client_nic, site_uplink, wan, server_nic");
  CHECK(sc::link_class_list("`") == "`client_nic`, `site_uplink`, `wan`, `server_nic`");

  sc::Network net;
  net.site_uplink = sc::LinkSpec{1.25e9, 1e-3};
  net.link(sc::LinkClass::ServerNic) = sc::LinkSpec{2.5e9, 2e-3};
  CHECK_FALSE(net.link(sc::LinkClass::ClientNic).has_value());
  CHECK(net.link(sc::LinkClass::SiteUplink)->bandwidth == 1.25e9);
  CHECK(net.server_nic->latency == 2e-3);
  CHECK(net.path_latency() == Approx(3e-3));
  CHECK(net.path_bandwidth() == 1.25e9);
}

TEST_CASE("link degradations are found by link class", "[vocabulary]") {
  sc::Faults f;
  f.links.push_back({sc::LinkClass::Wan, 10.0, 5.0, 0.5});
  f.links.push_back({sc::LinkClass::Wan, 12.0, 1.0, 0.0});
  const auto wan = f.link_factors(sc::LinkClass::Wan);
  const std::vector<std::pair<double, double>> expected = {
      {0.0, 1.0}, {10.0, 0.5}, {12.0, 0.0}, {13.0, 0.5}, {15.0, 1.0}};
  CHECK(wan == expected);
  CHECK(f.link_factors(sc::LinkClass::SiteUplink) ==
        std::vector<std::pair<double, double>>{{0.0, 1.0}});
}

TEST_CASE("CSV cells: quoted when they must be, split back to what was written", "[vocabulary]") {
  const std::vector<std::string> cells = {"plain", "a,b", "say \"hi\"", "", "two\nlines", " x "};
  std::string line;
  for (const auto& c : cells) line += (line.empty() ? "" : ",") + util::csv_field(c);
  CHECK(line == "plain,\"a,b\",\"say \"\"hi\"\"\",,\"two\nlines\", x ");
  std::vector<std::string> back;
  CHECK(util::split_csv_line(line, back));
  CHECK(back == cells);
  CHECK_FALSE(util::split_csv_line("x,\"open", back));
  CHECK(back == std::vector<std::string>{"x", "open"});
  CHECK(util::split_csv_line("", back));
  CHECK(back == std::vector<std::string>{""});
}

TEST_CASE("trim removes only the blanks it is given", "[vocabulary]") {
  CHECK(util::trim("  a b \t") == "a b");
  CHECK(util::trim(" \t ").empty());
  CHECK(util::trim("x\r\n") == "x\r\n");
  CHECK(util::trim("x\r\n", " \t\r\n") == "x");
}

TEST_CASE("percentages: one formatter, every style sonicsim prints", "[vocabulary]") {
  CHECK(util::percent(0.052) == "5.2%");
  CHECK(util::percent(0.052, "%+.1f") == "+5.2%");
  CHECK(util::percent(-0.25, "%+.2f") == "-25.00%");
  CHECK(util::percent(0.12345, "%.3g") == "12.3%");
  CHECK(util::percent(0.5, "%.0f") == "50%");
  CHECK(util::percent_points(3.14159, "%.2f") == "3.14%");
  CHECK(util::percent(std::numeric_limits<double>::infinity()) == "-");
  CHECK(util::percent(std::nan("")) == "-");
  CHECK(util::formatted("%.3g /s", 12345.0) == "1.23e+04 /s");
}
