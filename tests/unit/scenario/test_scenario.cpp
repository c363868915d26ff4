// The scenario's own types (src/scenario/scenario.cpp): a service-time curve between and beyond its
// points, a tensor's bytes by its data type.
#include <catch2/catch.hpp>

#include <sonicsim/scenario/scenario.hpp>

using namespace sonicsim::scenario;

TEST_CASE("service curve interpolation and extrapolation", "[loader]") {
  ServiceCurve c;
  c.batch = {1, 16, 64};
  c.seconds = {0.001, 0.004, 0.010};
  CHECK(c.at(1) == Approx(0.001));
  CHECK(c.at(0.5) == Approx(0.001));  // below the first point: its value
  CHECK(c.at(8.5) == Approx(0.0025));
  CHECK(c.at(16) == Approx(0.004));
  CHECK(c.at(40) == Approx(0.007));
  CHECK(c.at(128) == Approx(0.018));  // last segment's slope
  ServiceCurve single;
  single.batch = {4};
  single.seconds = {0.002};
  CHECK(single.at(1) == 0.002);
  CHECK(single.at(100) == 0.002);
  ServiceCurve falling;
  falling.batch = {1, 2};
  falling.seconds = {0.002, 0.001};
  CHECK(falling.at(10) == Approx(0.001));  // never extrapolated below the last point
}

TEST_CASE("tensor sizes", "[loader]") {
  TensorSpec t{"x", {2, 100}, "FP32"};
  CHECK(t.bytes() == 800);
  CHECK(TensorSpec{"y", {3}, "INT64"}.bytes() == 24);
  CHECK(TensorSpec{"y", {3}, "FP16"}.bytes() == 6);
  CHECK(TensorSpec{"y", {3}, "BF16"}.bytes() == 6);
  CHECK(TensorSpec{"y", {3}, "FP64"}.bytes() == 24);
  CHECK(TensorSpec{"y", {3}, "INT8"}.bytes() == 3);
  CHECK(TensorSpec{"y", {3}, "UINT8"}.bytes() == 3);
  CHECK(TensorSpec{"y", {3}, "INT16"}.bytes() == 6);
  CHECK(TensorSpec{"y", {3}, "INT32"}.bytes() == 12);
  CHECK(TensorSpec{"y", {3}, "BOOL"}.bytes() == 3);
  CHECK(TensorSpec{"s", {}, "FP32"}.bytes() == 4);  // a scalar per item
}
