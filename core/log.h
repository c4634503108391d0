/* log.h — one-line warnings on stderr, safe in any context the tracer runs
 * in (a stack buffer and write(2); errno preserved; never malloc). */
#ifndef GT_LOG_H
#define GT_LOG_H

/* gt_warn prints "gotrace: <message>\n" on stderr. */
void gt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* gt_warn_line is gt_warn for an already formatted line (config warnings). */
void gt_warn_line(const char *line);

/* gt_log_private_table: the calling thread's descriptor table is not the
 * program's (the flusher): warnings find the program's stderr another way. */
void gt_log_private_table(void);

#endif
