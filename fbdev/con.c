// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt's text console: a VT console driver (struct consw) that draws the
 * VTs into the fbdev emulation's buffer.
 *
 * fbcon draws every character as the tty writes it, and, with no
 * acceleration in Debian's kernels, redraws the whole screen for every
 * scrolled line: printing is then bound by VRAM writes (docs/CONSOLE.md).
 * Here the tty only writes the VT's cell buffer (the vt layer keeps it;
 * scrolling is a memmove of 2 bytes a cell) and each console call merely
 * marks the screen dirty.  At most once a frame a worker compares the
 * foreground VT's cells with those it drew last and draws the cells that
 * differ, 8 bytes a store (con_draw.c).  A screenful scrolled 3,000
 * times between two frames costs one screen of drawing, not 3,000.
 *
 * The console calls come with the console lock held, from any context
 * (printk included), so they only queue an irq_work; the irq_work
 * schedules the worker, which takes the console lock to read the cells.
 * Everything below is protected by the console lock, except the kick.
 *
 * It draws into the console's own buffer, which is scanned out only while
 * no DRM master holds the display, so it never reaches a master's picture.
 */
#include <linux/console.h>
#include <linux/fb.h>
#include <linux/font.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/tty.h>
#include <linux/vt_buffer.h>
#include <linux/vt_kern.h>
#include <linux/console_struct.h>
#include <linux/workqueue.h>
#include <drm/drm_print.h>

#include "compat.h"
#include "kmsvt_drv.h"
#include "con.h"

static bool kmsvt_vtcon = true;
module_param_named(vtcon, kmsvt_vtcon, bool, 0444);
MODULE_PARM_DESC(vtcon, "draw the VTs with kmsvt's own console (default); 0 leaves them to fbcon (for fbcon=rotate or fbcon=map)");

static unsigned int kmsvt_con_rotate;

static int kmsvt_con_set_rotate(const char *val, const struct kernel_param *kp)
{
	unsigned int rotate;

	if (kstrtouint(val, 0, &rotate) || rotate > FB_ROTATE_CCW) {
		pr_err(KMSVT_NAME ": rotate=%s is not supported (use 0 to 3)\n", val);
		return -EINVAL;
	}
	return param_set_uint(val, kp);
}

static const struct kernel_param_ops kmsvt_con_rotate_ops = {
	.set = kmsvt_con_set_rotate,
	.get = param_get_uint,
};

module_param_cb(rotate, &kmsvt_con_rotate_ops, &kmsvt_con_rotate, 0444);
MODULE_PARM_DESC(rotate, "turn kmsvt's console as fbcon=rotate does: 0 upright (default), 1 clockwise, 2 upside down, 3 counter-clockwise");

static struct kmsvt_con kmsvt_con;
static const struct consw kmsvt_consw;

static bool kmsvt_con_is_ours(const struct vc_data *vc)
{
	return vc && vc->vc_sw == &kmsvt_consw;
}

/* Console calls: draw soon.  Lock-free, and safe from any context. */
static void kmsvt_con_dirty(void)
{
	if (kmsvt_con.kdev && !kmsvt_scanout_taken(kmsvt_con.kdev))
		irq_work_queue(&kmsvt_con.kick);
}

/* Draw the whole screen next time (new VT, palette, mode or font). */
static void kmsvt_con_invalidate(void)
{
	kmsvt_con.shown_vc = -1;
	kmsvt_con_dirty();
}

/* At most one drawing a frame: the first change draws at once. */
static void kmsvt_con_kick(struct irq_work *work)
{
	unsigned long next = READ_ONCE(kmsvt_con.last_draw) + msecs_to_jiffies(16);
	unsigned long now = jiffies;

	schedule_delayed_work(&kmsvt_con.draw, time_after(next, now) ? next - now : 0);
}

/* ---- drawing (worker, console lock held) ---- */

/* The VT on screen, if it is ours and in text mode, and drawing is allowed. */
static struct vc_data *kmsvt_con_visible_vc(struct kmsvt_con *con)
{
	struct vc_data *vc = vc_cons[fg_console].d;

	if (!con->kdev || !kmsvt_con_is_ours(vc) || vc->vc_mode != KD_TEXT ||
	    con->blanked || con->suspended || kmsvt_scanout_taken(con->kdev))
		return NULL;
	return vc;
}

static void kmsvt_con_draw(struct work_struct *work)
{
	struct kmsvt_con *con = &kmsvt_con;
	struct vc_data *vc;

	console_lock();
	vc = kmsvt_con_visible_vc(con);
	if (vc) {
		kmsvt_con_draw_vc(con, vc, kmsvt_scanout_banner(con->kdev));
		WRITE_ONCE(con->last_draw, jiffies);
	}
	console_unlock();
}

