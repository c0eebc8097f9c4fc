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
 * screen switches to a panic buffer reserved at the top of VRAM.
 */
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
#include <linux/utsname.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "../kms/compat.h"
#include "../kms/kmsvt.h"
#include "panic.h"

#define COLOR_HEADER_BG	0xaa0000
#define COLOR_HEADER_FG	0xffffff
#define COLOR_BODY_BG	0x000040
#define COLOR_BODY_FG	0xe0e0e0

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

/* xrgb8888 to the canvas' pixel format */
static u32 kmsvt_pack(const struct kmsvt_canvas *c, u32 rgb)
{
	switch (c->format) {
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
	u8 __iomem *p = c->base + y * c->pitch + x * c->cpp;

	if (c->cpp == 4)
		writel(px, p);
	else
		writew(px, p);
}

static void kmsvt_fill(const struct kmsvt_canvas *c, u32 y0, u32 rows, u32 rgb)
{
	u32 px = kmsvt_pack(c, rgb), x, y;

	for (y = y0; y < y0 + rows && y < c->height; y++)
		for (x = 0; x < c->width; x++)
			kmsvt_put(c, x, y, px);
}

/* Draw len characters of s at text cell (col, row); foreground pixels only. */
static void kmsvt_text(const struct kmsvt_canvas *c, u32 col, u32 row, const char *s,
		       size_t len, u32 rgb)
{
	const struct font_desc *font = &font_vga_8x16;
	const u8 *glyphs = font->data;
	u32 px = kmsvt_pack(c, rgb);
	size_t i;
	u32 gy, gx;

	for (i = 0; i < len && (col + i + 1) * 8 <= c->width; i++) {
		const u8 *g = glyphs + (u8)s[i] * 16;

		for (gy = 0; gy < 16; gy++)
			for (gx = 0; gx < 8; gx++)
				if (g[gy] & (0x80 >> gx))
					kmsvt_put(c, (col + i) * 8 + gx, row * 16 + gy, px);
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
 * Draw the lines of log[0..len) wrapped to the screen width, newest at the
 * bottom, into text rows [top, bottom).  Walks backwards, so it never needs
 * more than the text itself.
 */
static void kmsvt_draw_log(const struct kmsvt_canvas *c, const char *log, size_t len,
			   u32 top, u32 bottom)
{
	u32 cols = c->width / 8, row = bottom;
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
			kmsvt_text(c, 0, row, start + off, min_t(size_t, cols, end - start - off),
				   COLOR_BODY_FG);
		}
		end = start > log ? start - 1 : log;
	}
}

/* The youngest records that fit in the buffer, as plain text lines. */
static size_t kmsvt_read_log(struct kmsvt_panic *kp)
{
	struct kmsg_dump_iter iter;
	size_t len = 0;

	kmsg_dump_rewind(&iter);
	kmsg_dump_get_buffer(&iter, false, kp->log, sizeof(kp->log), &len);
	while (len && (kp->log[len - 1] == '\n' || kp->log[len - 1] == '\0'))
		len--;
	return len;
}

static void kmsvt_draw_header(struct kmsvt_panic *kp, const struct kmsvt_canvas *c,
			      const char *title)
{
	const char *reason = kp->reason ? kp->reason : "";
	size_t n;

	kmsvt_fill(c, 0, 2 * 16, COLOR_HEADER_BG);
	n = scnprintf(kp->line, sizeof(kp->line), "%s - Linux %s - kmsvt", title,
		      init_utsname()->release);
	kmsvt_text(c, 1, 0, kp->line, n, COLOR_HEADER_FG);
	n = strcspn(reason, "\n");
	kmsvt_text(c, 1, 1, reason, n, COLOR_HEADER_FG);
}

static void kmsvt_draw_screen(struct kmsvt_panic *kp, const struct kmsvt_canvas *c,
			      const char *title)
{
	size_t len = kmsvt_read_log(kp);

	kmsvt_fill(c, 2 * 16, c->height - 2 * 16, COLOR_BODY_BG);
	kmsvt_draw_header(kp, c, title);
	kmsvt_draw_log(c, kp->log, len, 3, c->height / 16);
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

	if (raw_spin_trylock_irqsave(&kdev->scanout_lock, flags)) {
		WRITE_ONCE(kdev->panicked, true);
		kdev->pending_valid = false;
		so = kdev->scanout;
		have = kdev->scanout_on && !use_reserve;
		raw_spin_unlock_irqrestore(&kdev->scanout_lock, flags);
	} else {
		WRITE_ONCE(kdev->panicked, true);
	}

	if (!have) {
		so = kdev->panic_reserve;
		kmsvt_hw_set_mode(kdev, &so);
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
	u64 t0 = local_clock();

	kmsvt_panic_canvas(kp->kdev, &c, use_reserve);
	if (c.width < 8 * 16 || c.height < 16 * 4)
		return;		/* too small for anything readable */
	kmsvt_draw_screen(kp, &c, title);
	kp->draw_ns = local_clock() - t0;
}

static void kmsvt_oops_banner(struct kmsvt_panic *kp)
{
	struct kmsvt_device *kdev = kp->kdev;
	struct kmsvt_canvas c;
	unsigned long flags;
	struct kmsvt_scanout so;
	size_t len, n;
	bool have;

	if (!raw_spin_trylock_irqsave(&kdev->scanout_lock, flags))
		return;
	so = kdev->scanout;
	have = kdev->scanout_on;
	raw_spin_unlock_irqrestore(&kdev->scanout_lock, flags);
	if (!have)
		return;

	c = (struct kmsvt_canvas){ kdev->vram + so.offset, so.pitch, so.cpp, so.format,
				   so.width, so.height };
	len = kmsvt_read_log(kp);
	WRITE_ONCE(kdev->banner_height, 3 * 16);
	kmsvt_fill(&c, 0, 3 * 16, COLOR_HEADER_BG);
	n = scnprintf(kp->line, sizeof(kp->line), "Oops - Linux %s - the system is still running",
		      init_utsname()->release);
	kmsvt_text(&c, 1, 0, kp->line, n, COLOR_HEADER_FG);
	/* The last two log lines: usually the oops' location. */
	kmsvt_draw_log(&c, kp->log, len, 1, 3);
}

#if KMSVT_KMSG_DUMP_DETAIL
static void kmsvt_kmsg_dump(struct kmsg_dumper *dumper, struct kmsg_dump_detail *detail)
{
	enum kmsg_dump_reason reason = detail->reason;
#else
static void kmsvt_kmsg_dump(struct kmsg_dumper *dumper, enum kmsg_dump_reason reason)
{
#endif
	struct kmsvt_panic *kp = container_of(dumper, struct kmsvt_panic, dumper);

	/* Only the first CPU to get here draws; there is one screen. */
	if (reason == KMSG_DUMP_PANIC && !atomic_xchg(&kp->drawn, 1)) {
		kmsvt_panic_draw(kp, "KERNEL PANIC", false);
		pr_emerg("kmsvt: panic screen drawn in %llu us\n", div_u64(kp->draw_ns, 1000));
	}
	else if (reason == KMSG_DUMP_OOPS && READ_ONCE(oops_banner))
		kmsvt_oops_banner(kp);
}

/* panic()'s notifiers run before the kmsg dump: keep the reason for the header. */
static int kmsvt_panic_notify(struct notifier_block *nb, unsigned long event, void *buf)
{
	struct kmsvt_panic *kp = container_of(nb, struct kmsvt_panic, nb);

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
 * The panic buffer: RGB565 at the largest of these modes that takes at most
 * a tenth of VRAM, at its very top, outside the GEM allocator's range.
 */
void kmsvt_panic_reserve(struct kmsvt_device *kdev)
{
	static const u16 sizes[][2] = { { 1024, 768 }, { 800, 600 }, { 640, 480 } };
	struct kmsvt_scanout *so = &kdev->panic_reserve;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		so->width = sizes[i][0];
		so->height = sizes[i][1];
		if ((u64)so->width * so->height * 2 * 10 <= kdev->vram_size)
			break;
	}
	so->format = DRM_FORMAT_RGB565;
	so->cpp = 2;
	so->bpp = 16;
	so->pitch = so->width * 2;
	so->offset = round_down(kdev->vram_size - (u64)so->pitch * so->height, PAGE_SIZE);
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

/*
 * debugfs panic_preview: "current" draws the panic screen into the buffer
 * being scanned out (destroying what it shows), "reserve" into the reserved
 * panic buffer, "off" returns the display to KMS and drops an oops banner.
 */
static ssize_t kmsvt_preview_write(struct file *file, const char __user *ubuf, size_t len,
				   loff_t *ppos)
{
	struct kmsvt_panic *kp = file->private_data;
	char buf[16];

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	strim(buf);
	if (!strcmp(buf, "current") || !strcmp(buf, "reserve"))
		kmsvt_panic_draw(kp, "KERNEL PANIC (preview)", buf[0] == 'r');
	else if (!strcmp(buf, "off"))
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

static void kmsvt_panic_release(struct drm_device *drm, void *data)
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
	return drmm_add_action_or_reset(&kdev->drm, kmsvt_panic_release, kp);
}
