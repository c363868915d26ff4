// The server pool from the values: its name, its size or KEDA's autoscaler (keda/so.yaml), its
// device (triton.resources, nodeSelector, affinity), what triton.args tells (model control, the
// drain) and the probes' lower bound on a start.
#include <algorithm>
#include <sstream>

#include <sonicsim/scenario/units.hpp>

#include "chart_keys.hpp"
#include "mapping.hpp"

namespace sonicsim::deployment {
namespace {

// keda/so.yaml of chart 0.3.1: constants and the `default` of each templated field.
constexpr int polling_interval_s = 30;
constexpr int cooldown_period_s = 120;
constexpr int template_min_replicas = 1, template_max_replicas = 14;
constexpr int template_stabilization_s = 120, template_period_s = 30, template_step = 1;
// triton/deployment.yaml: terminationGracePeriodSeconds, after which Kubernetes kills the pod.
constexpr int termination_grace_s = 60;
constexpr int triton_default_exit_timeout_s = 30;  // tritonserver's --exit-timeout-secs default
constexpr std::int64_t max_replicas_allowed = 1000000;

constexpr const char* gpu_resource = "nvidia.com/gpu";
constexpr const char* mig_resource_prefix = "nvidia.com/mig-";
constexpr const char* gpu_product_label = "nvidia.com/gpu.product";

std::string seconds_text(std::int64_t s) {
  return std::to_string(s) + "s";
}

}  // namespace

void Mapper::run() {
  keda_ = boolean("keda.enabled").value_or(false);
  shaped(keda_ ? "servers[0].autoscaler" : "servers[0].autoscaler (none)", "keda.enabled");
  const bool prometheus_limiter =
      boolean("envoy.enabled").value_or(true) &&
      boolean("envoy.rate_limiter.prometheus_based.enabled").value_or(false);
  if (!keda_ && !prometheus_limiter)
    for (const char* k : {"serverLoadMetric", "serverLoadThreshold"})
      if (set_by_user(k))
        not_relevant(k, shown(k), at(k),
                     "read only by KEDA and the prometheus_based rate limiter, both disabled: "
                     "the chart renders nothing from it");
  map_pool();
  if (keda_) map_autoscaler();
  map_device();
  map_triton_args();
  map_startup();
  map_load_balancer();
  map_admission();
  map_client_timeout();
}

void Mapper::map_pool() {
  const auto name = text("nameOverride");
  if (name && !name->empty())
    put("servers[0].name", *name, "nameOverride");
  else
    put_node("servers[0].name", options().release, "--release", options().release, nullptr,
             "the release name (--release; nameOverride is empty)");
  if (keda_) return;  // the autoscaler's bounds size the pool; triton.replicas is its start
  auto replicas = whole("triton.replicas", 0, max_replicas_allowed);
  if (replicas && *replicas == 0) {
    note("triton.replicas = 0 renders as 1: the template's `default 1` takes 0 for unset");
    replicas = 1;
  }
  put_node("servers[0].count", replicas.value_or(1), "triton.replicas", shown("triton.replicas"),
           at("triton.replicas"), "triton/deployment.yaml: replicas `default 1`");
  if (overlay_at("servers[0].autoscaler") && !overlay_at("servers[0].autoscaler")->is_null()) {
    report().conflicts.push_back({"servers[0].autoscaler", "keda.enabled", shown("keda.enabled"),
                                  "",
                                  "the overlay had an autoscaler; removed: no ScaledObject "
                                  "without keda.enabled",
                                  ""});
    erase("servers[0].autoscaler");
  }
  for (const char* k : {"keda.minReplicaCount", "keda.maxReplicaCount", "keda.zeroIdleReplicas",
                        "keda.scaleUp", "keda.scaleDown"})
    if (set_by_user(k))
      not_relevant(k, shown(k), at(k), "keda.enabled is false: the chart renders no ScaledObject");
}

void Mapper::map_autoscaler() {
  const std::string a = "servers[0].autoscaler.";
  const auto metric = text("serverLoadMetric");
  if (metric && !metric->empty())
    not_mapped("serverLoadMetric",
               "a PromQL query of its own, which sonicsim cannot evaluate; the autoscaler keeps "
               "the chart's default metric (Triton's queue time per execution) against "
               "serverLoadThreshold");
  put_node(
      a + "metric", "queue_time", "serverLoadMetric", metric.value_or(""),
      metric && metric->empty() ? at("serverLoadMetric") : nullptr,
      chart() + " default metric (" + traits().metric_file + "): queue time per execution in ms");
  const auto threshold = number("serverLoadThreshold", 0);
  std::ostringstream ms;
  ms << threshold.value_or(100) << "ms";
  put_node(a + "threshold", ms.str(), "serverLoadThreshold", shown("serverLoadThreshold"),
           at("serverLoadThreshold"), "");
  put_default(a + "target", "value", chart() + " " + traits().so_file + ": metricType Value");
  map_metric_window(a + "window");
  put_default(a + "polling_interval", seconds_text(polling_interval_s),
              chart() + " " + traits().so_file + ": pollingInterval 30");
  put_default(a + "cooldown", seconds_text(cooldown_period_s),
              chart() + " " + traits().so_file + ": cooldownPeriod 120");
  sonicsim_default(a + "tolerance", "0.1 (HPA's default)");

  // `default N x` in the template: 0 is unset to Helm, so 0 renders as N.
  const auto helm_default = [&](const std::string& key, std::int64_t fallback,
                                std::int64_t lo) -> std::int64_t {
    const auto v = whole(key, 0, max_replicas_allowed);
    if (!v) return fallback;
    if (*v == 0) {
      note(key + " = 0 renders as " + std::to_string(fallback) +
           ": the template's `default` takes 0 for unset");
      return fallback;
    }
    return std::max(*v, lo);
  };
  const std::int64_t max = helm_default("keda.maxReplicaCount", template_max_replicas, 1);
  std::int64_t min = helm_default("keda.minReplicaCount", template_min_replicas, 1);
  if (min > max)
    bad("keda.minReplicaCount", std::to_string(min),
        "at most keda.maxReplicaCount (" + std::to_string(max) + ")");
  put_node("servers[0].count", max, "keda.maxReplicaCount", shown("keda.maxReplicaCount"),
           at("keda.maxReplicaCount"),
           chart() + " " + traits().so_file + ": maxReplicaCount `default 14`");
  put_node(a + "max_replicas", max, "keda.maxReplicaCount", shown("keda.maxReplicaCount"),
           at("keda.maxReplicaCount"),
           chart() + " " + traits().so_file + ": maxReplicaCount `default 14`");
  // The Deployment starts at `triton.replicas | default 1` (templates/triton/deployment.yaml:10 at
  // 0.3.1), and KEDA's HPA raises it to minReplicaCount at its first sync (Kubernetes'
  // horizontal.go: below Spec.MinReplicas the desired count is minReplicas, without behaviors).
  const std::int64_t rendered_min = min;
  const bool zero_idle = boolean("keda.zeroIdleReplicas").value_or(false);
  if (zero_idle) {
    put("servers[0].autoscaler.min_replicas", 0, "keda.zeroIdleReplicas");
    note(
        "keda.zeroIdleReplicas: KEDA's idleReplicaCount 0; sonicsim scales 1 -> 0 after "
        "cooldown without requests");
    // values.yaml:223-226 (0.3.1): "if the scaling metric is extracted from Triton servers, it
    // will be unavailable, and scaling from 0 to 1 will never happen". The default metric
    // (_scaling-metric.tpl) reads nv_inference_queue_duration_us from the Triton pods.
    if (!metric || metric->empty()) {
      put_node(a + "wake_from_zero", false, "keda.zeroIdleReplicas", "true",
               at("keda.zeroIdleReplicas"), "");
      note(
          "keda.zeroIdleReplicas with the chart's default metric: a pool at zero never wakes "
          "(wake_from_zero false), as values.yaml warns: the metric comes from the Triton "
          "servers, and with none running it has no value");
    } else {
      note(
          "keda.zeroIdleReplicas with a serverLoadMetric of its own: sonicsim assumes it has a "
          "value with no server running, and wakes the pool 0 -> 1 at the first request that "
          "finds no server, where KEDA goes back to minReplicaCount (" +
          std::to_string(rendered_min) +
          ") at once (wake_from_zero true); if the metric reads the Triton pods, set "
          "servers[0].autoscaler.wake_from_zero to false");
    }
    min = 0;
  } else {
    put_node(a + "min_replicas", min, "keda.minReplicaCount", shown("keda.minReplicaCount"),
             at("keda.minReplicaCount"),
             chart() + " " + traits().so_file + ": minReplicaCount `default 1`");
  }
  const ValueNode* start = at("triton.replicas");
  const bool user_start = start && start->file != chart_defaults_name();
  const auto r = whole("triton.replicas", 0, max_replicas_allowed);
  const std::int64_t deployment = std::max<std::int64_t>(r.value_or(1), 1);  // `| default 1`
  const std::int64_t initial = std::clamp<std::int64_t>(std::max(deployment, rendered_min), 1, max);
  if (user_start && r) {
    write(a + "initial_replicas", initial, "triton.replicas", start->text);
    report().filled.push_back(
        {a + "initial_replicas", "triton.replicas", start->text, start->where(), "", ""});
    if (initial != *r)
      note("triton.replicas = " + start->text + " starts the pool; KEDA's HPA moves it into [" +
           std::to_string(rendered_min) + ", " + std::to_string(max) +
           "] at once: initial_replicas " + std::to_string(initial));
  } else {
    put_default(a + "initial_replicas", initial,
                chart() + " " + traits().deployment_file +
                    ": replicas `triton.replicas | default 1`, raised to minReplicaCount by the "
                    "HPA");
  }

  for (const auto& [dir, out] : {std::pair{std::string("scaleUp"), std::string("scale_up")},
                                 std::pair{std::string("scaleDown"), std::string("scale_down")}}) {
    const std::string base = "keda." + dir + ".";
    const struct {
      const char* key;
      const char* field;
      int fallback;
      bool seconds;
    } fields[] = {
        {"stabilizationWindowSeconds", "stabilization_window", template_stabilization_s, true},
        {"periodSeconds", "period", template_period_s, true},
        {"stepsize", "step", template_step, false}};
    for (const auto& f : fields) {
      const std::string key = base + f.key;
      const auto v = whole(key, 0, 1000000000);
      const std::int64_t used = v && *v > 0 ? *v : f.fallback;
      if (v && *v == 0)
        note(key + " = 0 renders as " + std::to_string(f.fallback) +
             ": the template's `default` takes 0 for unset");
      const json value = f.seconds ? json(seconds_text(used)) : json(used);
      put_node(a + out + "." + f.field, value, key, shown(key), v && *v > 0 ? at(key) : nullptr,
               v && *v > 0 ? ""
                           : chart() + " " + traits().so_file + ": " + std::string(f.key) +
                                 " `default " + std::to_string(f.fallback) + "`");
    }
  }
}

// The load query's rate window, as the release's template writes it (0.3.x: [30s]; 0.1.2 to
// 0.2.1: [15s]; 0.1.0: a [5m:1m] subquery of per-pod ratios; 0.1.1: no rate at all).
void Mapper::map_metric_window(const std::string& scenario_key) {
  const double w = traits().metric_window;
  const std::string source = chart() + " " + traits().metric_file + ": " + traits().metric_query;
  if (w > 0) {
    put_default(scenario_key, seconds_text(static_cast<std::int64_t>(w)), source);
    if (traits().version == "0.1.0")
      note(chart() +
           "'s query sums each pod's own queue time per execution over 5 minutes; sonicsim "
           "reads the pool's, over a 300 s window (the two agree with one pod)");
    return;
  }
  put_default(scenario_key, "3600s", source);
  note(chart() +
       "'s query has no rate(): it divides the counters since each server started, a mean over "
       "the server's whole life; sonicsim reads it over an hour, the longest window it keeps");
}

// The GPUs a server asks for: the larger of the limit and the request, as the scheduler
// reserves it; a MIG resource is kept for map_mig.
Mapper::GpuRequest Mapper::gpu_request() {
  GpuRequest r;
  if (const ValueNode* res = at("triton.resources"); res && res->is_map()) {
    for (const auto& [part, block] : res->map) {
      const std::string part_key = join_key("triton.resources", part);
      if (!block.is_map()) {
        not_relevant(part_key, "", &block, "not a Kubernetes resource block (limits, requests)");
        continue;
      }
      for (const auto& [name, amount] : block.map) {
        const std::string key = join_key(part_key, name);
        if (name.rfind(mig_resource_prefix, 0) == 0) {
          if (!mig_name_.empty() && mig_name_ != name) {
            // Two MIG profiles for one pod: not one device.
            not_mapped(key, "a second MIG profile for one server (" + mig_name_ +
                                " is the first); sonicsim gives a server one device");
          } else if (amount.kind != ValueNode::Kind::scalar || amount.text != "1") {
            not_mapped(key,
                       "MIG slices per server other than 1: sonicsim gives a server one "
                       "device (a slice)");
            if (mig_name_.empty()) mig_name_ = name, mig_key_ = key, mig_node_ = &amount;
          } else if (mig_name_.empty()) {
            mig_name_ = name;
            mig_key_ = key;
            mig_node_ = &amount;
          }
          continue;
        }
        if (name == gpu_resource) {
          std::int64_t n = -1;
          if (amount.kind == ValueNode::Kind::scalar) {
            try {
              std::size_t used = 0;
              n = std::stoll(amount.text, &used);
              if (used != amount.text.size()) n = -1;
            } catch (const std::exception&) {
              n = -1;
            }
          }
          if (n < 0 || n > 1000) {
            problems.push_back(
                {amount.file,
                 {key, "line " + std::to_string(amount.line) + ", column " +
                           std::to_string(amount.column) + ": found \"" + amount.text +
                           "\", expected a whole number of GPUs from 0 to 1000"}});
            continue;
          }
          if (n > r.gpus) {
            r.gpus = n;
            r.key = key;
            r.node = &amount;
          }
        } else if (name == "cpu" && amount.file != chart_defaults_name()) {
          // A note more than a mapping: the pod's share of a node says nothing of the CPU work
          // a request costs the host, which is what servers[0].host models.
          const json* cores = overlay_at("servers[0].host.cores");
          not_relevant(key, amount.text, &amount,
                       cores ? "a pod's CPU share; the overlay models the host's cores "
                               "(servers[0].host.cores = " +
                                   cores->dump() + "), which stay"
                             : "a pod's CPU share; host CPU work is modelled only with "
                               "servers[0].host.cores and the models' host_cost (the overlay)");
        } else if (amount.file != chart_defaults_name()) {
          not_relevant(key, amount.text, &amount,
                       name == "memory" ? "memory for the pod; the models' footprints are "
                                          "devices.D.memory and models.M.memory (the overlay)"
                                        : "a resource sonicsim does not model");
        }
      }
    }
  }
  return r;
}

// The GPU product the pods are pinned to: the node selector's label, else the affinity's `In`
// values (the first; the others are alternatives).
Mapper::GpuProduct Mapper::gpu_product() {
  GpuProduct p;
  if (const ValueNode* sel = at("triton.nodeSelector"); sel && sel->is_map()) {
    for (const auto& [label, v] : sel->map) {
      const std::string key = join_key("triton.nodeSelector", label);
      if (label == gpu_product_label && v.kind == ValueNode::Kind::scalar) {
        p.name = v.text;
        p.key = key;
        p.node = &v;
      } else {
        not_relevant(key, v.text, &v, "which nodes Triton runs on, not how fast it serves");
      }
    }
  }
  if (const ValueNode* aff = at("triton.affinity"); aff && aff->is_map()) {
    // nodeAffinity.{required...,preferred...}: every matchExpressions entry on the label.
    std::vector<std::pair<const ValueNode*, std::string>> stack{{aff, "triton.affinity"}};
    bool found = false;
    while (!stack.empty()) {
      auto [n, path] = stack.back();
      stack.pop_back();
      if (n->is_map()) {
        const ValueNode* key = n->find("key");
        const ValueNode* op = n->find("operator");
        const ValueNode* vals = n->find("values");
        if (key && key->text == gpu_product_label && op && op->text == "In" && vals &&
            vals->kind == ValueNode::Kind::list) {
          for (std::size_t i = 0; i < vals->list.size(); ++i) {
            found = true;
            if (p.name.empty()) {
              p.name = vals->list[i].text;
              p.key = path + ".values[" + std::to_string(i) + "]";
              p.node = &vals->list[i];
            } else {
              p.alternatives.push_back(vals->list[i].text);
            }
          }
          continue;
        }
        for (auto it = n->map.rbegin(); it != n->map.rend(); ++it)
          stack.push_back({&it->second, join_key(path, it->first)});
      } else if (n->kind == ValueNode::Kind::list) {
        for (std::size_t i = n->list.size(); i-- > 0;)
          stack.push_back({&n->list[i], path + "[" + std::to_string(i) + "]"});
      }
    }
    if (!found && aff->file != chart_defaults_name())
      not_relevant("triton.affinity", "{...}", aff,
                   "scheduling rules without nvidia.com/gpu.product: where pods run");
  }
  return p;
}

void Mapper::map_device() {
  const GpuRequest request = gpu_request();
  const std::int64_t gpus = request.gpus;
  const std::string& gpu_key = request.key;
  const ValueNode* gpu_node = request.node;
  const GpuProduct pinned = gpu_product();
  const std::string& product = pinned.name;
  const std::string& product_key = pinned.key;
  const ValueNode* product_node = pinned.node;
  const std::vector<std::string>& alternatives = pinned.alternatives;

  if (!alternatives.empty() && !options().device.empty()) {
    // --device says which of them the pods run on: the choice the values leave to the scheduler.
    std::string list;
    for (const auto& a : alternatives) list += (list.empty() ? "" : ", ") + a;
    note("triton.affinity allows " + product + ", " + list + "; --device " + options().device +
         " says which the pool runs on");
  } else if (!alternatives.empty()) {
    std::string list;
    for (const auto& a : alternatives) list += (list.empty() ? "" : ", ") + a;
    report().not_mapped.push_back(
        {"", "triton.affinity", list, product_node ? product_node->where() : "",
         "other GPU products the pods may land on; the pool takes one device: " + product +
             " (a pool per product would need the servers split; --device NAME says which "
             "one the pods run on)",
         "triton.affinity"});
  }

  if (gpus == 1 && gpu_node->file != chart_defaults_name())
    report().filled.push_back(
        {"servers[0] (one device per server)", gpu_key, "1", gpu_node->where(), "", ""});
  if (gpus > 1)
    report().not_mapped.push_back(
        {"", gpu_key, std::to_string(gpus), gpu_node->where(),
         "GPUs per Triton server: sonicsim gives each server of a pool one device "
         "(several devices behind one server are servers[i].host.devices, which takes no "
         "autoscaler)",
         gpu_key});

  if (!mig_key_.empty() || product.find("-MIG-") != std::string::npos)
    return map_mig(product, product_key, product_node);
  const json* overlay_device = overlay_at("servers[0].device");
  if (!options().device.empty()) {
    if (!product.empty() && product != options().device)
      note("--device " + options().device + " names the device instead of the values' " + product +
           " (" + product_key + ")");
    put_node("servers[0].device", options().device, "--device", options().device, nullptr,
             "--device");
    report().defaulted.back().where = "--device";
    return;
  }
  if (gpus == 0) {
    note(
        "CPU-only Triton: no nvidia.com/gpu in triton.resources; the pool's device comes from "
        "--device or the overlay");
    if (overlay_device)
      report().defaulted.push_back({"servers[0].device", "",
                                    overlay_device->is_string() ? overlay_device->get<std::string>()
                                                                : overlay_device->dump(),
                                    "the overlay (CPU-only Triton in the values)", "", ""});
    return;
  }
  if (product.empty()) {
    note("triton.resources asks for " + std::to_string(gpus) +
         " nvidia.com/gpu but no nvidia.com/gpu.product (nodeSelector or affinity) says which; "
         "the device comes from --device or the overlay");
    if (overlay_device)
      report().defaulted.push_back({"servers[0].device", "", overlay_device->dump(),
                                    "the overlay (the values do not name the GPU)", "", ""});
    return;
  }
  put_node("servers[0].device", product, product_key, product, product_node, "");
}

void Mapper::map_triton_args() {
  const ValueNode* args = at("triton.args");
  std::string line;
  if (args && args->kind == ValueNode::Kind::list) {
    for (const auto& item : args->list) {
      if (item.kind != ValueNode::Kind::scalar) {
        bad("triton.args", "a list holding a map or a list", "a list of strings (the command)");
        return;
      }
      line += item.text + " ";
    }
  } else if (args && args->kind == ValueNode::Kind::scalar) {
    line = args->text;
  } else if (args) {
    bad("triton.args", "a map", "a list of strings (the command)");
    return;
  }
  // A shell script: continuation lines and quotes do not change the flags.
  std::vector<std::string> words;
  {
    std::string w;
    for (char c : line) {
      if (c == ' ' || c == '\n' || c == '\t' || c == '\\' || c == '"' || c == '\'') {
        if (!w.empty()) words.push_back(w);
        w.clear();
      } else {
        w += c;
      }
    }
    if (!w.empty()) words.push_back(w);
  }
  const bool triton = std::any_of(words.begin(), words.end(), [](const std::string& w) {
    return w.find("tritonserver") != std::string::npos;
  });
  if (args && !triton) note("triton.args does not run tritonserver; Triton's defaults assumed");

  std::optional<std::string> control;
  std::optional<std::int64_t> exit_timeout;
  std::string flag_of_timeout;
  std::vector<std::string> repositories;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.rfind("--", 0) != 0) continue;
    std::string name = w.substr(2), value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (i + 1 < words.size() && words[i + 1].rfind("--", 0) != 0) {
      value = words[++i];
    }
    const std::string shown_flag = "--" + name + "=" + value;
    if (name == "model-control-mode") {
      if (value == "explicit" || value == "none") {
        control = value;
      } else if (value == "poll") {
        control = "none";
        note(
            "--model-control-mode=poll: Triton reloads models when the repository changes; "
            "sonicsim keeps them all loaded (model_control none)");
      } else {
        bad("triton.args", "--model-control-mode=" + value, "none, poll or explicit");
      }
    } else if (name == "exit-timeout-secs") {
      try {
        std::size_t used = 0;
        const long long v = std::stoll(value, &used);
        if (used != value.size() || v < 0 || v > 1000000000) throw std::out_of_range("");
        exit_timeout = v;
        flag_of_timeout = shown_flag;
      } catch (const std::exception&) {
        bad("triton.args", "--exit-timeout-secs=" + value, "a whole number of seconds >= 0");
      }
    } else if (name == "model-repository" || name == "model-store") {
      repositories.push_back(value);
    } else if (name == "load-model") {
      report().not_mapped.push_back(
          {"", "triton.args", shown_flag, args ? args->where() : "",
           "a model loaded at start; sonicsim's explicit model control loads at the first "
           "request",
           "triton.args"});
    } else if (args && args->file != chart_defaults_name()) {
      not_relevant("triton.args", shown_flag, args,
                   "a tritonserver flag that does not change how requests are served");
    }
  }
  const std::string src = "triton.args";
  const std::string where_default =
      args && args->file == chart_defaults_name() ? chart() + " default triton.args" : "";
  put_node("servers[0].model_control", control.value_or("none"), src,
           control ? "--model-control-mode=" + *control : "(no --model-control-mode)",
           control ? args : nullptr,
           control ? where_default : "tritonserver's default --model-control-mode none");
  const std::int64_t timeout = exit_timeout.value_or(triton_default_exit_timeout_s);
  const std::int64_t drain = std::min<std::int64_t>(timeout, termination_grace_s);
  if (timeout > termination_grace_s)
    note("--exit-timeout-secs=" + std::to_string(timeout) + " is cut to " +
         std::to_string(termination_grace_s) +
         " s: triton/deployment.yaml's terminationGracePeriodSeconds ends the pod first");
  put_node("servers[0].drain_timeout", seconds_text(drain), src,
           exit_timeout ? flag_of_timeout : "(no --exit-timeout-secs)",
           exit_timeout ? args : nullptr,
           exit_timeout ? where_default : "tritonserver's default --exit-timeout-secs 30");
  if (!repositories.empty() && args->file != chart_defaults_name()) {
    std::string list;
    for (const auto& r : repositories) list += (list.empty() ? "" : ", ") + r;
    note("model repositories (triton.args): " + list +
         "; which models the pool serves is servers[0].models (the overlay)");
  }
}

