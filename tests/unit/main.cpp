// Catch2 (v2) main for sonicsim_tests. The test cases live in tests/unit/: test_*.cpp, and
// engine/ and scenario/, which mirror src/engine/ and src/scenario/ (docs/architecture.md).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
