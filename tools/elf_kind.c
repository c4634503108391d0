/* elf_kind.c — tells whether an executable is statically linked (LD_PRELOAD cannot reach it). */
#include <elf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "tools/elf_kind.h"

/* One program header or dynamic entry, whatever the ELF class. */
struct phdr {
	uint32_t type;
	uint64_t offset, filesz;
};

static bool read_at(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

static bool host_is_little_endian(void)
{
	const uint16_t one = 1;
	return *(const uint8_t *)&one == 1;
}

static bool read_phdr(int fd, bool is64, uint64_t off, struct phdr *p)
{
	if (is64) {
		Elf64_Phdr h;
		if (!read_at(fd, &h, sizeof h, off))
			return false;
		*p = (struct phdr){ h.p_type, h.p_offset, h.p_filesz };
	} else {
		Elf32_Phdr h;
		if (!read_at(fd, &h, sizeof h, off))
			return false;
		*p = (struct phdr){ h.p_type, h.p_offset, h.p_filesz };
	}
	return true;
}

/* dynamic_says_pie reports DF_1_PIE in the dynamic section: a static-pie
 * executable has one; the dynamic loader itself (also without PT_INTERP,
 * and fine to preload into) does not. */
static bool dynamic_says_pie(int fd, bool is64, const struct phdr *dyn)
{
	size_t entsz = is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	for (uint64_t off = 0; off + entsz <= dyn->filesz && off < (1u << 20); off += entsz) {
		uint64_t tag, val;
		if (is64) {
			Elf64_Dyn d;
			if (!read_at(fd, &d, sizeof d, dyn->offset + off))
				return false;
			tag = (uint64_t)d.d_tag;
			val = d.d_un.d_val;
		} else {
			Elf32_Dyn d;
			if (!read_at(fd, &d, sizeof d, dyn->offset + off))
				return false;
			tag = (uint64_t)(uint32_t)d.d_tag;
			val = d.d_un.d_val;
		}
		if (tag == DT_NULL)
			break;
		if (tag == DT_FLAGS_1)
			return (val & DF_1_PIE) != 0;
	}
	return false;
}

int tool_elf_is_static(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;

	int result = 0;
	unsigned char ident[EI_NIDENT];
	if (!read_at(fd, ident, sizeof ident, 0) || memcmp(ident, ELFMAG, SELFMAG) != 0)
		goto out; /* a script or something else: exec decides */
	/* A foreign byte order cannot run here anyway; let exec say so. */
	if (ident[EI_DATA] != (host_is_little_endian() ? ELFDATA2LSB : ELFDATA2MSB))
		goto out;

	bool is64 = ident[EI_CLASS] == ELFCLASS64;
	uint64_t phoff, phnum, phentsize;
	uint16_t type;
	if (is64) {
		Elf64_Ehdr e;
		if (!read_at(fd, &e, sizeof e, 0))
			goto out;
		type = e.e_type, phoff = e.e_phoff, phnum = e.e_phnum, phentsize = e.e_phentsize;
	} else if (ident[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr e;
		if (!read_at(fd, &e, sizeof e, 0))
			goto out;
		type = e.e_type, phoff = e.e_phoff, phnum = e.e_phnum, phentsize = e.e_phentsize;
	} else {
		goto out;
	}
	if ((type != ET_EXEC && type != ET_DYN) || phnum == 0 || phentsize == 0)
		goto out;

	bool has_dynamic = false;
	struct phdr dyn = { 0 };
	for (uint64_t i = 0; i < phnum; i++) {
		struct phdr p;
		if (!read_phdr(fd, is64, phoff + i * phentsize, &p))
			goto out;
		if (p.type == PT_INTERP)
			goto out; /* the dynamic loader runs it: LD_PRELOAD works */
		if (p.type == PT_DYNAMIC) {
			has_dynamic = true;
			dyn = p;
		}
	}
	result = !has_dynamic || dynamic_says_pie(fd, is64, &dyn);
out:
	close(fd);
	return result;
}
