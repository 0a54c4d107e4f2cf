/*
 * mapguard.c — read-only file mappings that outlive their file being cut.
 *
 * A page of a file mapping that lies past the file's end raises SIGBUS on
 * its next read, and SIGBUS kills. A model file truncated in place under
 * a running server (`truncate`, a `cp` over it, a cache cleaner at the
 * packed weights) would take the server down at its next embedding, on
 * whichever thread touched the page first: the caller, a gemm.c worker or
 * an OpenBLAS one. Copying the weights into private memory would cost
 * what mapping them saves (packcache.c), and MAP_PRIVATE does not help:
 * truncation drops private pages of the file too. So the pages are
 * guarded instead, and the loss becomes a state the mapping's owner
 * checks after each use (st.c, packcache.c, model.c).
 *  1. mapguard_add claims one of MAPGUARD_SLOTS slots for [addr, addr +
 *     len rounded up to a page) and keeps a duplicate of the descriptor;
 *     the first call installs the SIGBUS handler, once per process, and
 *     remembers the action that was there.
 *  2. For a fault (BUS_ADRERR) inside a live slot the handler maps zero
 *     pages over the slot from the faulting page to its end — a cut
 *     removes every page past it, and a page before the faulting one
 *     faults on its own — marks the slot lost and returns: the read is
 *     retried and yields zeros, finite floats every kernel takes. Any
 *     other SIGBUS goes to the previous action; by default the process
 *     dies of it as it would have without a guard.
 *  3. A lost slot stays lost (mapguard_intact is false for good): zeros
 *     are not the file, so whatever was computed from the mapping since
 *     the loss is garbage to throw away, and the mapping to drop.
 *  4. mapguard_intact also checks the file's size with fstat: a cut
 *     inside the last page still mapped reads zeros without a fault.
 *  5. The handler reads only the slots' lock-free atomics and calls only
 *     mmap, a system call (async-signal-safe on Linux, though POSIX does
 *     not list it), so it is safe on any thread at any instruction.
 *  6. A slot becomes live only once its range is set, and is cleared
 *     before its owner unmaps: the handler never maps over an address
 *     the range no longer owns. The owner reads a mapping only while it
 *     is guarded, which its own lifetime rules ensure (one user at a
 *     time per model, model.h).
 */
#include "util/os/mapguard.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE };

/*
 * Process-wide by necessity: a signal handler has no argument to carry
 * state in. Every field the handler reads is atomic (invariant 5).
 */
static struct guard_slot {
	atomic_int	 state;
	atomic_uintptr_t lo, hi;	/* page-aligned [lo, hi) */
	atomic_bool	 lost;
	int		 fd;		/* owned: a duplicate */
	size_t		 len;
} slots[MAPGUARD_SLOTS];

static pthread_once_t	 install_once = PTHREAD_ONCE_INIT;
static struct sigaction	 previous;
static uintptr_t	 page_size;
static bool		 installed;

/* Invariant 2: everything not ours goes where it went before us. */
static void
pass_on(int sig, siginfo_t *si, void *uc)
{
	if (previous.sa_flags & SA_SIGINFO) {
		previous.sa_sigaction(sig, si, uc);
		return;
	}
	if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		previous.sa_handler(sig);
		return;
	}
	signal(SIGBUS, SIG_DFL);
	/* a fault repeats when the read is retried; a sent signal does not */
	if (si->si_code <= 0)
		raise(SIGBUS);
}

static void
on_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t	a = (uintptr_t)si->si_addr, lo, hi, at;
	size_t		i;

	for (i = 0; si->si_code == BUS_ADRERR && i < MAPGUARD_SLOTS; i++) {
		if (atomic_load(&slots[i].state) != SLOT_LIVE)
			continue;
		lo = atomic_load(&slots[i].lo);
		hi = atomic_load(&slots[i].hi);
		if (a < lo || a >= hi)
			continue;
		at = a & ~(page_size - 1);
		if (mmap((void *)at, hi - at, PROT_READ, MAP_PRIVATE |
		    MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			break;
		atomic_store(&slots[i].lost, true);
		return;
	}
	pass_on(sig, si, uc);
}

static void
install(void)
{
	struct sigaction	sa;

	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	installed = sigaction(SIGBUS, &sa, &previous) == 0;
}

int
mapguard_add(int fd, const void *addr, size_t len)
{
	struct guard_slot	*s;
	int			 i, want, dup;

	pthread_once(&install_once, install);
	if (!installed || (dup = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return 0;
	for (i = 0; i < MAPGUARD_SLOTS; i++) {
		s = &slots[i];
		want = SLOT_FREE;
		if (!atomic_compare_exchange_strong(&s->state, &want,
		    SLOT_BUSY))
			continue;
		s->fd = dup;
		s->len = len;
		atomic_store(&s->lost, false);
		atomic_store(&s->lo, (uintptr_t)addr);
		atomic_store(&s->hi, ((uintptr_t)addr + len + page_size - 1) &
		    ~(page_size - 1));
		atomic_store(&s->state, SLOT_LIVE);
		return i + 1;
	}
	close(dup);
	return 0;
}

void
mapguard_remove(int guard)
{
	struct guard_slot	*s;

	if (guard <= 0 || guard > MAPGUARD_SLOTS)
		return;
	s = &slots[guard - 1];
	atomic_store(&s->state, SLOT_BUSY);	/* invariant 6 */
	close(s->fd);
	s->fd = -1;
	atomic_store(&s->state, SLOT_FREE);
}

bool
mapguard_intact(int guard)
{
	struct guard_slot	*s;
	struct stat		 sb;

	if (guard <= 0 || guard > MAPGUARD_SLOTS)
		return true;
	s = &slots[guard - 1];
	if (!atomic_load(&s->lost) && (fstat(s->fd, &sb) != 0 ||
	    sb.st_size < 0 || (size_t)sb.st_size < s->len))
		atomic_store(&s->lost, true);
	return !atomic_load(&s->lost);
}
