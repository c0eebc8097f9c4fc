// SPDX-License-Identifier: GPL-2.0
/*
 * The panic screen: draws the kernel's last words into whatever kmsvt is
 * scanning out when the kernel panics (the console's buffer, X's, a KMS
 * client's), in that buffer's format.
 *
 * Rules of the panic path: no allocation, no sleeping, no lock other than by
 * trylock.  Other CPUs are stopped and may hold any lock.  Everything used
 * here is allocated at probe time.  All buffers live in VRAM, which is
 * mapped once at probe, so the current scanout is always drawable; when its
 * state cannot be read safely (its lock is held, the CRTC is off), the
 * screen switches to a panic buffer reserved at the start of VRAM.
 */
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/font.h>
#include <linux/fs.h>
#include <linux/uaccess.h>
#include <linux/io.h>
#include <linux/kmsg_dump.h>
#include <linux/moduleparam.h>
#include <linux/notifier.h>
#include <linux/panic_notifier.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/utsname.h>
#include <drm/drm_drv.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "../kms/compat.h"
#include "../kms/kmsvt.h"
#include "draw.h"
#include "panic.h"

#define COLOR_HEADER_BG	0xaa0000
#define COLOR_HEADER_FG	0xffffff
#define COLOR_BODY_BG	0x000040
#define COLOR_BODY_FG	0xe0e0e0

/*
 * The colours the screens use, which are also the palette of the 8 bpp
 * panic buffer: a C8 pixel is an index into this table.
 */
static const u32 kmsvt_panic_colors[] = {
	0x000000, 0xffffff, COLOR_HEADER_BG, COLOR_BODY_BG, COLOR_BODY_FG,
};

enum { SCREEN_LOG = 1, SCREEN_QR = 2, SCREEN_BOTH = 3 };
static const char * const screen_names[] = { [SCREEN_LOG] = "log", [SCREEN_QR] = "qr",
					     [SCREEN_BOTH] = "both" };
static int panic_screen = SCREEN_LOG;

static int kmsvt_set_panic_screen(const char *val, const struct kernel_param *kp)
{
	int i;

	for (i = SCREEN_LOG; i <= SCREEN_BOTH; i++) {
		if (sysfs_streq(val, screen_names[i])) {
			WRITE_ONCE(panic_screen, i);
			return 0;
		}
	}
	pr_err("kmsvt: panic_screen=%s is not supported (use log, qr or both)\n", val);
	return -EINVAL;
}

static int kmsvt_get_panic_screen(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", screen_names[READ_ONCE(panic_screen)]);
}

static const struct kernel_param_ops kmsvt_panic_screen_ops = {
	.set = kmsvt_set_panic_screen,
	.get = kmsvt_get_panic_screen,
};

module_param_cb(panic_screen, &kmsvt_panic_screen_ops, NULL, 0644);
MODULE_PARM_DESC(panic_screen, "what a panic shows: log (default), qr (QR code of the log) or both");

static bool oops_banner;
module_param(oops_banner, bool, 0644);
MODULE_PARM_DESC(oops_banner, "draw a banner over the screen on a non-fatal oops (default off)");

struct kmsvt_canvas {
	u8 __iomem *base;
	u32 pitch;
	u32 cpp;
	u32 format;
	u32 width;
	u32 height;
};

/* The palette index of @rgb; all the screens' colours are in the table. */
static u32 kmsvt_pack_c8(u32 rgb)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(kmsvt_panic_colors); i++)
		if (kmsvt_panic_colors[i] == rgb)
			return i;
	return 0;
}

/* xrgb8888 to the canvas' pixel format */
static u32 kmsvt_pack(const struct kmsvt_canvas *c, u32 rgb)
{
	switch (c->format) {
	case DRM_FORMAT_C8:
		return kmsvt_pack_c8(rgb);
	case DRM_FORMAT_RGB565:
		return ((rgb >> 8) & 0xf800) | ((rgb >> 5) & 0x07e0) | ((rgb >> 3) & 0x001f);
	case DRM_FORMAT_XRGB1555:
		return ((rgb >> 9) & 0x7c00) | ((rgb >> 6) & 0x03e0) | ((rgb >> 3) & 0x001f);
	default:
		return rgb | 0xff000000;	/* opaque, should ARGB ever be blended */
	}
}

