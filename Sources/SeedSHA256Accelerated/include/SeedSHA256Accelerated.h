#ifndef SEED_SHA256_ACCELERATED_H
#define SEED_SHA256_ACCELERATED_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU has the SHA-256 instructions `seed_sha256_blocks` uses (x86-64 SHA
/// extensions with SSSE3 and SSE4.1). Elsewhere, and on CPUs without them, 0: the caller
/// compresses in Swift.
int seed_sha256_is_accelerated(void);

/// Compresses `count` whole 64-byte blocks at `data` into `state` (SHA-256's eight working words,
/// a to h) with the CPU's SHA-256 instructions. Only call it when `seed_sha256_is_accelerated()`.
void seed_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t count);

#endif
