/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside panic/: panic.c takes the screen when the kernel panics (the kmsg
 * dumper) and hands a canvas to screens.c, which draws the screen chosen
 * by panic_screen from the log that log.c reads and lays out.
 */
#ifndef KMSVT_PANIC_H
#define KMSVT_PANIC_H

#include <linux/atomic.h>
#include <linux/kmsg_dump.h>
#include <linux/notifier.h>

#include "qr.h"

struct kmsvt_device;

/* Most pixels a QR module takes on screen; larger would only be emptier. */
#define KMSVT_QR_MAX_SCALE	8

/* Everything the panic path needs, allocated at probe time. */
struct kmsvt_panic {
	struct kmsvt_device *kdev;
	struct kmsg_dumper dumper;
	struct notifier_block nb;
	const char *reason;		/* panic()'s message */
	atomic_t drawn;			/* the screen is drawn once */
	u64 draw_ns;			/* how long drawing took */
	u64 panic_ns;			/* printk time of panic()'s message */
	u64 notify_local;		/* local_clock() in the panic notifier */
	u64 notify_mono;		/* ktime_get_mono_fast_ns() there */
	u64 drawn_at;			/* ktime_get_mono_fast_ns() when drawn */
	char line[256];
	char log[16384];		/* the youngest kmsg records */
	u8 qr_data[KMSVT_QR_MAX_BYTES];
	u8 qr_work[KMSVT_QR_WORK_LEN];
	u8 qr_modules[KMSVT_QR_MODULES_MAX];
	/* a row of modules as pixel bits, one bit a pixel */
	u8 qr_row[(KMSVT_QR_MAX_SCALE * (KMSVT_QR_MAX_SIZE + 2 * KMSVT_QR_QUIET_ZONE) + 7) / 8];
};

/* What the screens draw into: the scanout the panic took, mapped. */
struct kmsvt_canvas {
	u8 __iomem *base;
	u32 pitch;
	u32 cpp;
	u32 format;
	u32 width;
	u32 height;
};

/* log.c */
#define KMSVT_PANIC_LINE "Kernel panic - not syncing"	/* panic()'s first line */
size_t kmsvt_read_log(struct kmsvt_panic *kp);
bool kmsvt_line_unreliable(const char *start, const char *end);
size_t kmsvt_log_keep_panic(const char *log, size_t len, u32 cols, u32 rows);
size_t kmsvt_compact_log(char *log, size_t len);

/* screens.c */
extern const u32 kmsvt_panic_colors[];
extern const unsigned int kmsvt_panic_ncolors;
bool kmsvt_canvas_readable(const struct kmsvt_canvas *c);
void kmsvt_screen_draw(struct kmsvt_panic *kp, const struct kmsvt_canvas *c, const char *title);
u32 kmsvt_screen_banner_height(void);
void kmsvt_screen_banner(struct kmsvt_panic *kp, const struct kmsvt_canvas *c);

#endif /* KMSVT_PANIC_H */