static void kmsvt_put(const struct kmsvt_canvas *c, u32 x, u32 y, u32 px)
{
	kmsvt_put_px(c->base + y * c->pitch + x * c->cpp, c->cpp, px);
}

/* Whole rows: clearing is most of the work. */
static void kmsvt_fill(const struct kmsvt_canvas *c, u32 y0, u32 rows, u32 rgb)
{
	u32 px = kmsvt_pack(c, rgb), y;

	for (y = y0; y < y0 + rows && y < c->height; y++)
		kmsvt_fill_span(c->base + y * c->pitch, c->cpp, px, c->width);
}

/*
 * Draw text row @row, cells [0, cells): s[0..len) in the cells from @col
 * on, background everywhere else, to the right edge when @cells is the
 * screen's width.  Every pixel is written once, so a text row costs about
 * as much as clearing it.
 */
static void kmsvt_text_row(const struct kmsvt_canvas *c, u32 row, u32 cells, u32 col,
			   const char *s, size_t len, u32 fg_rgb, u32 bg_rgb)
{
	const u8 *glyphs = font_vga_8x16.data;
	bool to_edge = cells >= c->width / 8;
	struct kmsvt_ink ink;
	u32 gy, cell, x;

	kmsvt_ink_init(&ink, c->cpp, kmsvt_pack(c, fg_rgb), kmsvt_pack(c, bg_rgb));
	cells = min(cells, c->width / 8);
	col = min(col, cells);
	len = min_t(size_t, len, cells - col);
	for (gy = 0; gy < 16 && row * 16 + gy < c->height; gy++) {
		u32 y = row * 16 + gy, step = 8 * c->cpp;
		u8 __iomem *p = c->base + y * c->pitch;

		for (cell = 0; cell < col; cell++, p += step)
			kmsvt_ink_row8(&ink, p, 0);
		for (; cell < col + len; cell++, p += step)
			kmsvt_ink_row8(&ink, p, glyphs[(u8)s[cell - col] * 16 + gy]);
		for (; cell < cells; cell++, p += step)
			kmsvt_ink_row8(&ink, p, 0);
		for (x = cells * 8; to_edge && x < c->width; x++)
			kmsvt_put(c, x, y, ink.bg);
	}
}

/*
 * Stack entries printed with "? " are guesses of the unwinder; leaving them
 * out keeps the real call chain and the panic message on one screen.
 */
static bool kmsvt_line_unreliable(const char *start, const char *end)
{
	const char *ts = memchr(start, ']', min_t(size_t, end - start, 20));

	return ts && end - ts > 4 && !memcmp(ts, "]  ? ", 5);
}

/*
 * Draw the lines of log[0..len) wrapped to @cols, newest at the bottom, into
 * text rows [top, bottom); rows left over are cleared.  Walks backwards, so
 * it never needs more than the text itself.
 */
static void kmsvt_draw_log(const struct kmsvt_canvas *c, const char *log, size_t len,
			   u32 top, u32 bottom, u32 cols, u32 fg, u32 bg)
{
	u32 row = bottom;
	const char *end = log + len;

	while (end > log && row > top) {
		const char *start = end;
		u32 lines, i;

		while (start > log && start[-1] != '\n')
			start--;
		if (kmsvt_line_unreliable(start, end)) {
			end = start > log ? start - 1 : log;
			continue;
		}
		lines = max_t(u32, 1, DIV_ROUND_UP(end - start, cols));
		for (i = lines; i-- > 0 && row > top;) {
			size_t off = (size_t)i * cols;

			row--;
			kmsvt_text_row(c, row, cols, 0, start + off,
				       min_t(size_t, cols, end - start - off), fg, bg);
		}
		end = start > log ? start - 1 : log;
	}
	kmsvt_fill(c, top * 16, (row - top) * 16, bg);
}

#define PANIC_LINE "Kernel panic - not syncing"	/* panic()'s first line */

