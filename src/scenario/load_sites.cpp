// `sites`, `wan` and `routing`, and where each workload and pool is (their `site`, `sites` and
// `routing` keys): read after the workloads and pools, whose other keys do not depend on sites.
// docs/sites.md describes the format; scenario/sites.hpp the model.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

namespace {

std::vector<std::string> names_of(const std::vector<Site>& sites) {
  std::vector<std::string> names;
  for (const Site& s : sites) names.push_back(s.name);
  return names;
}

// Why a key that places something at a site is refused in a scenario without sites.
constexpr const char* kNeedsSites =
    "expected no site without top-level `sites` (a scenario without sites is one site: see "
    "docs/sites.md)";

// How a message names site i: its name, or where it is when it has none.
std::string site_shown(const std::vector<Site>& sites, std::size_t i) {
  return is_unnamed_site(sites[i].name) ? "sites[" + std::to_string(i) + "] (no valid name)"
                                        : sites[i].name;
}

}  // namespace

std::string unnamed_site(std::size_t index) {
  // Appended rather than "\x01" + ...: GCC 12 warns (-Wrestrict) on the concatenation.
  std::string name(1, '\x01');
  return name.append(std::to_string(index));
}

bool is_unnamed_site(const std::string& name) {
  return !name.empty() && name.front() == '\x01';
}

std::vector<std::string> shown_names(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& n : names)
    if (!is_unnamed_site(n)) out.push_back(n);
  return out;
}

std::optional<std::size_t> Loader::site_named(const json& v, const std::string& path,
                                              const Scenario& s) {
  const auto name = string(v, path);
  if (!name) return std::nullopt;
  const std::vector<std::string> names = shown_names(names_of(s.sites));
  for (std::size_t i = 0; i < s.sites.size(); ++i)
    if (s.sites[i].name == *name) return i;
  std::string message =
      "found " + describe(v) + ", expected the name of a site in `sites` (" + join(names) + ")";
  if (const std::string hint = did_you_mean(*name, names); !hint.empty()) message += "; " + hint;
  add(path, message);
  return std::nullopt;
}

void Loader::sites(const json& doc, Scenario& s) {
  const json* v = get(doc, "sites");
  if (!v || v->is_null()) {
    for (const char* key : {"wan", "routing"})
      if (const json* x = get(doc, key); x && !x->is_null())
        add(key, "found `" + std::string(key) + "`, " + kNeedsSites);
    return;
  }
  if (!v->is_array() || v->empty()) {
    add("sites", "found " + describe(*v) +
                     ", expected an array of at least one site, each {\"name\": \"...\", "
                     "\"network\": {...}}");
    return;
  }
  if (v->size() > Limits::max_sites) {
    add("sites", "found " + std::to_string(v->size()) + " sites, expected at most " +
                     std::to_string(Limits::max_sites));
    return;
  }
  std::map<std::string, std::string> seen;  // name -> where
  for (std::size_t i = 0; i < v->size(); ++i) {
    const std::string path = index_path("sites", i);
    const json& x = (*v)[i];
    Site site;
    if (expect_object(x, path, "a site {\"name\": \"...\", \"network\": {...}}")) {
      check_keys(x, path, {"name", "network", "egress_price_per_gb"});
      if (const json* n = get(x, "name")) {
        if (auto name = string(*n, key_path(path, "name"))) site.name = *name;
      } else {
        missing(key_path(path, "name"), "a name for the site (e.g. \"purdue\"), unique");
      }
      if (const json* n = get(x, "network")) site_network(*n, key_path(path, "network"), site);
      if (const json* p = get(x, "egress_price_per_gb"); p && !p->is_null())
        site.egress_price_per_gb = number(*p, key_path(path, "egress_price_per_gb"),
                                          Range::closed(0, Limits::max_price_per_gb), "a price");
    }
    if (!site.name.empty()) {
      // Results and faults name a site's links "SITE/CLASS" and the WAN's "wan/NAME".
      if (site.name == "wan" || site.name.find('/') != std::string::npos)
        add(key_path(path, "name"),
            "found \"" + site.name +
                "\", expected a name without \"/\" and other than \"wan\" (links are "
                "named \"SITE/site_uplink\" and \"wan/NAME\")");
      else if (auto it = seen.find(site.name); it != seen.end())
        add(key_path(path, "name"), "found \"" + site.name + "\" again (first at " + it->second +
                                        "), expected a unique name");
      else
        seen[site.name] = path;
    }
    // Placeholder names keep indices aligned when a site is broken; problems were reported.
    if (site.name.empty()) site.name = unnamed_site(i);
    s.sites.push_back(std::move(site));
  }
  if (const json* w = get(doc, "wan"); w && !w->is_null()) wan(*w, "wan", s);
  if (const json* r = get(doc, "routing"); r && !r->is_null()) {
    if (auto routing = site_routing(*r, "routing", s)) s.routing = std::move(*routing);
  }
}

