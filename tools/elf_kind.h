/* elf_kind.h — tells whether an executable is statically linked (elf_kind.c). */
#ifndef TOOLS_ELF_KIND_H
#define TOOLS_ELF_KIND_H

/* tool_elf_is_static returns 1 when path is an ELF executable that the dynamic
 * loader never handles (static, or static-pie), so LD_PRELOAD has no effect;
 * 0 for dynamic executables, scripts, other files and unreadable files. */
int tool_elf_is_static(const char *path);

#endif
