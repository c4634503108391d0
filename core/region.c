/* region.c — bump allocation over mmap'd blocks. */
#include "region.h"
#include "ownmaps.h"
#include "sys.h"

#include <stdint.h>
#include <sys/mman.h>

#define BLOCK_SIZE (1u << 20)

struct gt_region_block {
	struct gt_region_block *next;
	size_t size; /* bytes of the mapping, this header included */
	size_t used;
};

void *gt_map(size_t n)
{
	void *p = gt_sys_mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	gt_ownmaps_add(p, n);
	return p;
}

void gt_unmap(void *p, size_t n)
{
	if (p) {
		gt_ownmaps_del(p);
		gt_sys_munmap(p, n);
	}
}

void *gt_region_alloc(struct gt_region *r, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	struct gt_region_block *b = r->head;
	size_t hdr = (sizeof *b + 15) & ~(size_t)15;
	if (!b || b->used + n > b->size) {
		size_t size = n + hdr > BLOCK_SIZE ? ((n + hdr + 4095) & ~(size_t)4095) : BLOCK_SIZE;
		struct gt_region_block *nb = gt_map(size);
		if (!nb)
			return NULL;
		nb->size = size;
		nb->used = hdr;
		nb->next = b;
		r->head = b = nb;
	}
	void *p = (char *)b + b->used;
	b->used += n;
	return p;
}

void gt_region_reset(struct gt_region *r)
{
	struct gt_region_block *b = r->head, *keep = NULL;
	while (b) {
		struct gt_region_block *next = b->next;
		if (!next && b->size == BLOCK_SIZE) {
			keep = b;
		} else {
			gt_unmap(b, b->size);
		}
		b = next;
	}
	if (keep) {
		keep->used = (sizeof *keep + 15) & ~(size_t)15;
		keep->next = NULL;
	}
	r->head = keep;
}