/*
 * The panic message and the stack under it are what the screen is for.
 * Lines logged after them (another CPU's warning while this one was still
 * printing, say) could push them off the top: then end the window where
 * the panic message is still its first line.  Returns the length to draw.
 */
static size_t kmsvt_log_keep_panic(const char *log, size_t len, u32 cols, u32 rows)
{
	const char *p = strnstr(log, PANIC_LINE, len), *next, *end;
	u32 used = 0;

	while (p && (next = strnstr(p + 1, PANIC_LINE, log + len - p - 1)))
		p = next;
	if (!p || !cols)
		return len;
	while (p > log && p[-1] != '\n')
		p--;
	for (; p < log + len; p = end + 1) {
		end = strnchr(p, log + len - p, '\n');
		if (!end)
			end = log + len;
		if (kmsvt_line_unreliable(p, end))
			continue;
		used += max_t(u32, 1, DIV_ROUND_UP(end - p, cols));
		if (used > rows)
			return p > log ? p - 1 - log : len;
	}
	return len;
}

/*
 * printk's timestamp ("[    2.768308] ") of the line holding @needle, in ns
 * of local_clock(), or 0: it tells when panic() started.
 */
static u64 kmsvt_log_time(const char *log, size_t len, const char *needle)
{
	const char *p = strnstr(log, needle, len);
	u64 sec = 0, usec = 0;

	if (!p)
		return 0;
	while (p > log && p[-1] != '\n')
		p--;
	if (*p++ != '[')
		return 0;
	while (*p == ' ')
		p++;
	while (isdigit(*p))
		sec = sec * 10 + (*p++ - '0');
	if (*p++ != '.')
		return 0;
	while (isdigit(*p))
		usec = usec * 10 + (*p++ - '0');
	return sec * NSEC_PER_SEC + usec * NSEC_PER_USEC;
}

/*
 * A screen, even a tall one, or a QR code holds fewer lines than this;
 * starting the dump here spares kmsg_dump_get_buffer() a walk over the
 * whole ring buffer (the boot log) to find which records fit.
 */
#define KMSVT_LOG_RECORDS	192

/* The youngest records that fit in the buffer, as plain text lines. */
static size_t kmsvt_read_log(struct kmsvt_panic *kp)
{
	struct kmsg_dump_iter iter;
	size_t len = 0;

	kmsg_dump_rewind(&iter);
	if (iter.next_seq - iter.cur_seq > KMSVT_LOG_RECORDS)
		iter.cur_seq = iter.next_seq - KMSVT_LOG_RECORDS;
	kmsg_dump_get_buffer(&iter, false, kp->log, sizeof(kp->log), &len);
	while (len && (kp->log[len - 1] == '\n' || kp->log[len - 1] == '\0'))
		len--;
	kp->panic_ns = kmsvt_log_time(kp->log, len, PANIC_LINE);
	return len;
}

static void kmsvt_draw_header(struct kmsvt_panic *kp, const struct kmsvt_canvas *c,
			      const char *title)
{
	const char *reason = kp->reason ? kp->reason : "";
	u32 cells = c->width / 8;
	size_t n;

	n = scnprintf(kp->line, sizeof(kp->line), "%s - Linux %s - kmsvt", title,
		      init_utsname()->release);
	kmsvt_text_row(c, 0, cells, 1, kp->line, n, COLOR_HEADER_FG, COLOR_HEADER_BG);
	n = strcspn(reason, "\n");
	kmsvt_text_row(c, 1, cells, 1, reason, n, COLOR_HEADER_FG, COLOR_HEADER_BG);
}

/* Drop the unwinder's guesses from log[0..len), in place; returns the new length. */
static size_t kmsvt_compact_log(char *log, size_t len)
{
	size_t in = 0, out = 0;

	while (in < len) {
		const char *nl = memchr(log + in, '\n', len - in);
		size_t n = nl ? nl - (log + in) + 1 : len - in;

		if (!kmsvt_line_unreliable(log + in, log + in + n)) {
			memmove(log + out, log + in, n);
			out += n;
		}
		in += n;
	}
	return out;
}

/*
 * QR payload: the panic reason and kernel release, then as much of the log
 * tail as the version holds, starting at a line boundary.
 */
