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

// Hazard pointers, and the fence that orders a reader's hazard store before
// its next load of the cell. Which side pays for it is decided when the
// library is compiled, so that a read tests no flag:
//
// - x86_64 Linux: the reader's store is a plain store (a seq_cst store
//   would be an `xchg`, a full fence on every read). The rare reclaimer
//   fences every thread of the process instead: with `membarrier` where the
//   kernel offers it, else by taking write access away from a page of its
//   own, which makes the kernel interrupt every processor running the
//   process to flush its TLB (an interrupt orders a processor's stores).
//   `forge_fences_setup` must run before any reader publishes.
// - elsewhere: the reader's store is sequentially consistent. On arm64 that
//   is a store-release (`stlr`), which a later load-acquire (`ldar`) of the
//   cell cannot pass, so the reader still needs no fence instruction; and
//   arm64 flushes TLBs by broadcast, without interrupts, so the page trick
//   would not fence there.
#if defined(__linux__) && defined(__x86_64__)
#define FORGE_READER_STORE_IS_PLAIN 1
#else
#define FORGE_READER_STORE_IS_PLAIN 0
#endif

/// Prepares the reclaimer's fence (x86_64 Linux: `membarrier`, or the page
/// it protects when the kernel refuses it); idempotent.
void forge_fences_setup(void);

/// The reclaimer's side: orders every thread's earlier hazard stores before
/// the caller's next loads. Returns 0 when it cannot (x86_64 Linux with
/// neither `membarrier` nor a page to protect): the caller must then treat
/// every retired box as still held.
int forge_heavy_fence(void);

/// Which fence ``forge_heavy_fence`` uses: 0 the processor's own (readers
/// store with seq_cst), 1 `membarrier`, 2 a page's protection, -1 none
/// (x86_64 Linux, both refused). For tests and diagnostics.
int forge_heavy_fence_kind(void);

/// For tests, before anything reads: uses the page's protection even where
/// `membarrier` works, so that the fallback runs. Returns whether it could.
int forge_fences_use_page_for_testing(void);

