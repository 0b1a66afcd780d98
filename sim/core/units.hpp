#pragma once
// Typed physical quantities. Time is integer picoseconds (exact, deterministic event ordering);
// Bytes, Rate (bytes per second) and Flops are doubles (sizes are divided into chunks and shares).
// Unit strings ("400 Gb/s", "80 GiB", "1.5 us") are parsed in io/unit_parse.hpp, printed here.
#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <string>

namespace plansim {

// A double-valued quantity with a tag, so Bytes and Flops cannot be mixed by accident.
template <class Tag>
class Quantity {
 public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double v) : v_(v) {}
  [[nodiscard]] constexpr double value() const { return v_; }

  constexpr Quantity& operator+=(Quantity o) { v_ += o.v_; return *this; }
  constexpr Quantity& operator-=(Quantity o) { v_ -= o.v_; return *this; }
  constexpr Quantity& operator*=(double k) { v_ *= k; return *this; }
  constexpr Quantity& operator/=(double k) { v_ /= k; return *this; }
  friend constexpr Quantity operator+(Quantity a, Quantity b) { return Quantity(a.v_ + b.v_); }
  friend constexpr Quantity operator-(Quantity a, Quantity b) { return Quantity(a.v_ - b.v_); }
  friend constexpr Quantity operator*(Quantity a, double k) { return Quantity(a.v_ * k); }
  friend constexpr Quantity operator*(double k, Quantity a) { return Quantity(a.v_ * k); }
  friend constexpr Quantity operator/(Quantity a, double k) { return Quantity(a.v_ / k); }
  friend constexpr double operator/(Quantity a, Quantity b) { return a.v_ / b.v_; }
  friend constexpr auto operator<=>(Quantity a, Quantity b) = default;

 private:
  double v_ = 0.0;
};

struct BytesTag {};
struct RateTag {};   // bytes per second
struct FlopsTag {};  // floating-point operations (a count)
struct FlopRateTag {};  // floating-point operations per second

using Bytes = Quantity<BytesTag>;
using Rate = Quantity<RateTag>;
using Flops = Quantity<FlopsTag>;
using FlopRate = Quantity<FlopRateTag>;

// Thrown (as a ConfigError, exit 2) when a time leaves Time's range: defined in units.cpp, cold.
[[noreturn]] void throw_time_overflow(const char* what);

// Simulated time: signed 64-bit picoseconds (range ±106 days), exact and totally ordered. Every
// conversion and every +, −, × is checked: a result outside the range (an input that makes a run last
// longer than ~9.2e6 s, e.g. a 1 B/s link) throws instead of wrapping (which would be undefined
// behaviour and then a silently wrong figure). Time::infinite() is the one sentinel past the range.
class Time {
 public:
  constexpr Time() = default;
  static constexpr Time ps(int64_t v) { return Time(v); }
  static constexpr Time ns(double v) { return from_seconds(v * 1e-9); }
  static constexpr Time us(double v) { return from_seconds(v * 1e-6); }
  static constexpr Time ms(double v) { return from_seconds(v * 1e-3); }
  static constexpr Time s(double v) { return from_seconds(v); }
  // Rounds to the nearest picosecond. NaN or beyond ±9.2e6 s throws.
  static constexpr Time from_seconds(double sec) {
    const double p = sec * 1e12;
    // 9.2e18 < 2^63 − 1 ≈ 9.223e18: every double below it converts exactly into int64.
    if (!(p > -9.2e18 && p < 9.2e18)) throw_time_overflow("a time");
    return Time(static_cast<int64_t>(p < 0 ? p - 0.5 : p + 0.5));
  }
  // The largest finite time, in seconds (a little under 2^63 ps).
  static constexpr double max_seconds() { return 9.2e6; }
  static constexpr Time zero() { return Time(0); }
  static constexpr Time infinite() { return Time(std::numeric_limits<int64_t>::max()); }

  [[nodiscard]] constexpr int64_t picoseconds() const { return ps_; }
  [[nodiscard]] constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
  [[nodiscard]] constexpr double micros() const { return static_cast<double>(ps_) * 1e-6; }
  [[nodiscard]] constexpr bool is_infinite() const { return ps_ == std::numeric_limits<int64_t>::max(); }

  constexpr Time& operator+=(Time o) { return *this = *this + o; }
  constexpr Time& operator-=(Time o) { return *this = *this - o; }
  friend constexpr Time operator+(Time a, Time b) {
    int64_t r = 0;
    if (__builtin_add_overflow(a.ps_, b.ps_, &r)) throw_time_overflow("a sum of times");
    return Time(r);
  }
  friend constexpr Time operator-(Time a, Time b) {
    int64_t r = 0;
    if (__builtin_sub_overflow(a.ps_, b.ps_, &r)) throw_time_overflow("a difference of times");
    return Time(r);
  }
  friend constexpr Time operator*(Time a, int64_t k) {
    int64_t r = 0;
    if (__builtin_mul_overflow(a.ps_, k, &r)) throw_time_overflow("a multiple of a time");
    return Time(r);
  }
  friend constexpr Time operator*(int64_t k, Time a) { return a * k; }
  friend constexpr double operator/(Time a, Time b) {
    return static_cast<double>(a.ps_) / static_cast<double>(b.ps_);
  }
  friend constexpr auto operator<=>(Time a, Time b) = default;

 private:
  constexpr explicit Time(int64_t p) : ps_(p) {}
  int64_t ps_ = 0;
};

// Literal-style helpers for code and tests.
constexpr Bytes bytes(double v) { return Bytes(v); }
constexpr Bytes KB(double v) { return Bytes(v * 1e3); }
constexpr Bytes MB(double v) { return Bytes(v * 1e6); }
constexpr Bytes GB(double v) { return Bytes(v * 1e9); }
constexpr Bytes KiB(double v) { return Bytes(v * 1024.0); }
constexpr Bytes MiB(double v) { return Bytes(v * 1048576.0); }
constexpr Bytes GiB(double v) { return Bytes(v * 1073741824.0); }
constexpr Rate GBps(double v) { return Rate(v * 1e9); }     // gigabytes per second
constexpr Rate Gbps(double v) { return Rate(v * 1e9 / 8); }  // gigabits per second
constexpr FlopRate TFLOPs_per_s(double v) { return FlopRate(v * 1e12); }

// Time to move `b` at rate `r` (rounded to the picosecond). A zero rate gives infinite time.
constexpr Time transfer_time(Bytes b, Rate r) {
  if (b.value() <= 0) return Time::zero();
  if (r.value() <= 0) return Time::infinite();
  return Time::from_seconds(b.value() / r.value());
}
constexpr Rate rate_of(Bytes b, Time t) { return Rate(b.value() / t.seconds()); }
constexpr Time compute_time(Flops f, FlopRate r) {
  if (f.value() <= 0) return Time::zero();
  return Time::from_seconds(f.value() / r.value());
}

// Human-readable forms with explicit units (decimal prefixes, as nccl-tests prints).
std::string to_string(Time t);   // "1.5 us", "12.3 ms", "2.000 s"
std::string to_string(Bytes b);  // "80 GB" / "1.07 GB" (decimal), exact integers below 1 kB as "512 B"
std::string to_string(Rate r);   // "50 GB/s"
std::string to_string(Flops f);  // "3.15 PFLOP"
std::string to_string(FlopRate f);  // "312 TFLOP/s"

}  // namespace plansim
