// The inline atomics are in include/CForgeAtomics.h; this file holds the
// thread-local state pointer and the process-wide fence set-up behind
// forge_hazard_publish.
#include "CForgeAtomics.h"

#if defined(__linux__)
#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

int forge_asymmetric_fences = 0;
_Thread_local void *forge_thread_state = 0;
__attribute__((aligned(128))) intptr_t forge_gate_words[16];

#if defined(__linux__)
static pthread_once_t forge_fences_once = PTHREAD_ONCE_INIT;

static void forge_fences_register(void) {
  long supported = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  if (supported < 0 || !(supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED)) return;
  if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0) return;
  __atomic_store_n(&forge_asymmetric_fences, 1, __ATOMIC_SEQ_CST);
}
#endif

void forge_fences_setup(void) {
#if defined(__linux__)
  pthread_once(&forge_fences_once, forge_fences_register);
#endif
}

void forge_heavy_fence(void) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#if defined(__linux__)
  if (__atomic_load_n(&forge_asymmetric_fences, __ATOMIC_SEQ_CST)) {
    // Registration succeeded, so the command cannot fail but with a bug.
    syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
  }
#endif
}

// Part of the Swift runtime's stable ABI (swift/Runtime/Metadata.h).
extern const void *swift_conformsToProtocol(const void *type, const void *protocol);

const void *forge_conforms_to_protocol(const void *type, const void *descriptor) {
  return swift_conformsToProtocol(type, descriptor);
}

#if defined(__APPLE__)
#include <pthread.h>
static int forge_is_main_thread(void) { return pthread_main_np() == 1; }
#elif defined(__linux__)
// The main thread's id is the process id.
static int forge_is_main_thread(void) { return syscall(SYS_gettid) == getpid(); }
#else
static int forge_is_main_thread(void) { return 0; }
#endif

// Part of the Swift concurrency runtime (swift/Runtime/Concurrency.h), in
// the Swift calling convention: whether the calling task or thread is
// isolated to the executor whose two words are given. Flags 0 asks without
// asserting (the runtime's plain swift_task_isCurrentExecutor may stop the
// program instead of answering). Weak: a runtime without it falls back to
// asking whether this is the main thread.
extern _Bool swift_task_isCurrentExecutorWithFlags(void *identity, uintptr_t implementation, uint64_t flags)
    __attribute__((swiftcall)) __attribute__((weak));

int forge_is_current_executor(void *identity, uintptr_t implementation) {
  if (swift_task_isCurrentExecutorWithFlags == 0) return forge_is_main_thread();
  return swift_task_isCurrentExecutorWithFlags(identity, implementation, 0);
}