static inline void forge_hazard_publish(void *_Nullable *_Nonnull cell, void *_Nullable value) {
#if FORGE_READER_STORE_IS_PLAIN
  __atomic_store_n(cell, value, __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
#else
  __atomic_store_n(cell, value, __ATOMIC_SEQ_CST);
#endif
}

// A thread's read counter: odd while the thread reads a published
// instance (from forge_read_begin to forge_read_exit). Only the owning
// thread writes it; a reclaimer that finds it odd after its fence waits
// until it changes (ForgeCore's ThreadRecords). The counter's store comes
// before the reader's load of the cell, so the reader needs no second load
// of the cell to check it, as it would after publishing a hazard pointer
// (which it can only publish once it has loaded the box). The store is
// ordered as forge_hazard_publish's.

// Ends a read's count: the counter made even again, after every load of
// the read (release). It reads the counter again, which x86 folds with the
// store into one `inc`.
static inline void forge_read_counter_step(uintptr_t *_Nonnull reads) {
  __atomic_store_n(reads, __atomic_load_n(reads, __ATOMIC_RELAXED) + 1, __ATOMIC_RELEASE);
}

// Starts a read section: the counter made odd, before any load of the
// section (a slot table's words, an instance's cell). Ends with
// forge_read_exit, or forge_read_load's null.
static inline void forge_read_enter(uintptr_t *_Nonnull reads) {
#if FORGE_READER_STORE_IS_PLAIN
  __atomic_store_n(reads, __atomic_load_n(reads, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
#else
  __atomic_store_n(reads, __atomic_load_n(reads, __ATOMIC_RELAXED) + 1, __ATOMIC_SEQ_CST);
#endif
}

// Inside a section forge_read_enter started: the box published in `cell`,
// with the section still open until forge_read_exit, or null (nothing
// published) with the section ended.
static inline void *_Nullable forge_read_load(uintptr_t *_Nonnull reads, void *_Nullable const *_Nonnull cell) {
  void *box = __atomic_load_n(cell, __ATOMIC_SEQ_CST);
  // Nothing was copied: the counter's step, with no barrier.
  if (!box) forge_read_counter_step(reads);
  return box;
}

// Starts a read of the box published in `cell`: the box, with the counter
// left odd until forge_read_exit, or null (nothing published) with the
// counter even again. One call, for Swift to weigh when it decides whether
// to inline a hit.
static inline void *_Nullable forge_read_begin(uintptr_t *_Nonnull reads, void *_Nullable const *_Nonnull cell) {
  forge_read_enter(reads);
  return forge_read_load(reads, cell);
}

// Ends the read forge_read_begin started. The barrier keeps the copy's
// retain before the store, as in forge_hazard_clear.
static inline void forge_read_exit(uintptr_t *_Nonnull reads) {
  __asm__ __volatile__("" ::: "memory");
  forge_read_counter_step(reads);
}

// Gives the processor to another thread: a reclaimer waiting for a reader
// to finish its read.
void forge_yield(void);

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
extern _Thread_local void *_Nonnull forge_thread_state FORGE_THREAD_STATE_TLS_MODEL;

// What the thread-local holds while the thread has no state of its own (its
// initial value, and again once the state is released): read-only bytes
// whose first, where a state keeps its `skipsFastReads` flag, is set. The
// read path's one test of that byte then sends such a thread to the locked
// path, which makes its state; no read tests for a null pointer.
extern const unsigned char forge_unmade_thread_state[64];

// The thread-local as the read path reads it: the thread's state, or the
// placeholder above. Only the first byte may be read before it is tested.
static inline void *_Nonnull forge_thread_state_for_read(void) { return forge_thread_state; }

// Whether `state`, read with forge_thread_state_for_read, is a thread's
// own state and not the placeholder: one comparison, where a null pointer
// for the placeholder would cost the caller a second one.
static inline bool forge_thread_state_is_made(const void *_Nonnull state) {
  return state != (const void *)forge_unmade_thread_state;
}

// The two flags a hit tests in one load, from the state (or placeholder)
// forge_thread_state_for_read gave: the first byte is the thread's own
// `skipsFastReads`, the second the mirror of the scope gate that other
// threads write into every thread's state (forge_set_scope_gate_mirror).
// A volatile load, as forge_scope_gate_peek's, which the compiler folds
// into the test that uses it (an atomic one it keeps apart: a load, then a
// test); an aligned half-word's load is one instruction on every platform
// Swift runs on, and the hit needs no order from it. Under
// ThreadSanitizer, which would call a volatile load beside another
// thread's atomic store a race, an atomic load.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FORGE_FAST_READ_FLAGS_ATOMIC 1
#endif
#endif
static inline uint16_t forge_fast_read_flags(const void *_Nonnull state) {
#if defined(FORGE_FAST_READ_FLAGS_ATOMIC)
  return __atomic_load_n((const uint16_t *)state, __ATOMIC_RELAXED);
#else
  return *(const volatile uint16_t *)state;
#endif
}

// What forge_fast_read_flags reads when only the gate's mirror is set.
static inline uint16_t forge_scope_gate_flag(void) {
  union { uint8_t bytes[2]; uint16_t word; } flag = {{0, 1}};
  return flag.word;
}

// Sets or clears the scope gate's mirror in a thread's state (its second
// byte); from any thread, while the state's thread cannot end.
static inline void forge_set_scope_gate_mirror(void *_Nonnull state, bool raised) {
  __atomic_store_n((uint8_t *)state + 1, (uint8_t)(raised ? 1 : 0), __ATOMIC_RELAXED);
}

// Sets the calling thread's state; null puts the placeholder back.
static inline void forge_set_thread_state(void *_Nullable state) {
  forge_thread_state = state ? state : (void *)forge_unmade_thread_state;
}

// A slot table with no entries (ForgeCore's `SlotTable.closed`): what a
// store's fast table cell holds while the store is on its general path or
// has no table yet, so that a hit finds no entry without testing for a
// null table. Read-only; never freed.
extern const uintptr_t forge_closed_slot_table[8 + 2 * 8];

static inline void *_Nonnull forge_closed_slot_table_address(void) { return (void *)forge_closed_slot_table; }

// Process-wide counters (ForgeCore's Gates), in one static block of their
// own cache lines: a C global is read directly, where a Swift global goes
// through a swift_once check on every access.
extern intptr_t forge_gate_words[16];

static inline intptr_t *_Nonnull forge_gate_word(int index) { return &forge_gate_words[index]; }

// The first gate word (ForgeCore's `Gates.activeOverrideScopes`) as a hit
// reads it: a volatile load, which the compiler folds into the comparison
// that uses it, where it keeps an atomic load apart (a load, then a test).
// An aligned word's load is one instruction on every platform Swift runs
// on; the hit needs no order from it (see `Gates.isDown`).
static inline intptr_t forge_scope_gate_peek(void) { return *(volatile intptr_t *)&forge_gate_words[0]; }

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

// Where the value the calling task binds to the task-local `key` (the
// TaskLocal object) is stored: null when nothing binds it (the
// task-local's default applies), and FORGE_TASK_LOCALS_UNAVAILABLE (the
// address 1, never a value's) when the runtime does not offer the lookup.
// Swift's own `TaskLocal.get()` is generic code that copies the value out
// through its type's value witnesses; a caller whose value is one class
// reference loads it in place instead. The address is returned, not
// written through a pointer: a pointer to the caller's local would cost
// the caller a stack-protector check.
void *_Nullable forge_task_local_address(const void *_Nonnull key);
#define FORGE_TASK_LOCALS_UNAVAILABLE ((uintptr_t)1)

// Whether the calling thread runs a Swift task (1), or none (0): code
// outside any task has no task-locals of its own to ask.
int forge_runs_in_task(void);

#endif
