// The deployment layer: a running service described in its operators' own files (SuperSONIC's
// Helm values, read with yaml-cpp, which stays private to this folder) turned into a scenario.