void Loader::site_network(const json& v, const std::string& path, Site& site) {
  if (v.is_null()) return;
  if (!expect_object(v, path, "an object with client_nic, site_uplink, server_nic")) return;
  check_keys(v, path, {"client_nic", "site_uplink", "server_nic"}, {"wan"},
             "belongs in the top-level `wan`, whose links join sites");
  if (const json* x = get(v, "client_nic"))
    site.client_nic = link(*x, key_path(path, "client_nic"));
  if (const json* x = get(v, "site_uplink"))
    site.site_uplink = link(*x, key_path(path, "site_uplink"));
  if (const json* x = get(v, "server_nic"))
    site.server_nic = link(*x, key_path(path, "server_nic"));
}

void Loader::wan(const json& v, const std::string& path, Scenario& s) {
  if (!expect_object(v, path, "an object {\"links\": [...], \"routers\": [...]}")) return;
  check_keys(v, path, {"links", "routers"});
  Wan& w = s.wan;
  std::vector<std::string> points = names_of(s.sites);
  if (const json* r = get(v, "routers"); r && !r->is_null()) {
    const std::string rpath = key_path(path, "routers");
    if (!r->is_array() || r->size() > Limits::max_sites) {
      add(rpath, "found " + describe(*r) + ", expected an array of at most " +
                     std::to_string(Limits::max_sites) + " router names");
    } else {
      for (std::size_t i = 0; i < r->size(); ++i) {
        const std::string ipath = index_path(rpath, i);
        const auto name = string((*r)[i], ipath);
        if (!name) continue;
        if (std::find(points.begin(), points.end(), *name) != points.end()) {
          add(ipath, "found \"" + *name +
                         "\" again, expected a name that no site and no other router has");
          continue;
        }
        w.routers.push_back(*name);
        points.push_back(*name);
      }
    }
  }
  const json* links = get(v, "links");
  if (!links) {
    missing(key_path(path, "links"),
            "an array of WAN links {\"between\": [\"site_a\", \"site_b\"], \"bandwidth\": "
            "\"10Gbps\", \"latency\": \"20ms\"}");
    return;
  }
  const std::string lpath = key_path(path, "links");
  if (!links->is_array() || links->size() > Limits::max_wan_links) {
    add(lpath, "found " + describe(*links) + ", expected an array of at most " +
                   std::to_string(Limits::max_wan_links) + " WAN links");
    return;
  }
  std::map<std::string, std::string> seen;
  for (std::size_t i = 0; i < links->size(); ++i) {
    const std::string ipath = index_path(lpath, i);
    const json& x = (*links)[i];
    if (!expect_object(x, ipath, "a WAN link {\"between\": [\"a\", \"b\"], \"bandwidth\": ...}"))
      continue;
    check_keys(x, ipath, {"name", "between", "bandwidth", "latency"});
    WanLink l;
    bool ok = true;
    const json* between = get(x, "between");
    const std::string bpath = key_path(ipath, "between");
    std::string ends[2];
    if (!between) {
      missing(bpath, "the two sites or routers it joins, [\"site_a\", \"site_b\"]");
      ok = false;
    } else if (!between->is_array() || between->size() != 2) {
      add(bpath, "found " + describe(*between) +
                     ", expected the two sites or routers it joins, [\"site_a\", \"site_b\"]");
      ok = false;
    } else {
      std::size_t at[2] = {0, 0};
      for (std::size_t e = 0; e < 2; ++e) {
        const std::string epath = index_path(bpath, e);
        const auto name = string((*between)[e], epath);
        if (!name) {
          ok = false;
          continue;
        }
        const auto it = std::find(points.begin(), points.end(), *name);
        if (it == points.end()) {
          const std::vector<std::string> shown = shown_names(points);
          std::string message = "found " + describe((*between)[e]) +
                                ", expected a site or a router (" + join(shown) + ")";
          if (const std::string hint = did_you_mean(*name, shown); !hint.empty())
            message += "; " + hint;
          add(epath, message);
          ok = false;
          continue;
        }
        at[e] = static_cast<std::size_t>(it - points.begin());
        ends[e] = *name;
      }
      if (ok && at[0] == at[1]) {
        add(bpath, "found \"" + ends[0] + "\" at both ends, expected two different points");
        ok = false;
      }
      l.a = at[0];
      l.b = at[1];
    }
    if (auto spec = link_figures(x, ipath))
      l.spec = *spec;
    else
      ok = false;
    if (const json* n = get(x, "name")) {
      if (auto name = string(*n, key_path(ipath, "name"))) l.name = *name;
    } else if (ok) {
      l.name = ends[0] + "-" + ends[1];  // the default name: its two ends
    }
    if (!l.name.empty()) {
      if (auto it = seen.find(l.name); it != seen.end()) {
        add(key_path(ipath, get(x, "name") ? "name" : "between"),
            "found a second WAN link named \"" + l.name + "\" (first at " + it->second +
                "), expected unique names (give each link a `name`)");
        ok = false;
      } else {
        seen[l.name] = ipath;
      }
    }
    if (ok) w.links.push_back(std::move(l));
  }
}

