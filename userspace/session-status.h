/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmsvt-session's status file, one per session in a folder (by default
 * /run/kmsvt-session/NAME), rewritten after every enable; kmsvt-switch
 * reads it to find the session on a VT and its first frame.  Lines of
 * "key value":
 *
 *   name NAME           the session's name
 *   pid N               its process
 *   vt N                the VT it was on at the enable
 *   enables N           enables so far
 *   enable_ms T         CLOCK_MONOTONIC of the last enable, in ms
 *   first_frame_ms T    of the first frame shown after it (a page-flip
 *                       event's time), 0 until there is one
 *
 * Header-only: the writer and the reader are one file each.
 */
#ifndef KMSVT_SESSION_STATUS_H
#define KMSVT_SESSION_STATUS_H

#include <stdio.h>
#include <string.h>

struct session_status {
	char name[64];
	int pid;
	int vt;
	unsigned long enables;
	double enable_ms;
	double first_frame_ms;
};

static inline void session_status_write(FILE *f, const struct session_status *st)
{
	fprintf(f, "name %s\npid %d\nvt %d\nenables %lu\nenable_ms %.3f\nfirst_frame_ms %.3f\n",
		st->name, st->pid, st->vt, st->enables, st->enable_ms, st->first_frame_ms);
}

/* Parse a status file; 0 when it named a session. */
static inline int session_status_read(FILE *f, struct session_status *st)
{
	char line[256];

	memset(st, 0, sizeof(*st));
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "name %63s", st->name);
		sscanf(line, "pid %d", &st->pid);
		sscanf(line, "vt %d", &st->vt);
		sscanf(line, "enables %lu", &st->enables);
		sscanf(line, "enable_ms %lf", &st->enable_ms);
		sscanf(line, "first_frame_ms %lf", &st->first_frame_ms);
	}
	return st->name[0] ? 0 : -1;
}

#endif /* KMSVT_SESSION_STATUS_H */
