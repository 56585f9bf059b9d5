#pragma once
// IRLITE_MULTIVERSION and IRLITE_INLINE: a function compiled once per x86-64 level, the clone
// the CPU runs picked at start-up (kernels/simd.hpp says how the hot loops use them).

// Not under ThreadSanitizer: the clone-picking resolvers run while the program is relocated,
// before the sanitizer's runtime is up, and its instrumentation of them crashes.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(__SANITIZE_THREAD__)
#define IRLITE_MULTIVERSION \
  __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define IRLITE_MULTIVERSION
#endif

#define IRLITE_INLINE inline __attribute__((always_inline))
