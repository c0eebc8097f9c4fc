/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmsvt-test: exercise a KMS driver through the standard ioctls only
 * (atomic, page flip events, vblank waits, GEM auth, PRIME, bad input,
 * buffers beyond VRAM, clients taking turns, what a non-master may not
 * do).  One file a group of checks; common.c has what the groups share,
 * main.c finds the display pipe and holds the group table.
 *
 * Prints one line a check, "ok NAME[: detail]" or "not ok NAME: detail",
 * diagnostics on "# " lines, and last "N passed, N failed"; exits 1 if a
 * check failed.  Needs to be DRM master (the first opener of the card) and
 * root for the auth and perm groups (they drop CAP_SYS_ADMIN for a moment:
 * to open an unauthenticated file, to ask for a handle).  Nothing is restored at exit: the kernel's fbdev
 * client takes the display back when the master closes.
 */
#ifndef KMSVT_TEST_H
#define KMSVT_TEST_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/dma-buf.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "kms-util.h"

#define MAX_FLIPS 10000
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct props {
	uint32_t crtc_mode_id, crtc_active, conn_crtc_id;
	uint32_t fb_id, crtc_id, src_x, src_y, src_w, src_h, crtc_x, crtc_y, crtc_w, crtc_h;
};

struct buf {
	uint32_t w, h, handle, pitch, fb;
	uint64_t size;
};

struct dev {
	const char *path;
	int fd;
	uint32_t conn, crtc, plane;
	drmModeModeInfo mode;		/* the connector's preferred mode */
	drmModeModeInfo alt;		/* another, smaller mode (or mode again) */
	drmModeModeInfo big;		/* the largest mode offered */
	double refresh;			/* exact refresh of mode, Hz */
	struct props p;
	struct buf scan[2];		/* our scanout buffers, at mode's size */
	int active;			/* we did a modeset with scan[] */
	int cur;			/* index of the scanned-out scan[] */
	int flips;			/* -n */
	double tol;			/* -t, relative */
};

extern int n_pass, n_fail, n_skip;

/* Page flip events as they arrive, against the flips committed. */
struct flip_rec {
	uint64_t data;
	unsigned int seq, crtc;
	double ts;
};

struct flips {
	uint64_t sent[2 * MAX_FLIPS + 16];	/* user_data, in commit order */
	double sent_t[2 * MAX_FLIPS + 16];	/* CLOCK_MONOTONIC before each commit */
	struct flip_rec got[2 * MAX_FLIPS + 16];	/* events, in arrival order */
	int nsent, ngot, overflow;
};

/* common.c */
int check(int pass, const char *name, const char *fmt, ...);
int checkq(int pass, const char *name, const char *fmt, ...);
void skip(const char *name, const char *why);
void diag(const char *fmt, ...);
const char *err(int ret);
void checkpoint(const char *name);
int expect(const char *name, int ret, ...);
int add_fb(int fd, uint32_t w, uint32_t h, uint32_t handle, uint32_t pitch,
	   uint32_t offset, uint32_t *fb);
void fill(int fd, const struct buf *b, uint32_t color);
int buf_create(int fd, uint32_t w, uint32_t h, struct buf *b);
void buf_destroy(int fd, struct buf *b);
drmModeModeInfo make_mode(uint16_t w, uint16_t h);
void add_plane(drmModeAtomicReq *req, const struct dev *d, uint32_t fb,
	       uint32_t sw, uint32_t sh, uint32_t cw, uint32_t ch);
int commit_mode(const struct dev *d, const drmModeModeInfo *m, uint32_t fb,
		uint32_t sw, uint32_t sh, uint32_t flags);
int commit_off(const struct dev *d, int keep_mode);
int commit_flip(const struct dev *d, uint32_t fb, uint32_t flags, uint64_t data);
int flip_sent(const struct dev *d, struct flips *f, uint32_t fb, uint32_t flags);
int need_active(struct dev *d);
void release_scanout(struct dev *d);
int active_or_fail(struct dev *d, const char *name);
uint32_t crtc_fb(const struct dev *d, drmModeModeInfo *mode);
int within(double got, double want, double tol);
int wait_events(int fd, struct flips *f, int want, int timeout_ms);
int flip_n(struct dev *d, struct flips *f, int n);
void child_done(pid_t pid, int go, const char *name);
int sysadmin(int on);

/* atomic.c */
void group_atomic(struct dev *d);

/* flip.c */
int flip_check_times(const struct flips *f, const char *name);
void group_flip(struct dev *d);

/* vblank.c */
int crtc_index(const struct dev *d);
int wait_vbl(const struct dev *d, unsigned int n, drmVBlank *v);
int wait_vbl_type(const struct dev *d, unsigned int type, unsigned int n, drmVBlank *v);
double vbl_ts(const drmVBlank *v);
void group_vblank(struct dev *d);

/* auth.c */
void gem_close(int fd, uint32_t handle);
int share_check(int fa, uint32_t ha, int fb, uint32_t hb, size_t size);
const char *share_err(int ret);
void group_auth(struct dev *d);

/* prime.c */
void group_prime(struct dev *d);

/* bad.c */
void group_bad(struct dev *d);

/* mem.c */
void group_mem(struct dev *d);

/* turns.c */
void group_turns(struct dev *d);

/* perm.c */
void group_perm(struct dev *d);

#endif
