/* real_malloc_address.c — a program that takes the address of malloc and
 * free, as pigz (yarn_mem), node and Debian's /usr/bin/python3 do. Built
 * without -fpic and without PIE (test_real_programs.py does), the reference
 * makes the linker give the executable a canonical PLT entry: its dynamic
 * symbol table lists malloc as undefined with a non-zero value, and
 * dlsym(RTLD_DEFAULT, "malloc") returns that entry, which jumps to the
 * malloc the dynamic linker chose (libgotrace.so's, when it is preloaded).
 * The program has no allocator of its own: traced, its allocations must be
 * recorded, and nothing may say they are not.
 *
 * Prints the sum of what it wrote into 1000 blocks of memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *(*volatile alloc_fn)(size_t);
void (*volatile free_fn)(void *);

int main(void)
{
	alloc_fn = malloc; /* the address of malloc, taken in code */
	free_fn = free;
	unsigned long sum = 0;
	for (int i = 0; i < 1000; i++) {
		unsigned char *p = alloc_fn(64 + i);
		if (!p)
			return 1;
		memset(p, i & 0xff, 64 + i);
		sum += p[i % 64];
		free_fn(p);
	}
	printf("sum %lu\n", sum);
	return 0;
}
