/* The daemon's side of the undo record (undo.h): taking back what a dead
 * tierd left at start, recording what this one changes before it changes
 * it, and removing the record once everything is put back. Not used with
 * --dry-run (nothing is changed then). */
#ifndef TIERD_DAEMON_UNDO_H
#define TIERD_DAEMON_UNDO_H

struct tierd_daemon;

/* Finds the runtime directory (--runtime-dir, else /run/tierd under --root
 * unless --dry-run), creating it if needed. Returns 0 or -ENAMETOOLONG. */
int tierd_daemon_runtime_dir(struct tierd_daemon *d);

/* Reads the record a previous tierd left in the runtime directory. Returns 0 (a missing or unreadable record is logged, not fatal),
 * or -EBUSY when the tierd that wrote it still runs. */
int tierd_daemon_undo_open(struct tierd_daemon *d);

/* After the kernel settings are set up and before any is written: keeps
 * the originals the previous tierd recorded, and has every first change
 * recorded before it is made. */
void tierd_daemon_undo_settings(struct tierd_daemon *d);

/* Before DAMON starts: turns off the previous tierd's kdamonds, those
 * whose pid proves them its own; leaves any other alone. Each logged. */
void tierd_daemon_undo_kdamonds(struct tierd_daemon *d);

/* Rewrites the record when what tierd holds changed (a setting changed, a
 * kdamond restarted with a new pid). Returns 0 or -errno (logged when it
 * starts and stops failing). */
int tierd_daemon_undo_sync(struct tierd_daemon *d);

/* At exit, after the settings are restored and the kdamonds stopped:
 * removes the record, or keeps what could not be put back in it. */
void tierd_daemon_undo_close(struct tierd_daemon *d);

#endif
