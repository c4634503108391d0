/* readpos.h — how far a process, or one it started, has read a file: the
 * position of its descriptor for that file (/proc/PID/fdinfo), so `gotrace
 * view` can show the progress of a `go tool trace` that reads a trace. */
#ifndef TOOLS_READPOS_H
#define TOOLS_READPOS_H

#include <stdint.h>
#include <sys/types.h>

/* tool_read_position returns the largest position of a descriptor open on
 * the file (device dev, inode ino) in root or any of its descendants, or -1
 * when none has it open. */
int64_t tool_read_position(pid_t root, dev_t dev, ino_t ino);

#endif