static size_t kmsvt_qr_payload(struct kmsvt_panic *kp, size_t len, size_t cap)
{
	const char *reason = kp->reason ? kp->reason : "";
	size_t n, tail;
	const char *start;

	n = scnprintf(kp->line, sizeof(kp->line), "KERNEL PANIC: %.*s\nLinux %s\n",
		      (int)strcspn(reason, "\n"), reason, init_utsname()->release);
	n = min(n, cap);
	memcpy(kp->qr_data, kp->line, n);

	len = kmsvt_compact_log(kp->log, len);
	tail = min(len, cap - n);
	start = kp->log + len - tail;
	if (tail < len) {
		const char *nl = memchr(start, '\n', tail);

		if (nl)
			start = nl + 1;
	}
	tail = kp->log + len - start;
	memcpy(kp->qr_data + n, start, tail);
	return n + tail;
}

/*
 * Draw the QR code in a square of side px at (x0, y0): the biggest modules
 * (at least 2 pixels) for which the payload fits.  Returns the width used.
 */
static u32 kmsvt_draw_qr(struct kmsvt_panic *kp, const struct kmsvt_canvas *c, size_t len,
			 u32 x0, u32 y0, u32 px)
{
	u32 black = kmsvt_pack(c, 0), white = kmsvt_pack(c, 0xffffff);
	u32 scale, side, x, y;
	int version = 0, size;
	size_t n;

	for (scale = 8; scale >= 2; scale--) {
		version = kmsvt_qr_fit_version(px, scale);
		if (version && (version == KMSVT_QR_MAX_VERSION ||
				kmsvt_qr_max_bytes(version) >= len + sizeof(kp->line)))
			break;
	}
	if (!version)
		return 0;
	n = kmsvt_qr_payload(kp, len, kmsvt_qr_max_bytes(version));
	size = kmsvt_qr_encode(kp->qr_data, n, kp->qr_work, sizeof(kp->qr_work),
			       kp->qr_modules, sizeof(kp->qr_modules));
	if (size < 0)
		return 0;

	side = (size + 2 * KMSVT_QR_QUIET_ZONE) * scale;
	for (y = 0; y < side; y++) {
		int my = (int)(y / scale) - KMSVT_QR_QUIET_ZONE;

		for (x = 0; x < side; x++) {
			int mx = (int)(x / scale) - KMSVT_QR_QUIET_ZONE;
			bool dark = kmsvt_qr_module(kp->qr_modules, size, mx, my);

			kmsvt_put(c, x0 + x, y0 + y, dark ? black : white);
		}
	}
	return side;
}

static void kmsvt_draw_screen(struct kmsvt_panic *kp, const struct kmsvt_canvas *c,
			      const char *title)
{
	int screen = READ_ONCE(panic_screen);
	u32 top = 3 * 16, cols = c->width / 8, rows = c->height / 16;
	size_t len = kmsvt_read_log(kp);

	/*
	 * The text rows cover the log screen, each pixel written once; the
	 * QR code leaves parts of the body to clear first.
	 */
	if (screen == SCREEN_LOG) {
		kmsvt_fill(c, 2 * 16, 16, COLOR_BODY_BG);
		kmsvt_fill(c, rows * 16, c->height - rows * 16, COLOR_BODY_BG);
	} else {
		kmsvt_fill(c, 2 * 16, c->height - 2 * 16, COLOR_BODY_BG);
	}
	kmsvt_draw_header(kp, c, title);
	if (screen & SCREEN_LOG) {
		/* With the QR code, the log keeps the left part of the screen. */
		u32 qr_px = screen & SCREEN_QR ? min(c->height - top, c->width / 2) : 0;

		cols = (c->width - qr_px) / 8;
		kmsvt_draw_log(c, kp->log, kmsvt_log_keep_panic(kp->log, len, cols, rows - 3),
			       3, rows, cols, COLOR_BODY_FG, COLOR_BODY_BG);
	}
	if (screen & SCREEN_QR) {
		u32 px = min(c->height - top, c->width - cols * 8);

		if (screen == SCREEN_QR)
			px = min(c->height - top, c->width);
		kmsvt_draw_qr(kp, c, len, c->width - px, top, px);
	}
}