void Mapper::map_startup() {
  // A pod serves no earlier than its first successful probe: the larger initial delay of the
  // two probes is a lower bound on startup_delay (image pull and model load come on top).
  const auto delay = [&](const std::string& probe) -> std::int64_t {
    if (boolean(probe + ".reset").value_or(false)) return 0;  // Kubernetes' default: 0
    return whole(probe + ".initialDelaySeconds", 0, 1000000000).value_or(0);
  };
  const std::int64_t readiness = delay("triton.readinessProbe");
  const std::int64_t startup = delay("triton.startupProbe");
  const std::string key = readiness >= startup ? "triton.readinessProbe.initialDelaySeconds"
                                               : "triton.startupProbe.initialDelaySeconds";
  const std::int64_t bound = std::max(readiness, startup);
  for (const char* k : {"triton.readinessProbe.reset", "triton.readinessProbe.initialDelaySeconds",
                        "triton.startupProbe.reset", "triton.startupProbe.initialDelaySeconds"})
    if (k != key) shaped("servers[0].startup_delay (lower bound)", k);
  note(
      "servers[0].startup_delay is a lower bound: a pod serves no earlier than its first "
      "probe (" +
      std::to_string(bound) + " s); image pull and model load may take longer (measure them)");
  if (const json* given = overlay_at("servers[0].startup_delay")) {
    std::string error;
    const auto s = scenario::parse_quantity(*given, scenario::Quantity::Time, error);
    if (s && *s >= static_cast<double>(bound)) {
      report().defaulted.push_back(
          {"servers[0].startup_delay", key, given->dump(),
           "the overlay (at least the probes' " + std::to_string(bound) + " s)", "", ""});
      return;
    }
  }
  put_node("servers[0].startup_delay", seconds_text(bound), key, shown(key), at(key), "");
}

}  // namespace sonicsim::deployment
