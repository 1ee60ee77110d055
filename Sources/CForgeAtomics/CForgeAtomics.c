// The inline atomics are in include/CForgeAtomics.h; this file holds the
// thread-local state pointer and the process-wide fence set-up behind
// forge_hazard_publish.
#include "CForgeAtomics.h"

#include <sched.h>
#include <stdatomic.h>

#if defined(__linux__)
#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

__attribute__((aligned(64))) const unsigned char forge_unmade_thread_state[64] = {1};
_Thread_local void *forge_thread_state FORGE_THREAD_STATE_TLS_MODEL = (void *)forge_unmade_thread_state;
__attribute__((aligned(128))) intptr_t forge_gate_words[16];
// Two empty entries of up to eight words after the header's eight: a shift
// of 63 takes every hash to entry 0 or 1, the mask 1 keeps a probe there.
__attribute__((aligned(64))) const uintptr_t forge_closed_slot_table[8 + 2 * 8] = {63, 1};

#if FORGE_READER_STORE_IS_PLAIN
// Which fence the reclaimer uses (forge_heavy_fence_kind), decided once.
static pthread_once_t forge_fences_once = PTHREAD_ONCE_INIT;
static int forge_fence_kind = -1;
static int forge_fence_page_forced = 0;
// The page whose protection the fallback changes, and the lock that keeps
// two reclaimers from changing it at once.
static volatile char *forge_fence_page = 0;
static long forge_fence_page_size = 0;
static pthread_mutex_t forge_fence_page_lock = PTHREAD_MUTEX_INITIALIZER;

