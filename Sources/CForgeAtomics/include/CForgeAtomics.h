// Atomic operations for ForgeCore's lock-free read path.
//
// Swift's `Synchronization.Atomic` needs macOS 15 / iOS 18 and the package
// supports macOS 13 / iOS 16, so the engine uses the compiler's builtins
// through these inline functions instead. Each works on a plain word that
// Swift allocates and only ever touches through these functions.
#ifndef CFORGEATOMICS_H
#define CFORGEATOMICS_H

#include <stdbool.h>
#include <stdint.h>

static inline void *_Nullable forge_load_acquire(void *_Nullable const *_Nonnull cell) {
  return __atomic_load_n(cell, __ATOMIC_ACQUIRE);
}

// A word that is not a pointer (a key word of a slot table's entry), read
// with acquire: no optional for Swift to unwrap.
static inline uintptr_t forge_load_acquire_word(const uintptr_t *_Nonnull word) {
  return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

static inline void *_Nullable forge_load_seq_cst(void *_Nullable const *_Nonnull cell) {
  return __atomic_load_n(cell, __ATOMIC_SEQ_CST);
}

static inline void forge_store_release(void *_Nullable *_Nonnull cell, void *_Nullable value) {
  __atomic_store_n(cell, value, __ATOMIC_RELEASE);
}

// Lets go of a hazard pointer. A reader ends its hold right after copying
// the instance out of the box, and the copy's retain must happen before the
// store that lets a reclaimer free the box and release the instance.
// Swift's LLVM ARC optimizer moves a retain down past a plain store, atomic
// or not (it cannot release anything); it does not move one past an asm
// statement that may touch memory. The barrier emits no instruction.
static inline void forge_hazard_clear(void *_Nullable *_Nonnull cell) {
  __asm__ __volatile__("" ::: "memory");
  __atomic_store_n(cell, (void *)0, __ATOMIC_RELEASE);
}

static inline void forge_store_seq_cst(void *_Nullable *_Nonnull cell, void *_Nullable value) {
  __atomic_store_n(cell, value, __ATOMIC_SEQ_CST);
}

// Hazard pointers with asymmetric fences. A reader publishes its hazard
// pointer and then reads the cell again; the store must not be reordered
// after that load. Where the kernel offers process-wide barriers
// (membarrier on Linux), the rare reclaimer pays for that ordering with one
// system call that fences every thread of the process, and the reader needs
// only a compiler barrier. Elsewhere the reader's store is sequentially
// consistent. `forge_fences_setup` must run before any reader publishes.
extern int forge_asymmetric_fences;

/// Turns asymmetric fences on when the platform has them; idempotent.
void forge_fences_setup(void);

/// The reclaimer's side: orders every thread's earlier hazard stores before
/// the caller's next loads.
void forge_heavy_fence(void);

static inline void forge_hazard_publish(void *_Nullable *_Nonnull cell, void *_Nullable value) {
  if (__atomic_load_n(&forge_asymmetric_fences, __ATOMIC_RELAXED)) {
    __atomic_store_n(cell, value, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
  } else {
    __atomic_store_n(cell, value, __ATOMIC_SEQ_CST);
  }
}

static inline void *_Nullable forge_exchange_seq_cst(void *_Nullable *_Nonnull cell, void *_Nullable value) {
  return __atomic_exchange_n(cell, value, __ATOMIC_SEQ_CST);
}

// The calling thread's engine state (a ThreadFastState), in a C thread-local:
// reading it is one load, where pthread_getspecific is a call and Swift's
// lazily initialised pthread key adds a swift_once check. ForgeCore sets it
// when it creates the state and clears it in the pthread key destructor that
// releases the state when the thread ends.
//
// On ELF platforms it uses the initial-exec model: the default model for a
// variable another module may define reads it through a call to
// __tls_get_addr, which the linker rewrites into a load but which the
// compiler has already treated as a call, saving registers around it and
// giving every cached hit a stack frame. Initial-exec reads it from the
// thread pointer at a fixed offset. A library loaded with dlopen takes
// this word from the static TLS surplus glibc keeps for such variables.
#if defined(__ELF__)
#define FORGE_THREAD_STATE_TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define FORGE_THREAD_STATE_TLS_MODEL
#endif
extern _Thread_local void *_Nullable forge_thread_state FORGE_THREAD_STATE_TLS_MODEL;

static inline void *_Nullable forge_get_thread_state(void) { return forge_thread_state; }

static inline void forge_set_thread_state(void *_Nullable state) { forge_thread_state = state; }

// Process-wide counters (ForgeCore's Gates), in one static block of their
// own cache lines: a C global is read directly, where a Swift global goes
// through a swift_once check on every access.
extern intptr_t forge_gate_words[16];

static inline intptr_t *_Nonnull forge_gate_word(int index) { return &forge_gate_words[index]; }

static inline intptr_t forge_counter_load(const intptr_t *_Nonnull counter) {
  return __atomic_load_n(counter, __ATOMIC_ACQUIRE);
}

static inline intptr_t forge_counter_add(intptr_t *_Nonnull counter, intptr_t delta) {
  return __atomic_add_fetch(counter, delta, __ATOMIC_SEQ_CST);
}

// Sets `*word` to `desired` if it holds `expected`; whether it did.
static inline bool forge_word_compare_exchange(intptr_t *_Nonnull word, intptr_t expected, intptr_t desired) {
  return __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

static inline void forge_word_store_release(intptr_t *_Nonnull word, intptr_t value) {
  __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

// The Swift runtime's conformance lookup, for failure messages that relate
// a registered type to a requested protocol (ForgeCore's TypeRelation):
// the witness table of `type`'s conformance to the protocol `descriptor`,
// or NULL. Both pointers are runtime metadata. Swift code may not name the
// runtime's symbols itself, so this forwards to it.
const void *_Nullable forge_conforms_to_protocol(const void *_Nonnull type, const void *_Nonnull descriptor);

// Whether the calling task or thread is isolated to the main actor: for a
// synchronous resolution that must know whether it may build a main-actor
// dependency in place. The common answers come without the runtime's full
// check: the calling task runs on the main actor, or no task's executor is
// current and this is the main thread. Never stops the program.
int forge_is_on_main_actor(void);

// Whether the calling thread runs a Swift task (1), or none (0): code
// outside any task has no task-locals of its own to ask.
int forge_runs_in_task(void);

#endif