/*
 * Copy the scanout state if its lock is free, and say whether it is being
 * shown; with @stop_flips also drop a flip that has not latched yet.
 * Interrupts are off.
 */
static bool kmsvt_scanout_snapshot(struct kmsvt_device *kdev, struct kmsvt_scanout *so,
				   bool stop_flips)
{
	bool on;

	if (!raw_spin_trylock(&kdev->scanout_lock))
		return false;
	if (stop_flips)
		kdev->pending_valid = false;
	*so = kdev->scanout;
	on = kdev->scanout_on && !so->blank;
	raw_spin_unlock(&kdev->scanout_lock);
	return on;
}

/*
 * Take the screen for the panic: stop flips and vblank from touching DISPI,
 * and describe what is scanned out.  Falls back to the reserved buffer when
 * the scanout state is unknown.
 */
static void kmsvt_panic_canvas(struct kmsvt_device *kdev, struct kmsvt_canvas *c,
			       bool use_reserve)
{
	struct kmsvt_scanout so;
	unsigned long flags;
	bool have = false;

	WRITE_ONCE(kdev->panicked, true);
	local_irq_save(flags);
	have = kmsvt_scanout_snapshot(kdev, &so, true) && !use_reserve;
	local_irq_restore(flags);

	if (!have) {
		so = kdev->panic_reserve;
		kmsvt_hw_set_mode(kdev, &so);
		kmsvt_hw_set_palette(kdev, kmsvt_panic_colors, ARRAY_SIZE(kmsvt_panic_colors));
	}
	c->base = kdev->vram + so.offset;
	c->pitch = so.pitch;
	c->cpp = so.cpp;
	c->format = so.format;
	c->width = so.width;
	c->height = so.height;
	/* Point DISPI at it again, in case a flip was half way. */
	kmsvt_hw_set_base(kdev, &so);
}

static void kmsvt_panic_draw(struct kmsvt_panic *kp, const char *title, bool use_reserve)
{
	struct kmsvt_canvas c;
	u64 t0 = ktime_get_mono_fast_ns();

	kmsvt_panic_canvas(kp->kdev, &c, use_reserve);
	if (c.width < 8 * 16 || c.height < 16 * 4)
		return;		/* too small for anything readable */
	kmsvt_draw_screen(kp, &c, title);
	kp->drawn_at = ktime_get_mono_fast_ns();
	kp->draw_ns = kp->drawn_at - t0;
}

static void kmsvt_oops_banner(struct kmsvt_panic *kp)
{
	struct kmsvt_device *kdev = kp->kdev;
	struct kmsvt_canvas c;
	unsigned long flags;
	struct kmsvt_scanout so;
	size_t len, n;
	bool have;

	local_irq_save(flags);
	have = kmsvt_scanout_snapshot(kdev, &so, false);
	local_irq_restore(flags);
	if (!have)
		return;

	c = (struct kmsvt_canvas){ kdev->vram + so.offset, so.pitch, so.cpp, so.format,
				   so.width, so.height };
	len = kmsvt_read_log(kp);
	WRITE_ONCE(kdev->banner_height, 3 * 16);
	n = scnprintf(kp->line, sizeof(kp->line), "Oops - Linux %s - the system is still running",
		      init_utsname()->release);
	kmsvt_text_row(&c, 0, c.width / 8, 1, kp->line, n, COLOR_HEADER_FG, COLOR_HEADER_BG);
	/* The last two log lines: usually the oops' location. */
	kmsvt_draw_log(&c, kp->log, len, 1, 3, c.width / 8, COLOR_BODY_FG, COLOR_HEADER_BG);
}

/*
 * From panic()'s message to the last pixel.  The message's time is printk's
 * local_clock(), which stops advancing with interrupts off when the TSC is
 * unstable (common under TCG); the draw is timed with the clocksource, and
 * the notifier's reading of both clocks links the two, to within a tick.
 */
static u64 kmsvt_since_panic(const struct kmsvt_panic *kp)
{
	u64 start;

	if (!kp->panic_ns || !kp->drawn_at)
		return 0;
	start = kp->panic_ns + (kp->notify_mono - kp->notify_local);
	return kp->drawn_at > start ? kp->drawn_at - start : 0;
}