static int forge_membarrier_register(void) {
  long supported = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  if (supported < 0 || !(supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED)) return 0;
  return syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

static int forge_fence_page_make(void) {
  long size = sysconf(_SC_PAGESIZE);
  if (size <= 0) return 0;
  void *page = mmap(0, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return 0;
  // Resident, so that every change of its protection has a mapping to
  // flush; a refusal (a low RLIMIT_MEMLOCK) only costs a page fault later.
  (void)mlock(page, (size_t)size);
  forge_fence_page = (volatile char *)page;
  forge_fence_page_size = size;
  forge_fence_page[0] = 1;
  return 1;
}

static void forge_fences_register(void) {
  if (!__atomic_load_n(&forge_fence_page_forced, __ATOMIC_RELAXED) && forge_membarrier_register()) {
    forge_fence_kind = 1;
  } else if (forge_fence_page_make()) {
    forge_fence_kind = 2;
  }
}

// Takes write access away from a page this thread just wrote: the kernel
// must then flush the page's TLB entry on every processor that may cache
// it, every one running a thread of this process, and does so by
// interrupting them; a processor finishes its stores before it takes an
// interrupt. A thread that is not running was switched out, which orders
// its stores too.
static int forge_fence_by_page(void) {
  pthread_mutex_lock(&forge_fence_page_lock);
  int done = mprotect((void *)forge_fence_page, (size_t)forge_fence_page_size, PROT_READ | PROT_WRITE) == 0;
  if (done) {
    // Dirty and present in this processor's TLB before it is protected.
    forge_fence_page[0] = (char)(forge_fence_page[0] + 1);
    done = mprotect((void *)forge_fence_page, (size_t)forge_fence_page_size, PROT_READ) == 0;
  }
  pthread_mutex_unlock(&forge_fence_page_lock);
  return done;
}
#endif

void forge_fences_setup(void) {
#if FORGE_READER_STORE_IS_PLAIN
  pthread_once(&forge_fences_once, forge_fences_register);
#endif
}

int forge_heavy_fence_kind(void) {
#if FORGE_READER_STORE_IS_PLAIN
  forge_fences_setup();
  return forge_fence_kind;
#else
  return 0;
#endif
}

int forge_fences_use_page_for_testing(void) {
#if FORGE_READER_STORE_IS_PLAIN
  __atomic_store_n(&forge_fence_page_forced, 1, __ATOMIC_RELAXED);
  return forge_heavy_fence_kind() == 2;
#else
  return 0;
#endif
}

int forge_heavy_fence(void) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#if FORGE_READER_STORE_IS_PLAIN
  switch (forge_heavy_fence_kind()) {
  case 1:
    // Registration succeeded, so the command cannot fail but with a bug.
    return syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0;
  case 2:
    return forge_fence_by_page();
  default:
    return 0;
  }
#else
  return 1;
#endif
}

// Part of the Swift runtime's stable ABI (swift/Runtime/Metadata.h).
extern const void *swift_conformsToProtocol(const void *type, const void *protocol);

const void *forge_conforms_to_protocol(const void *type, const void *descriptor) {
  return swift_conformsToProtocol(type, descriptor);
}

#if defined(__APPLE__)
#include <pthread.h>
static int forge_is_main_thread_uncached(void) { return pthread_main_np() == 1; }
#elif defined(__linux__)
// The main thread's id is the process id.
static int forge_is_main_thread_uncached(void) { return syscall(SYS_gettid) == getpid(); }
#else
static int forge_is_main_thread_uncached(void) { return 0; }
#endif

// Whether the calling thread is the process's main thread: a fact that
// never changes for a thread, asked once per thread (0: not asked yet).
static _Thread_local int forge_main_thread_answer = 0;

static int forge_is_main_thread(void) {
  if (forge_main_thread_answer == 0) forge_main_thread_answer = forge_is_main_thread_uncached() ? 1 : 2;
  return forge_main_thread_answer == 1;
}

// An executor as the Swift runtime passes it: its identity and the word
// that says how to run jobs on it (swift/ABI/Executor.h, two words).
struct forge_executor_ref {
  void *identity;
  uintptr_t implementation;
};

// Part of the Swift concurrency runtime (swift/Runtime/Concurrency.h), in
// the Swift calling convention. Weak: a runtime without them falls back to
// asking whether this is the main thread.
//
// swift_task_isCurrentExecutorWithFlags: whether the calling task or thread
// is isolated to the executor whose two words are given. Flags 0 asks
// without asserting (the runtime's plain swift_task_isCurrentExecutor may
// stop the program instead of answering).
extern _Bool swift_task_isCurrentExecutorWithFlags(void *identity, uintptr_t implementation, uint64_t flags)
    __attribute__((swiftcall)) __attribute__((weak));
// The executor the calling task runs on (a null identity: none, or the
// global concurrent executor), and the main actor's.
extern struct forge_executor_ref swift_task_getCurrentExecutor(void) __attribute__((swiftcall)) __attribute__((weak));
extern struct forge_executor_ref swift_task_getMainExecutor(void) __attribute__((swiftcall)) __attribute__((weak));

// The main actor's executor, asked of the runtime once: it is made once,
// before any code runs on it, and never replaced. Two threads that ask first
// at once store the same two words.
static void *_Atomic forge_main_identity = 0;
static _Atomic uintptr_t forge_main_implementation = 0;

static struct forge_executor_ref forge_main_executor(void) {
  struct forge_executor_ref main;
  main.identity = atomic_load_explicit(&forge_main_identity, memory_order_acquire);
  if (main.identity != 0) {
    main.implementation = atomic_load_explicit(&forge_main_implementation, memory_order_relaxed);
    return main;
  }
  main = swift_task_getMainExecutor();
  atomic_store_explicit(&forge_main_implementation, main.implementation, memory_order_relaxed);
  atomic_store_explicit(&forge_main_identity, main.identity, memory_order_release);
  return main;
}

// The task the calling thread runs, or null outside any task.
extern void *swift_task_getCurrent(void) __attribute__((swiftcall)) __attribute__((weak));

int forge_runs_in_task(void) {
  // Without the runtime's answer, assume a task: the caller then asks its
  // task-locals, which answer for threads outside any task too.
  if (swift_task_getCurrent == 0) return 1;
  return swift_task_getCurrent() != 0;
}

int forge_is_on_main_actor(void) {
  if (swift_task_getCurrentExecutor == 0 || swift_task_getMainExecutor == 0 || swift_task_isCurrentExecutorWithFlags == 0)
    return forge_is_main_thread();
  struct forge_executor_ref main = forge_main_executor();
  struct forge_executor_ref current = swift_task_getCurrentExecutor();
  // The two cases the runtime's full check answers first, asked cheaply: a
  // task running on the main actor's executor, and code outside any task
  // (or in one without an executor of its own) on the main thread, which
  // the runtime counts as the main actor's. Anything else (a custom
  // executor that may be the main actor's, a dispatch queue) gets the full
  // check.
  if (main.identity != 0 && current.identity == main.identity) return 1;
  if (current.identity == 0 && forge_is_main_thread()) return 1;
  return swift_task_isCurrentExecutorWithFlags(main.identity, main.implementation, 0);
}

// The address of the value the calling task (or thread, outside any task)
// binds to the task-local whose key is `key` (the TaskLocal object), or
// null when nothing binds it.
extern void *swift_task_localValueGet(const void *key) __attribute__((swiftcall)) __attribute__((weak));

void *forge_task_local_address(const void *key) {
  if (swift_task_localValueGet == 0) return (void *)FORGE_TASK_LOCALS_UNAVAILABLE;
  return swift_task_localValueGet(key);
}

void forge_yield(void) { sched_yield(); }
