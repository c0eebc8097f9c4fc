/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmsvt-fuzz: a seeded fuzzer of what a user can reach of kmsvt: the DRM
 * card (drm.c: mode objects, properties, atomic and legacy modesetting,
 * vblank; gem.c: dumb buffers, mmap, flink, PRIME, framebuffers), the fbdev
 * device (fb.c), the console's VT (vt.c) and faults (fault.c: a client
 * killed mid-commit, a file closed with a flip pending).  common.c holds the
 * random numbers, the per-call statistics shared by all processes and the
 * guards that keep blocking calls short; main.c the options, the processes,
 * the restore at the end and the report.
 */
#ifndef KMSVT_FUZZ_H
#define KMSVT_FUZZ_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>
#include <drm.h>
#include <drm_mode.h>
#include <drm_fourcc.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* 6.12's CLOSEFB is newer than Debian 12's libdrm headers. */
#ifndef DRM_IOCTL_MODE_CLOSEFB
struct drm_mode_closefb {
	__u32 fb_id;
	__u32 pad;
};
#define DRM_IOCTL_MODE_CLOSEFB DRM_IOWR(0xD0, struct drm_mode_closefb)
#endif

/*
 * Every call the fuzzer makes, by the name the table prints.  X(id, group)
 * where group is the --only group the call belongs to.
 */
#define FUZZ_OPS(X) \
	X(OPEN_CARD, drm) X(CLOSE_CARD, drm) X(VERSION, drm) X(GET_CAP, drm) \
	X(SET_CLIENT_CAP, drm) X(GETRESOURCES, drm) X(GETCONNECTOR, drm) \
	X(GETENCODER, drm) X(GETCRTC, drm) X(GETPLANERESOURCES, drm) X(GETPLANE, drm) \
	X(OBJ_GETPROPERTIES, drm) X(GETPROPERTY, drm) X(GETPROPBLOB, drm) \
	X(CREATEPROPBLOB, drm) X(DESTROYPROPBLOB, drm) X(OBJ_SETPROPERTY, drm) \
	X(SETPROPERTY, drm) X(ATOMIC, drm) X(SETCRTC, drm) X(PAGE_FLIP, drm) \
	X(SETPLANE, drm) X(CURSOR, drm) X(GETGAMMA, drm) X(SETGAMMA, drm) \
	X(CREATE_DUMB, drm) X(MAP_DUMB, drm) X(DESTROY_DUMB, drm) X(MMAP_DUMB, drm) \
	X(GEM_FLINK, drm) X(GEM_OPEN, drm) X(GEM_CLOSE, drm) \
	X(PRIME_HANDLE_TO_FD, drm) X(PRIME_FD_TO_HANDLE, drm) X(MMAP_DMABUF, drm) \
	X(ADDFB, drm) X(ADDFB2, drm) X(RMFB, drm) X(CLOSEFB, drm) X(GETFB, drm) \
	X(GETFB2, drm) X(DIRTYFB, drm) X(SET_MASTER, drm) X(DROP_MASTER, drm) \
	X(GET_MAGIC, drm) X(AUTH_MAGIC, drm) X(WAIT_VBLANK, drm) \
	X(CRTC_GET_SEQUENCE, drm) X(CRTC_QUEUE_SEQUENCE, drm) X(READ_EVENTS, drm) \
	X(DRM_UNKNOWN, drm) \
	X(FB_OPEN, fb) X(FBIOGET_VSCREENINFO, fb) X(FBIOPUT_VSCREENINFO, fb) \
	X(FBIOGET_FSCREENINFO, fb) X(FBIOPAN_DISPLAY, fb) X(FBIOGETCMAP, fb) \
	X(FBIOPUTCMAP, fb) X(FBIOBLANK, fb) X(FBIO_WAITFORVSYNC, fb) X(FB_UNKNOWN, fb) \
	X(FB_MMAP, fb) X(FB_READ, fb) X(FB_WRITE, fb) X(FB_LSEEK, fb) \
	X(TTY_OPEN, vt) X(TTY_WRITE, vt) X(KDFONTOP_SET, vt) X(KDFONTOP_GET, vt) \
	X(KDFONTOP_OTHER, vt) X(TIOCL_SCROLL, vt) X(VT_ACTIVATE, vt) X(VT_WAITACTIVE, vt) X(KDSETMODE, vt) \
	X(KDGETMODE, vt) X(VT_GETSTATE, vt) X(TIOCSWINSZ, vt) \
	X(KILL_MID_COMMIT, fault) X(CLOSE_FLIP_PENDING, fault)