std::optional<SiteRouting> Loader::site_routing(const json& v, const std::string& path,
                                                const Scenario& s) {
  using Policy = SiteRouting::Policy;
  SiteRouting r;
  const json* policy_value = &v;
  if (!v.is_string()) {
    if (!expect_object(v, path, "a policy name or an object {\"policy\": \"local_first\", ...}"))
      return std::nullopt;
    check_keys(v, path, {"policy", "spill_over", "weights", "site"});
    policy_value = get(v, "policy");
    if (!policy_value) {
      missing(key_path(path, "policy"),
              "one of \"local_first\", \"least_latency\", \"weighted\", \"pinned\"");
      return std::nullopt;
    }
  }
  const std::string ppath = v.is_string() ? path : key_path(path, "policy");
  const auto name =
      choice(*policy_value, ppath, {"local_first", "least_latency", "weighted", "pinned"});
  if (!name) return std::nullopt;
  r.policy = *name == "local_first"     ? Policy::LocalFirst
             : *name == "least_latency" ? Policy::LeastLatency
             : *name == "weighted"      ? Policy::Weighted
                                        : Policy::Pinned;
  const json* spill = v.is_object() ? get(v, "spill_over") : nullptr;
  const json* weights = v.is_object() ? get(v, "weights") : nullptr;
  const json* site = v.is_object() ? get(v, "site") : nullptr;
  const auto only_for = [&](const json* x, const char* key, Policy p, const char* policy) {
    if (x && r.policy != p)
      add(key_path(path, key), "found `" + std::string(key) + "` with policy \"" + *name +
                                   "\", expected it only with \"" + policy + "\"");
  };
  only_for(spill, "spill_over", Policy::LocalFirst, "local_first");
  only_for(weights, "weights", Policy::Weighted, "weighted");
  only_for(site, "site", Policy::Pinned, "pinned");
  bool ok = true;
  if (r.policy == Policy::LocalFirst && spill)
    ok = spill_over(*spill, key_path(path, "spill_over"), r.spill_queue_time, r.spill_in_flight);
  if (r.policy == Policy::Weighted) {
    const std::string wpath = key_path(path, "weights");
    r.weights.assign(s.sites.size(), 0.0);
    if (!weights) {
      missing(wpath, "the share of each site, {\"site_a\": 3, \"site_b\": 1}");
      ok = false;
    } else if (!weights->is_object() || weights->empty()) {
      add(wpath, "found " + describe(*weights) +
                     ", expected the share of each site, {\"site_a\": 3, \"site_b\": 1}");
      ok = false;
    } else {
      double total = 0.0;
      for (const auto& item : weights->items()) {
        const std::string ipath = key_path(wpath, item.key());
        const auto at = site_named(json(item.key()), ipath, s);
        const auto w =
            number(item.value(), ipath, Range::closed(0, Limits::max_site_weight), "a weight");
        if (!at || !w) {
          ok = false;
          continue;
        }
        r.weights[*at] = *w;
        total += *w;
      }
      if (ok && !(total > 0.0)) {
        add(wpath, "found weights that are all 0, expected at least one above 0");
        ok = false;
      }
    }
  }
  if (r.policy == Policy::Pinned) {
    if (!site) {
      missing(key_path(path, "site"), "the site every request goes to");
      ok = false;
    } else if (auto at = site_named(*site, key_path(path, "site"), s)) {
      r.pinned = *at;
    } else {
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return r;
}

bool Loader::spill_over(const json& v, const std::string& path, std::optional<double>& queue_time,
                        std::optional<double>& in_flight) {
  if (!expect_object(v, path, "an object {\"queue_time\": \"20ms\", \"in_flight\": 8}"))
    return false;
  check_keys(v, path, {"queue_time", "in_flight"});
  bool ok = true;
  if (const json* q = get(v, "queue_time")) {
    if (auto t = quantity(*q, key_path(path, "queue_time"), Quantity::Time, Range::at_least(0)))
      queue_time = *t;
    else
      ok = false;
  }
  if (const json* f = get(v, "in_flight")) {
    if (auto n = number(*f, key_path(path, "in_flight"), Range::at_least(0), "requests per device"))
      in_flight = *n;
    else
      ok = false;
  }
  return ok;
}

// The `site`, `sites` and `routing` keys of each workload and pool.
void Loader::placements(const json& doc, Scenario& s) {
  const bool with_sites = !s.sites.empty();
  const auto one_site = [&](const json& object,
                            const std::string& path) -> std::optional<std::size_t> {
    const json* x = get(object, "site");
    if (!with_sites) {
      if (x) add(key_path(path, "site"), "found `site`, " + std::string(kNeedsSites));
      return 0;
    }
    if (x) return site_named(*x, key_path(path, "site"), s);
    if (s.sites.size() == 1) return 0;
    return std::nullopt;
  };
  // Workloads: `workload` or `workloads`, as workloads() read them: (object, path, index).
  std::vector<std::tuple<const json*, std::string, std::size_t>> wl;
  if (const json* one = get(doc, "workload"); one && one->is_object())
    wl.push_back({one, "workload", 0});
  if (const json* many = get(doc, "workloads");
      many && many->is_array() && many->size() == s.workloads.size())
    for (std::size_t i = 0; i < many->size(); ++i)
      if ((*many)[i].is_object()) wl.push_back({&(*many)[i], index_path("workloads", i), i});
  for (const auto& [object, path, index] : wl) {
    const json& w = *object;
    Workload& out = s.workloads[index];
    const json* shares = get(w, "sites");
    if (!with_sites) {
      if (shares) add(key_path(path, "sites"), "found `sites`, " + std::string(kNeedsSites));
      if (get(w, "routing"))
        add(key_path(path, "routing"), "found `routing`, " + std::string(kNeedsSites));
      one_site(w, path);
      continue;
    }
    if (shares && get(w, "site")) {
      add(key_path(path, "sites"), "found both `site` and `sites`, expected one of them");
      continue;
    }
    if (shares) {
      workload_shares(*shares, key_path(path, "sites"), s, out);
    } else if (auto at = one_site(w, path)) {
      out.sites = {SiteShare{*at, 1.0}};
    } else {
      missing(key_path(path, "site"), "the site of its jobs (" +
                                          join(shown_names(names_of(s.sites))) +
                                          "), or `sites` with shares");
    }
    if (const json* r = get(w, "routing"); r && !r->is_null())
      out.routing = site_routing(*r, key_path(path, "routing"), s);
  }
  const json* pools = get(doc, "servers");
  if (!pools || !pools->is_array() || pools->size() != s.servers.size()) return;
  for (std::size_t i = 0; i < pools->size(); ++i) {
    const json& p = (*pools)[i];
    if (!p.is_object()) continue;
    const std::string path = index_path("servers", i);
    if (s.servers[i].attached) {  // at its nodes' sites (load_attached.cpp refused `site`)
      const auto& shares = s.workloads[*s.servers[i].attached].sites;
      if (!shares.empty()) s.servers[i].site = shares.front().site;
      continue;
    }
    if (auto at = one_site(p, path))
      s.servers[i].site = *at;
    else if (!get(p, "site"))
      missing(key_path(path, "site"),
              "the site of its devices (" + join(shown_names(names_of(s.sites))) + ")");
  }
}

void Loader::workload_shares(const json& v, const std::string& path, const Scenario& s,
                             Workload& w) {
  if (!v.is_object() || v.empty()) {
    add(path, "found " + describe(v) +
                  ", expected the share of the workload's client nodes at each site, "
                  "{\"site_a\": 0.7, \"site_b\": 0.3}");
    return;
  }
  double total = 0.0;
  bool ok = true;
  std::vector<SiteShare> shares;
  for (const auto& item : v.items()) {
    const std::string ipath = key_path(path, item.key());
    const auto at = site_named(json(item.key()), ipath, s);
    const auto share = number(item.value(), ipath, Range::positive(), "a share");
    if (!at || !share) {
      ok = false;
      continue;
    }
    shares.push_back({*at, *share});
    total += *share;
  }
  if (!ok) return;
  // Shares are relative: {"a": 3, "b": 1} is {"a": 0.75, "b": 0.25}. Sites in scenario order.
  for (auto& sh : shares) sh.share /= total;
  std::sort(shares.begin(), shares.end(),
            [](const SiteShare& a, const SiteShare& b) { return a.site < b.site; });
  w.sites = std::move(shares);
}

// Between sections, once each is valid: the top-level `network` holds no links with sites, the
// WAN connects every site, and each workload can reach a server of every model it calls.
void Loader::site_checks(Scenario& s) {
  if (s.sites.empty()) return;
  for (LinkClass c : kLinkClasses)
    if (s.network.link(c))
      add(std::string("network.") + link_class_name(c),
          "found a link in the top-level `network` of a scenario with `sites`, expected each "
          "site's links in sites[i].network and the links between sites in `wan`");
  s.routes = derive_routes(s.sites.size(), s.wan);
  std::vector<std::string> cut_off;
  for (std::size_t t = 1; t < s.sites.size(); ++t)
    if (!s.routes[0][t].exists) cut_off.push_back(site_shown(s.sites, t));
  if (!cut_off.empty())
    add("wan", "found no route from site " +
                   (is_unnamed_site(s.sites[0].name) ? site_shown(s.sites, 0)
                                                     : "\"" + s.sites[0].name + "\"") +
                   " to " + join(cut_off) +
                   ", expected WAN links that connect every site (directly or through routers)");
  if (!ok()) return;
  for (std::size_t wi = 0; wi < s.workloads.size(); ++wi) {
    const Workload& w = s.workloads[wi];
    const SiteRouting& r = w.routing ? *w.routing : s.routing;
    const std::string wpath = s.workloads.size() == 1 && w.name.empty()
                                  ? std::string("workload")
                                  : index_path("workloads", wi);
    for (std::size_t q = 0; q < w.requests.size(); ++q) {
      const std::string& model = w.requests[q].model;
      std::vector<std::string> hosts;
      bool choosable = false;
      for (std::size_t p = 0; p < s.servers.size(); ++p) {
        const auto& pool = s.servers[p];
        if (std::find(pool.models.begin(), pool.models.end(), model) == pool.models.end()) continue;
        hosts.push_back(s.sites[pool.site].name);
        const bool allowed = r.policy == SiteRouting::Policy::Pinned ? pool.site == r.pinned
                             : r.policy == SiteRouting::Policy::Weighted
                                 ? r.weights[pool.site] > 0.0
                                 : true;
        if (allowed) choosable = true;
      }
      if (choosable || hosts.empty()) continue;  // no host at all: cross_check says so
      add(index_path(key_path(wpath, "requests"), q) + ".model",
          "found model \"" + model + "\", hosted at " + join(hosts) +
              ", which the workload's routing (" +
              (w.routing ? key_path(wpath, "routing") : std::string("routing")) +
              ") never chooses; expected a routing that may send it to one of them");
    }
  }
}

}  // namespace sonicsim::scenario::detail
