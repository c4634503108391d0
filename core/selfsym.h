/* selfsym.h — the library's own functions by name.
 *
 * A wrapper names itself in every stack it records (the leaf frame:
 * "malloc ← your_function"). Taking the address of an exported function
 * gives its canonical address, and when the program's executable is not
 * position-independent and takes the address of, say, malloc (node passes
 * it to OpenSSL), that canonical address is the executable's PLT stub, which
 * symbolizes as the executable's _init. gt_own_fn finds the library's own
 * definition instead, in the library's dynamic symbol table (read from
 * memory: no lock, no system call). */
#ifndef GT_SELFSYM_H
#define GT_SELFSYM_H

#include <link.h>
#include <stdint.h>

/* gt_selfsym_init: the library's own entry of dl_iterate_phdr. */
void gt_selfsym_init(const struct dl_phdr_info *info);

/* gt_own_fn returns addr if it lies in this library, else the address of
 * this library's definition of name, else addr. */
uintptr_t gt_own_fn(uintptr_t addr, const char *name);

#endif
