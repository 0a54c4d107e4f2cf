/*
 * hugemap.c — read-only file mappings in 2 MB pages.
 *
 * Where the page cache holds a file in 2 MB folios (Linux 6.x with
 * transparent huge pages; hub.c evicts a fresh download so that the next
 * read builds them), a mapping that starts on a 2 MB boundary with
 * MADV_HUGEPAGE maps each 2 MB with one page-table entry. First touches
 * of 4 KB pages cost ~5 us each on a virtual machine: 85 MB of bge-small
 * layers took 120-300 ms to touch in 4 KB pages, 10-17 ms in 2 MB ones.
 * Elsewhere the advice is a no-op and the mapping an ordinary one.
 */
#include "util/os/hugemap.h"
#include "util/os/plat.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

void *
hugemap_file(int fd, size_t size)
{
	size_t	 page = (size_t)sysconf(_SC_PAGESIZE);
	size_t	 span = size + HUGEMAP_PAGE, used;
	char	*res, *at;

	/* reserve a span that surely holds an aligned start, then trim it */
	res = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED)
		return MAP_FAILED;
	at = (char *)(((uintptr_t)res + HUGEMAP_PAGE - 1) &
	    ~(uintptr_t)(HUGEMAP_PAGE - 1));
	if (mmap(at, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) ==
	    MAP_FAILED) {
		munmap(res, span);
		return MAP_FAILED;
	}
	used = (size + page - 1) / page * page;
	if (at > res)
		munmap(res, (size_t)(at - res));
	if (res + span > at + used)
		munmap(at + used, (size_t)(res + span - (at + used)));
	plat_hugepage(at, size);
	return at;
}