/*
 * The timing of the panic screen, also kept where no console is needed to
 * find it: a debugger, a crash dump or the benchmark (through QEMU's
 * memsave, at the address /proc/kallsyms gives) reads it after the panic.
 * magic is written last.
 */
static struct {
	u64 draw_us;
	u64 panic_us;
	u64 magic;
} kmsvt_last_panic;

#define KMSVT_LAST_PANIC_MAGIC	0x43494e4150545653ULL	/* "SVTPANIC" read as bytes */

static void kmsvt_dump_screen(struct kmsvt_panic *kp, enum kmsg_dump_reason reason)
{
	/* Only the first CPU to get here draws; there is one screen. */
	if (reason == KMSG_DUMP_PANIC && !atomic_xchg(&kp->drawn, 1)) {
		kmsvt_panic_draw(kp, "KERNEL PANIC", false);
		kmsvt_last_panic.draw_us = div_u64(kp->draw_ns, 1000);
		kmsvt_last_panic.panic_us = div_u64(kmsvt_since_panic(kp), 1000);
		/* The times before the magic, for whoever reads it from outside. */
		smp_wmb();
		WRITE_ONCE(kmsvt_last_panic.magic, KMSVT_LAST_PANIC_MAGIC);
		pr_emerg("kmsvt: panic screen drawn in %llu us, %llu us after panic()\n",
			 kmsvt_last_panic.draw_us, kmsvt_last_panic.panic_us);
	} else if (reason == KMSG_DUMP_OOPS && READ_ONCE(oops_banner)) {
		kmsvt_oops_banner(kp);
	}
}

static void kmsvt_dump(struct kmsg_dumper *dumper, enum kmsg_dump_reason reason)
{
	struct kmsvt_panic *kp = container_of(dumper, struct kmsvt_panic, dumper);
	int idx;

	/* A device being unplugged: its BARs may be gone already. */
	if (!drm_dev_enter(&kp->kdev->drm, &idx))
		return;
	kmsvt_dump_screen(kp, reason);
	drm_dev_exit(idx);
}

#if KMSVT_KMSG_DUMP_DETAIL
static void kmsvt_kmsg_dump(struct kmsg_dumper *dumper, struct kmsg_dump_detail *detail)
{
	kmsvt_dump(dumper, detail->reason);
}
#else
static void kmsvt_kmsg_dump(struct kmsg_dumper *dumper, enum kmsg_dump_reason reason)
{
	kmsvt_dump(dumper, reason);
}
#endif

/* panic()'s notifiers run before the kmsg dump: keep the reason for the header. */
static int kmsvt_panic_notify(struct notifier_block *nb, unsigned long event, void *buf)
{
	struct kmsvt_panic *kp = container_of(nb, struct kmsvt_panic, nb);

	kp->notify_local = local_clock();
	kp->notify_mono = ktime_get_mono_fast_ns();
	kp->reason = buf;
	return NOTIFY_DONE;
}

bool kmsvt_panic_active(struct kmsvt_device *kdev)
{
	return READ_ONCE(kdev->panicked);
}

u32 kmsvt_panic_banner_height(struct kmsvt_device *kdev)
{
	return READ_ONCE(kdev->banner_height);
}

/* A new mode means a new picture: the banner is gone. */
void kmsvt_panic_banner_clear(struct kmsvt_device *kdev)
{
	WRITE_ONCE(kdev->banner_height, 0);
}

/*
 * The panic buffer: 8 bpp, indexed by kmsvt_panic_colors, at the largest of
 * these modes that takes at most 1/48 of VRAM, at the start of VRAM, below
 * the GEM allocator's range.  Small on purpose: the default 16 MiB hold the
 * console's buffer and three more at 1280x800x32 with 384 KiB to spare, and
 * those three (the session on screen's two and the front buffer of the one
 * switched away from) keep a user switch free of buffer moves
 * (docs/SWITCHING.md).  At the start, because DISPI reaches a scanout
 * through a line offset of at most 12000 lines: at the top of 16 MiB, a
 * 640-byte pitch would need line 25734.  It shows only when the scanout
 * cannot be read.
 */
