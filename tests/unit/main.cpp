// Catch2 (v2) main for sonicsim_tests. The test cases live in tests/unit/test_*.cpp.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
