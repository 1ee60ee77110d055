// Atomic operations for ForgeCore's lock-free read path.
//
// Swift's `Synchronization.Atomic` needs macOS 15 / iOS 18 and the package
// supports macOS 13 / iOS 16, so the engine uses the compiler's builtins
// through these inline functions instead. Each works on a plain word that
// Swift allocates and only ever touches through these functions.
#ifndef CFORGEATOMICS_H
#define CFORGEATOMICS_H

#include <stdint.h>

static inline void *_Nullable forge_load_acquire(void *_Nullable const *_Nonnull cell) {
  return __atomic_load_n(cell, __ATOMIC_ACQUIRE);
}

static inline void *_Nullable forge_load_seq_cst(void *_Nullable const *_Nonnull cell) {
  return __atomic_load_n(cell, __ATOMIC_SEQ_CST);
}

static inline void forge_store_release(void *_Nullable *_Nonnull cell, void *_Nullable value) {
  __atomic_store_n(cell, value, __ATOMIC_RELEASE);
}

static inline void forge_store_seq_cst(void *_Nullable *_Nonnull cell, void *_Nullable value) {
  __atomic_store_n(cell, value, __ATOMIC_SEQ_CST);
}

static inline void *_Nullable forge_exchange_seq_cst(void *_Nullable *_Nonnull cell, void *_Nullable value) {
  return __atomic_exchange_n(cell, value, __ATOMIC_SEQ_CST);
}

static inline intptr_t forge_counter_load(const intptr_t *_Nonnull counter) {
  return __atomic_load_n(counter, __ATOMIC_ACQUIRE);
}

static inline intptr_t forge_counter_add(intptr_t *_Nonnull counter, intptr_t delta) {
  return __atomic_add_fetch(counter, delta, __ATOMIC_SEQ_CST);
}

#endif