/* ---- the console driver ---- */

static const char *kmsvt_con_startup(void)
{
	return KMSVT_NAME;
}

static void kmsvt_con_set_geometry(struct vc_data *vc, bool init)
{
	struct kmsvt_con *con = &kmsvt_con;

	vc->vc_font.width = con->font.width;
	vc->vc_font.height = con->font.height;
	vc->vc_font.charcount = 256;
	vc->vc_scan_lines = kmsvt_con_text_height(con);
	if (init) {
		vc->vc_cols = kmsvt_con_cols(con);
		vc->vc_rows = kmsvt_con_rows(con);
	} else {
		vc_resize(vc, kmsvt_con_cols(con), kmsvt_con_rows(con));
	}
}

static void kmsvt_con_init(struct vc_data *vc, bool init)
{
	vc->vc_can_do_color = 1;
	vc->vc_complement_mask = 0x7700;	/* swaps foreground and background */
	vc->vc_hi_font_mask = 0;
	kmsvt_con_set_geometry(vc, init);
}

static void kmsvt_con_deinit(struct vc_data *vc)
{
}

static void kmsvt_con_clear(struct vc_data *vc, unsigned int y, unsigned int x,
			    unsigned int count)
{
	kmsvt_con_dirty();
}

/* The vt layer moves the cells; the worker draws what changed. */
static bool kmsvt_con_scroll(struct vc_data *vc, unsigned int top, unsigned int bottom,
			     enum con_scroll dir, unsigned int lines)
{
	kmsvt_con_dirty();
	return false;
}

/* Drawn from the cells by the worker: the vt layer need not redraw them. */
static bool kmsvt_con_switch(struct vc_data *vc)
{
	kmsvt_con_invalidate();
	return false;
}

static void kmsvt_con_show_cursor(struct vc_data *vc, bool enable)
{
	if (con_is_visible(vc)) {
		kmsvt_con.cursor_on = enable;
		kmsvt_con_dirty();
	}
}

/*
 * @mode_switch: the VT enters or leaves graphics mode (a display server).
 * Entering, the display is the server's: nothing is blanked.  Leaving,
 * the console's mode comes back (unless a master still holds the display)
 * and the screen is drawn again.  Otherwise blanking turns the display off
 * (FBIOBLANK's path), as fbcon does.
 */
static bool kmsvt_con_blank_screen(struct vc_data *vc, int blank, bool mode_switch)
{
	struct kmsvt_con *con = &kmsvt_con;

	if (!con->kdev)
		return false;
	if (mode_switch) {
		if (!blank)
			con->display->restore(con->kdev);
	} else {
		con->blanked = blank;
		con->display->blank(con->kdev, blank);
	}
	if (!blank)
		kmsvt_con_invalidate();
	return false;
}

static void kmsvt_con_set_palette(struct vc_data *vc, const unsigned char *table)
{
	kmsvt_con_dirty();
}

/* A new font or mode: every VT of ours gets the cells that now fit. */
static void kmsvt_con_resize_all(void)
{
	int i;

	for (i = 0; i < MAX_NR_CONSOLES; i++)
		if (kmsvt_con_is_ours(vc_cons[i].d))
			kmsvt_con_set_geometry(vc_cons[i].d, false);
	kmsvt_con_invalidate();
}

static int kmsvt_con_resize(struct vc_data *vc, unsigned int width, unsigned int height)
{
	if (!kmsvt_con.kdev)
		return -ENODEV;
	if (width > kmsvt_con_cols(&kmsvt_con) || height > kmsvt_con_rows(&kmsvt_con))
		return -EINVAL;
	kmsvt_con_invalidate();
	return 0;
}

