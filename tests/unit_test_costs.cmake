# Read by ctest after the unit tests catch_discover_tests() registered (TEST_INCLUDE_FILES, see
# tests/CMakeLists.txt): a COST for the few unit tests that take tens of seconds under the
# sanitizers, so that `ctest -j` starts them early instead of leaving one alone at the end (the
# randomized conservation test ran last, 47 s on one core, in a CI run without this). ctest
# ignores a name that no longer exists.
set_tests_properties(
  "conservation holds under random combinations of faults and client policies"
  PROPERTIES COST 45)
set_tests_properties("the simulator corrects a curve where executions mix sizes across a bend"
  PROPERTIES COST 15)
set_tests_properties("cost finds the brute-force optimum and its hand-computed price"
  PROPERTIES COST 13)