#define OP_ENUM(name, group) OP_##name,
enum { FUZZ_OPS(OP_ENUM) N_OPS };
#undef OP_ENUM

enum group { G_DRM, G_FB, G_VT, G_FAULT, N_GROUPS };

#define N_ERRNO 134	/* errno values counted one by one; the rest as "other" */

/* One call's counts, in memory shared by every process (atomic adds). */
struct opstat {
	uint64_t calls, ok, max_ns;
	uint64_t err[N_ERRNO + 1];
};

struct shared {
	struct opstat op[N_OPS];
	uint64_t anomalies;
	int stop;		/* a process died: the others finish now */
	uint32_t magic;		/* an unauthenticated client's magic, for AUTH_MAGIC */
};

/* Roles of the fuzzing processes, by index (see main.c). */
enum role { R_MASTER, R_SHARED, R_OTHER, R_UNAUTH };

#define POOL_MAX 32

/* Ids (or fds) a process has seen, to pass back to the kernel. */
struct pool {
	uint64_t v[POOL_MAX];
	int n;
};

struct prop {
	uint32_t obj, id, flags;
	char name[32];
	uint64_t vals[4];	/* range min/max or the first enum values */
	int nvals;
};

struct bo {
	uint32_t handle;
	uint64_t size;
};

/* A scanout-sized buffer with a framebuffer, for commits that can pass. */
struct scan {
	uint32_t handle, fb, w, h;
};

/* Per-process state: each fuzzing process is single-threaded. */
struct fz {
	int index, role, groups;	/* groups: mask of enum group */
	uint64_t rng, calls, budget;
	double deadline;
	const char *card_path, *fb_path, *tty_path;
	int card, fb, tty, tty_num;
	struct pool crtcs, conns, encs, planes, fbs, blobs, names, primefds;
	struct prop props[64];
	int nprops;
	struct bo bos[POOL_MAX];
	int nbos;
	struct drm_mode_modeinfo modes[16];
	int nmodes;
	struct scan scan[2];
	uint64_t fb_size;	/* /dev/fb0's smem_len */
	int core_bugs;		/* --core-bugs: also what hits known DRM core bugs */
	int has_magic;		/* this file got a magic (GET_MAGIC) */
};

extern struct fz fz;
extern struct shared *sh;
extern const char *const op_names[N_OPS];
extern const int op_groups[N_OPS];

/* common.c */
uint64_t rnd64(void);
uint32_t rnd(uint32_t n);
int one_in(uint32_t n);
uint64_t rnd_val(void);
uint32_t rnd_dim(void);
void rnd_fill(void *p, size_t len);
double now(void);
int record(int op, int err, double t0);
int xioctl(int op, int fd, unsigned long req, void *arg);
int gioctl(int op, int fd, unsigned long req, void *arg, unsigned int ms);
void guard(unsigned int ms);
void unguard(void);
void guard_init(void);
void crash_init(void);
void anomaly(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pool_add(struct pool *p, uint64_t v);
uint64_t pool_pick(const struct pool *p);
void pool_del(struct pool *p, uint64_t v);
uint32_t pick_id(const struct pool *p);
int write_mapping(void *map, size_t len);
int budget_left(void);
void shared_init(void);

/* drm.c */
int card_open(void);
void drm_discover(void);
void drm_step(void);
uint32_t prop_named(uint32_t obj, const char *name);
int commit_scanout(int fd, const struct scan *s, uint32_t flags, int mutate);
uint32_t mode_blob(int fd, const struct drm_mode_modeinfo *m);

/* gem.c */
void gem_step(void);
int scan_buf(int fd, struct scan *s, uint32_t w, uint32_t h);
void scan_free(int fd, struct scan *s);
void gem_release_all(void);
void scan_ensure(void);

/* fb.c */
void fb_step(void);

/* vt.c */
void vt_step(void);

/* fault.c */
void fault_step(void);
int reap(pid_t pid, double timeout, int *status);
void report_stuck(pid_t pid, const char *what);

#endif