/* Fonts KMSVT_CON_FONT_WIDTH wide of 256 glyphs, @vpitch bytes a glyph in @font->data. */
static int kmsvt_con_font_set(struct vc_data *vc, const struct console_font *font,
			      unsigned int vpitch)
{
	struct kmsvt_con *con = &kmsvt_con;
	u8 *data;
	u32 c;
	int ret;

	if (!con->kdev)
		return -ENODEV;
	if (font->width != KMSVT_CON_FONT_WIDTH || font->charcount != 256 || !font->height ||
	    font->height > min(vpitch, KMSVT_CON_FONT_MAX_HEIGHT) ||
	    kmsvt_con_text_height(con) < font->height)
		return -EINVAL;
	data = kmalloc_array(256, font->height, GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	for (c = 0; c < 256; c++)
		memcpy(data + c * font->height, font->data + c * vpitch, font->height);
	ret = kmsvt_con_font_use(con, data, font->height, data);
	if (ret)
		return ret;
	kmsvt_con_resize_all();
	return 0;
}

static int kmsvt_con_font_get(struct vc_data *vc, struct console_font *font,
			      unsigned int vpitch)
{
	struct kmsvt_con *con = &kmsvt_con;
	u32 c;

	if (!con->kdev)
		return -ENODEV;
	font->width = con->font.width;
	font->height = con->font.height;
	font->charcount = 256;
	if (!font->data)
		return 0;
	if (vpitch < con->font.height)
		return -EINVAL;
	for (c = 0; c < 256; c++) {
		memcpy(font->data + c * vpitch, con->font.data + c * con->font.height,
		       con->font.height);
		memset(font->data + c * vpitch + con->font.height, 0, vpitch - con->font.height);
	}
	return 0;
}

/* Only fonts KMSVT_CON_FONT_WIDTH wide of 256 glyphs; VGA8x16 when none is named. */
static int kmsvt_con_font_default(struct vc_data *vc, struct console_font *font,
				  const char *name)
{
	struct kmsvt_con *con = &kmsvt_con;
	const struct font_desc *desc = name ? find_font(name) : &font_vga_8x16;
	int ret;

	if (!con->kdev)
		return -ENODEV;
	if (!desc || desc->width != KMSVT_CON_FONT_WIDTH || desc->charcount != 256)
		return -ENOENT;
	ret = kmsvt_con_font_use(con, desc->data, desc->height, NULL);
	if (ret)
		return ret;
	font->width = con->font.width;
	font->height = desc->height;
	font->charcount = 256;
	kmsvt_con_resize_all();
	return 0;
}

/* The consw entry points, whose types changed in 6.9 (compat.h). */
#if KMSVT_CONSW_6_9
static void kmsvt_con_putc(struct vc_data *vc, u16 ca, unsigned int y, unsigned int x)
{
	kmsvt_con_dirty();
}

static void kmsvt_con_putcs(struct vc_data *vc, const u16 *s, unsigned int count,
			    unsigned int y, unsigned int x)
{
	kmsvt_con_dirty();
}

static void kmsvt_con_cursor(struct vc_data *vc, bool enable)
{
	kmsvt_con_show_cursor(vc, enable);
}

static bool kmsvt_con_blank(struct vc_data *vc, enum vesa_blank_mode blank, bool mode_switch)
{
	return kmsvt_con_blank_screen(vc, blank, mode_switch);
}

static int kmsvt_con_font_set_op(struct vc_data *vc, const struct console_font *font,
				 unsigned int vpitch, unsigned int flags)
{
	return kmsvt_con_font_set(vc, font, vpitch);
}

static int kmsvt_con_font_get_op(struct vc_data *vc, struct console_font *font,
				 unsigned int vpitch)
{
	return kmsvt_con_font_get(vc, font, vpitch);
}

static int kmsvt_con_resize_op(struct vc_data *vc, unsigned int width, unsigned int height,
			       bool from_user)
{
	return kmsvt_con_resize(vc, width, height);
}

static int kmsvt_con_font_default_op(struct vc_data *vc, struct console_font *font,
				     const char *name)
{
	return kmsvt_con_font_default(vc, font, name);
}
#else
static void kmsvt_con_putc(struct vc_data *vc, int c, int y, int x)
{
	kmsvt_con_dirty();
}

static void kmsvt_con_putcs(struct vc_data *vc, const unsigned short *s, int count, int y,
			    int x)
{
	kmsvt_con_dirty();
}

static void kmsvt_con_cursor(struct vc_data *vc, int mode)
{
	kmsvt_con_show_cursor(vc, mode == CM_DRAW);
}

static int kmsvt_con_blank(struct vc_data *vc, int blank, int mode_switch)
{
	return kmsvt_con_blank_screen(vc, blank, mode_switch);
}

/* Before 6.9 fonts come with 32 bytes a glyph. */
static int kmsvt_con_font_set_op(struct vc_data *vc, struct console_font *font,
				 unsigned int flags)
{
	return kmsvt_con_font_set(vc, font, 32);
}

static int kmsvt_con_font_get_op(struct vc_data *vc, struct console_font *font)
{
	return kmsvt_con_font_get(vc, font, 32);
}

static int kmsvt_con_resize_op(struct vc_data *vc, unsigned int width, unsigned int height,
			       unsigned int user)
{
	return kmsvt_con_resize(vc, width, height);
}

static int kmsvt_con_font_default_op(struct vc_data *vc, struct console_font *font, char *name)
{
	return kmsvt_con_font_default(vc, font, name);
}
#endif

/* No .owner: every bound VT would pin the module; removal unbinds them instead. */
static const struct consw kmsvt_consw = {
	.con_startup = kmsvt_con_startup,
	.con_init = kmsvt_con_init,
	.con_deinit = kmsvt_con_deinit,
	.con_clear = kmsvt_con_clear,
	.con_putc = kmsvt_con_putc,
	.con_putcs = kmsvt_con_putcs,
	.con_cursor = kmsvt_con_cursor,
	.con_scroll = kmsvt_con_scroll,
	.con_switch = kmsvt_con_switch,
	.con_blank = kmsvt_con_blank,
	.con_font_set = kmsvt_con_font_set_op,
	.con_font_get = kmsvt_con_font_get_op,
	.con_font_default = kmsvt_con_font_default_op,
	.con_resize = kmsvt_con_resize_op,
	.con_set_palette = kmsvt_con_set_palette,
};

/*
 * Is a text VT in front (the console's picture due on screen)?  Without
 * the console lock: a hint for taking the display back, which is safe
 * whatever the answer.
 */
bool kmsvt_con_text_in_front(void)
{
	struct vc_data *vc = vc_cons[READ_ONCE(fg_console)].d;

	return vc && READ_ONCE(vc->vc_mode) == KD_TEXT;
}

/* ---- attach to a device ---- */

/*
 * Let the VTs' driver (fbcon, which took them when the framebuffer was
 * registered) go first.  Taken over directly, fbcon never sees itself
 * unbound: the VT core rebinds VT by VT, fbcon frees its state for the
 * framebuffer only when it holds no VT, and VTs not yet allocated are
 * rebound after the last one it deinits.  It then opens the framebuffer
 * anew when it gets the VTs back, and the state of every probe leaked.
 * Unbound as a whole, it frees that state at once.  Caller holds the
 * console lock.
 */
static void kmsvt_con_unbind_previous(void)
{
	const struct consw *prev = vc_cons[fg_console].d->vc_sw;

	if (prev != &kmsvt_consw)
		do_unbind_con_driver(prev, 0, MAX_NR_CONSOLES - 1, 0);
}

/*
 * Take every VT from fbcon.  One device has the VTs; another one's
 * framebuffer stays with fbcon.  @display is how the console asks the
 * fbdev emulation for the display (fbdev.c).
 */
void kmsvt_con_attach(struct kmsvt_device *kdev, struct fb_info *info,
		      const struct kmsvt_con_display *display)
{
	struct kmsvt_con *con = &kmsvt_con;
	int ret;

	if (!kmsvt_vtcon || con->kdev)
		return;
	console_lock();
	con->rotate = kmsvt_con_rotate;
	ret = kmsvt_con_font_use(con, font_vga_8x16.data, font_vga_8x16.height, NULL);
	if (ret) {
		console_unlock();
		drm_err(&kdev->drm, "console: no memory for the turned font, fbcon keeps the VTs\n");
		return;
	}
	con->kdev = kdev;
	con->info = info;
	con->display = display;
	con->shown_vc = -1;
	con->cursor_x = -1;
	con->blanked = false;
	con->suspended = false;
	init_irq_work(&con->kick, kmsvt_con_kick);
	INIT_DELAYED_WORK(&con->draw, kmsvt_con_draw);
	kmsvt_con_unbind_previous();
	ret = do_take_over_console(&kmsvt_consw, 0, MAX_NR_CONSOLES - 1, 1);
	if (ret)
		con->kdev = NULL;
	console_unlock();
	if (ret)
		drm_err(&kdev->drm, "console: cannot take the VTs (%d), fbcon keeps them\n", ret);
}

/* Give the VTs back (to fbcon, or the system console) before the buffer goes. */
void kmsvt_con_detach(struct kmsvt_device *kdev)
{
	struct kmsvt_con *con = &kmsvt_con;

	if (con->kdev != kdev)
		return;
	console_lock();
	do_unbind_con_driver(&kmsvt_consw, 0, MAX_NR_CONSOLES - 1, 1);
	do_unregister_con_driver(&kmsvt_consw);
	con->kdev = NULL;
	console_unlock();
	irq_work_sync(&con->kick);
	cancel_delayed_work_sync(&con->draw);
	kfree(con->shown);
	con->shown = NULL;
	con->shown_cols = 0;
	con->shown_rows = 0;
	kmsvt_con_font_free(con);
}

/* The mode changed (fbset, console lock held): new cell counts. */
void kmsvt_con_mode_changed(struct kmsvt_device *kdev)
{
	if (kmsvt_con.kdev == kdev)
		kmsvt_con_resize_all();
}

/* Around a system sleep: no drawing; everything again after resume. */
void kmsvt_con_set_suspend(struct kmsvt_device *kdev, bool suspend)
{
	if (kmsvt_con.kdev != kdev)
		return;
	kmsvt_con.suspended = suspend;
	if (!suspend)
		kmsvt_con_invalidate();
}
