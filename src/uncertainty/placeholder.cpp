// Placeholder so that CMake accepts the uncertainty layer before its sources land (branch
// w38); delete at merge.
