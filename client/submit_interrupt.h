/*
 * submit_interrupt.h - what satin-submit says when it is interrupted
 * (SIGINT, SIGTERM) while a job it submitted runs on: the job keeps
 * running, so its id must not be lost with the process.
 */
#ifndef SATIN_SUBMIT_INTERRUPT_H
#define SATIN_SUBMIT_INTERRUPT_H

/* From now on SIGINT and SIGTERM write the notice last given to
 * submit_interrupt_set() (nothing before the first) and end the process
 * by that signal, as if it had not been caught. */
void submit_interrupt_arm(void);

/* The notice: `err_text` for stderr, `out_text` for stdout (NULL: none).
 * Copied (each cut at 1 KiB); safe to call while armed. */
void submit_interrupt_set(const char *err_text, const char *out_text);

/* Back to the default actions; the notice is forgotten. */
void submit_interrupt_disarm(void);

#endif