void kmsvt_panic_reserve(struct kmsvt_device *kdev)
{
	static const u16 sizes[][2] = { { 1024, 768 }, { 800, 600 }, { 640, 480 } };
	struct kmsvt_scanout *so = &kdev->panic_reserve;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		so->width = sizes[i][0];
		so->height = sizes[i][1];
		if ((u64)so->width * so->height * 48 <= kdev->vram_size)
			break;
	}
	so->format = DRM_FORMAT_C8;
	so->cpp = 1;
	so->bpp = 8;
	so->pitch = so->width;
	so->offset = 0;
	kdev->gem_start = PAGE_ALIGN((u64)so->pitch * so->height);
}

/* Give the display back to KMS after a preview. */
static void kmsvt_panic_preview_end(struct kmsvt_device *kdev)
{
	unsigned long flags;

	kmsvt_panic_banner_clear(kdev);
	raw_spin_lock_irqsave(&kdev->scanout_lock, flags);
	kdev->panicked = false;
	if (kdev->scanout_on)
		kmsvt_hw_set_mode(kdev, &kdev->scanout);
	else
		kmsvt_hw_disable(kdev);
	raw_spin_unlock_irqrestore(&kdev->scanout_lock, flags);
}

/* The one word written to a debugfs file, white space trimmed, in *word. */
int kmsvt_debugfs_word(const char __user *ubuf, size_t len, char *buf, size_t size,
		       char **word)
{
	if (len >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	*word = strim(buf);
	return 0;
}

/*
 * debugfs panic_preview: "current" draws the panic screen into the buffer
 * being scanned out (destroying what it shows), "reserve" into the reserved
 * panic buffer, "off" returns the display to KMS and drops an oops banner.
 */
static ssize_t kmsvt_preview_write(struct file *file, const char __user *ubuf, size_t len,
				   loff_t *ppos)
{
	struct kmsvt_panic *kp = file->private_data;
	char buf[16], *word;
	int ret = kmsvt_debugfs_word(ubuf, len, buf, sizeof(buf), &word);

	if (ret)
		return ret;
	if (!strcmp(word, "current") || !strcmp(word, "reserve"))
		kmsvt_panic_draw(kp, "KERNEL PANIC (preview)", word[0] == 'r');
	else if (!strcmp(word, "off"))
		kmsvt_panic_preview_end(kp->kdev);
	else
		return -EINVAL;
	return len;
}

static const struct file_operations kmsvt_preview_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = kmsvt_preview_write,
	.llseek = noop_llseek,
};

void kmsvt_panic_debugfs_init(struct kmsvt_device *kdev, struct dentry *root)
{
	debugfs_create_file("panic_preview", 0200, root, kdev->panic, &kmsvt_preview_fops);
	kmsvt_panic_test_debugfs_init(kdev, root);
}

/*
 * At unbind (PCI remove, module unload), not when the last file closes: the
 * BARs the panic screen draws into are unmapped then.
 */
static void kmsvt_panic_release(void *data)
{
	struct kmsvt_panic *kp = data;

	kmsg_dump_unregister(&kp->dumper);
	atomic_notifier_chain_unregister(&panic_notifier_list, &kp->nb);
}

int kmsvt_panic_init(struct kmsvt_device *kdev)
{
	struct kmsvt_panic *kp;
	int ret;

	kp = drmm_kzalloc(&kdev->drm, sizeof(*kp), GFP_KERNEL);
	if (!kp)
		return -ENOMEM;
	kp->kdev = kdev;
	kdev->panic = kp;
	kp->dumper.dump = kmsvt_kmsg_dump;
	kp->dumper.max_reason = KMSG_DUMP_OOPS;
	kp->nb.notifier_call = kmsvt_panic_notify;

	ret = kmsg_dump_register(&kp->dumper);
	if (ret)
		return ret;
	atomic_notifier_chain_register(&panic_notifier_list, &kp->nb);
	return devm_add_action_or_reset(kdev->drm.dev, kmsvt_panic_release, kp);
}
