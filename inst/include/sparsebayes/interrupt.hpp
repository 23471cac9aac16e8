// User interrupts in long computations. Pure C++17: no R headers.
//
// The caller (the R glue) installs a callback with an InterruptScope for the
// duration of one call; every long loop of the core calls check_interrupt(),
// which runs the callback at most once per `interval` seconds of wall time
// (a steady_clock read otherwise: cheap enough to call in any loop that does
// at least a few microseconds of work per pass). The callback aborts the
// computation by throwing; the core holds its resources by RAII only, so the
// exception unwinds cleanly. Without a scope (or on another thread) the
// check does nothing.
#pragma once

#include <chrono>
#include <functional>
#include <utility>

namespace sparsebayes {

class InterruptChecker {
 public:
  using Callback = std::function<void()>;

  // The first poll runs the callback at once: a computation made of many
  // calls shorter than `interval` (an optimiser's objective, 0.05 s each at
  // n = 2e5 in sparse_gp()) would otherwise never check (Ctrl-C took 1 s).
  explicit InterruptChecker(Callback callback = nullptr, double interval = 0.1)
      : callback_(std::move(callback)),
        interval_(std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(interval))),
        last_(clock::now() - interval_) {}

  // Runs the callback if `interval` has passed since it last ran.
  void poll() {
    if (!callback_) return;
    const auto now = clock::now();
    if (now - last_ < interval_) return;
    last_ = now;
    callback_();
  }

 private:
  using clock = std::chrono::steady_clock;
  Callback callback_;
  clock::duration interval_;
  clock::time_point last_;
};

namespace detail {
inline thread_local InterruptChecker* current_interrupt_checker = nullptr;
}  // namespace detail

// Installs a checker on this thread for the lifetime of the scope (nestable).
class InterruptScope {
 public:
  explicit InterruptScope(InterruptChecker::Callback callback, double interval = 0.1)
      : checker_(std::move(callback), interval), previous_(detail::current_interrupt_checker) {
    detail::current_interrupt_checker = &checker_;
  }
  ~InterruptScope() { detail::current_interrupt_checker = previous_; }
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  InterruptChecker checker_;
  InterruptChecker* previous_;
};

// Suspends this thread's checks for the lifetime of the scope: a parallel
// region must not throw out of its threads, so the caller checks between
// regions instead.
class InterruptPause {
 public:
  InterruptPause() : previous_(detail::current_interrupt_checker) { detail::current_interrupt_checker = nullptr; }
  ~InterruptPause() { detail::current_interrupt_checker = previous_; }
  InterruptPause(const InterruptPause&) = delete;
  InterruptPause& operator=(const InterruptPause&) = delete;

 private:
  InterruptChecker* previous_;
};

// Called from every long loop: throws (through the installed callback) if
// the user asked to stop.
inline void check_interrupt() {
  if (InterruptChecker* c = detail::current_interrupt_checker) c->poll();
}

}  // namespace sparsebayes
