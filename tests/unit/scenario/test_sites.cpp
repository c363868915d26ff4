// Sites (src/scenario/sites.cpp): the routes derived once from the WAN, each with its hops and the
// direction each link is crossed, and client nodes apportioned to sites. The sites section's
// loader is test_load_sites.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include <sonicsim/scenario/sites.hpp>

using namespace sonicsim::scenario;

namespace {

WanLink ss_wan_link(std::string name, std::size_t a, std::size_t b, double latency,
                    double bandwidth = 1e9) {
  return WanLink{std::move(name), a, b, LinkSpec{bandwidth, latency}};
}

}  // namespace

TEST_CASE("routes take the least latency, ties broken the same way every time", "[sites]") {
  // 0 - 1 - 2 in a line through links of 1 ms, and a direct 0 - 2 link of 2 ms: equal latency,
  // so the route with fewer links (the direct one) wins.
  Wan wan;
  wan.links = {ss_wan_link("a", 0, 1, 1e-3, 10e9), ss_wan_link("b", 1, 2, 1e-3, 5e9),
               ss_wan_link("direct", 0, 2, 2e-3, 1e9)};
  auto routes = derive_routes(3, wan);
  CHECK(routes[0][2].exists);
  CHECK(routes[0][2].links() == std::vector<std::size_t>{2});
  CHECK(routes[0][2].latency == Approx(2e-3));
  CHECK(routes[0][2].bandwidth == 1e9);
  CHECK(routes[0][1].links() == std::vector<std::size_t>{0});
  CHECK(routes[0][0].exists);
  CHECK(routes[0][0].hops.empty());
  CHECK(routes[0][0].latency == 0.0);

  // A faster direct link changes nothing but the choice; a slower one loses.
  wan.links[2].spec.latency = 3e-3;
  routes = derive_routes(3, wan);
  CHECK(routes[0][2].links() == std::vector<std::size_t>{0, 1});
  CHECK(routes[0][2].bandwidth == 5e9);
  // The way back is the same links reversed.
  CHECK(routes[2][0].links() == std::vector<std::size_t>{1, 0});
  CHECK(routes[2][0].latency == routes[0][2].latency);

  // Through a router (point 2): sites 0 and 1 meet there.
  Wan star;
  star.routers = {"backbone"};
  star.links = {ss_wan_link("a", 0, 2, 4e-3), ss_wan_link("b", 1, 2, 6e-3)};
  routes = derive_routes(2, star);
  CHECK(routes[0][1].links() == std::vector<std::size_t>{0, 1});
  CHECK(routes[0][1].latency == Approx(10e-3));
  // Each link is crossed the way the walk goes: "a" from its end 0 (forward), "b" from its end
  // 2 into 1 (backward); the way back crosses both the other way. Every model of the network
  // (engine, flows, SimGrid's platform, the contention check) reads these directions.
  CHECK(routes[0][1].hops[0].forward);
  CHECK_FALSE(routes[0][1].hops[1].forward);
  CHECK(routes[1][0].hops[0].link == 1);
  CHECK(routes[1][0].hops[0].forward);
  CHECK_FALSE(routes[1][0].hops[1].forward);

  // Two equal paths of equal length: the one reached by the lower link number, both ways.
  Wan square;
  square.links = {ss_wan_link("p", 0, 2, 1e-3), ss_wan_link("q", 0, 3, 1e-3),
                  ss_wan_link("r", 2, 1, 1e-3), ss_wan_link("s", 3, 1, 1e-3)};
  square.routers = {"x", "y"};
  routes = derive_routes(2, square);
  CHECK(routes[0][1].links() == std::vector<std::size_t>{0, 2});
  CHECK(routes[1][0].links() == std::vector<std::size_t>{2, 0});

  // Nothing joins them.
  routes = derive_routes(2, Wan{});
  CHECK_FALSE(routes[0][1].exists);
  CHECK(routes[1][1].exists);
}

TEST_CASE("client nodes are apportioned to sites by largest remainder", "[sites]") {
  CHECK(apportion_nodes(10, {{0, 0.75}, {1, 0.25}}) == std::vector<std::int64_t>{8, 2});
  CHECK(apportion_nodes(3, {{0, 0.5}, {2, 0.5}}) == std::vector<std::int64_t>{2, 1});
  CHECK(apportion_nodes(1, {{0, 0.2}, {1, 0.8}}) == std::vector<std::int64_t>{0, 1});
  CHECK(apportion_nodes(7, {{0, 1.0 / 3}, {1, 1.0 / 3}, {2, 1.0 / 3}}) ==
        std::vector<std::int64_t>{3, 2, 2});
  // Every node placed, each site within one node of its share.
  for (std::int64_t n : {1, 2, 9, 100, 12345}) {
    const std::vector<SiteShare> shares = {{0, 0.1}, {1, 0.35}, {2, 0.55}};
    const auto counts = apportion_nodes(n, shares);
    std::int64_t total = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      total += counts[i];
      CHECK(std::abs(static_cast<double>(counts[i]) - static_cast<double>(n) * shares[i].share) <
            1.0);
    }
    CHECK(total == n);
  }
}
