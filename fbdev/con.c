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
#include <linux/keyboard.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/tty.h>
#include <linux/vt_buffer.h>
#include <linux/vt_kern.h>
#include <linux/console_struct.h>
#include <linux/workqueue.h>
#include <drm/drm_debugfs.h>
#include <drm/drm_file.h>
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

static char *kmsvt_con_font_name;
module_param_named(font, kmsvt_con_font_name, charp, 0444);
MODULE_PARM_DESC(font, "the console's font, one of the kernel's built-in fonts by name as fbcon=font: takes them (VGA8x16, TER16x32, 10x18, SUN12x22, ...); default VGA8x16");

static unsigned int kmsvt_con_scrollback_kib = 64;
module_param_named(scrollback, kmsvt_con_scrollback_kib, uint, 0444);
MODULE_PARM_DESC(scrollback, "KiB of cells each VT keeps of what scrolls off, for Shift+PageUp/PageDown (default 64: 200 lines of 160 cells); 0 keeps none");

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

/* The font @vc is drawn in: its own, or the console's default. */
static struct kmsvt_con_font *kmsvt_con_vc_font(const struct vc_data *vc)
{
	return kmsvt_con.fonts[vc->vc_num] ?: kmsvt_con.deflt;
}

/* @vc's scrollback, if it has one that matches its width. */
static struct kmsvt_con_back *kmsvt_con_vc_back(const struct vc_data *vc)
{
	struct kmsvt_con_back *back = kmsvt_con.back[vc->vc_num];

	return back && back->cols == vc->vc_cols ? back : NULL;
}

/* Output or a key: the VT is looked at from its bottom again. */
static void kmsvt_con_to_bottom(struct vc_data *vc)
{
	struct kmsvt_con_back *back = kmsvt_con.back[vc->vc_num];

	if (back && back->offset) {
		back->offset = 0;
		kmsvt_con_invalidate();
	}
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

/*
 * Should the cursor blink: a VT of ours drawn, with a cursor, and nobody
 * else's picture on screen (a DRM master's: its hint, read unlocked, as
 * the answer only starts or stops a timer).
 */
static bool kmsvt_con_blinks(struct kmsvt_con *con, const struct vc_data *vc)
{
	return vc && con->cursor_on && CUR_SIZE(vc->vc_cursor_type) != CUR_NONE &&
	       !READ_ONCE(con->kdev->drm.master);
}

/* Draw @vc, the VT in front, in its font and as scrolled back. */
static void kmsvt_con_draw_front(struct kmsvt_con *con, struct vc_data *vc)
{
	kmsvt_con_draw_vc(con, vc, kmsvt_con_vc_font(vc), kmsvt_con_vc_back(vc),
			  kmsvt_scanout_banner(con->kdev));
}

static void kmsvt_con_draw(struct work_struct *work)
{
	struct kmsvt_con *con = &kmsvt_con;
	struct vc_data *vc;

	console_lock();
	if (xchg(&con->key_pressed, false) && kmsvt_con_is_ours(vc_cons[fg_console].d))
		kmsvt_con_to_bottom(vc_cons[fg_console].d);
	vc = kmsvt_con_visible_vc(con);
	if (vc) {
		kmsvt_con_draw_front(con, vc);
		WRITE_ONCE(con->last_draw, jiffies);
	}
	if (kmsvt_con_blinks(con, vc) && !delayed_work_pending(&con->blink))
		schedule_delayed_work(&con->blink, msecs_to_jiffies(vc->vc_cur_blink_ms));
	console_unlock();
}

/*
 * The cursor blinks at the VT's rate (vc_cur_blink_ms, 200 ms unless
 * changed), as fbcon's does; the timer stops while nothing of ours is
 * drawn (graphics mode, blanked, suspended, a panic) or a master holds the
 * display, and the next drawing starts it again.
 */
static void kmsvt_con_blink(struct work_struct *work)
{
	struct kmsvt_con *con = &kmsvt_con;
	struct vc_data *vc;

	console_lock();
	vc = kmsvt_con_visible_vc(con);
	if (kmsvt_con_blinks(con, vc)) {
		con->blink_off = !con->blink_off;
		con->blinks++;
		kmsvt_con_draw_front(con, vc);
		schedule_delayed_work(&con->blink, msecs_to_jiffies(vc->vc_cur_blink_ms));
	} else {
		con->blink_off = false;
	}
	console_unlock();
}

/* ---- the console driver ---- */

static const char *kmsvt_con_startup(void)
{
	return KMSVT_NAME;
}

/* @vc's cells and font as the vt layer sees them: as many as fit in its font. */
static int kmsvt_con_set_geometry(struct vc_data *vc, bool init)
{
	struct kmsvt_con *con = &kmsvt_con;
	const struct kmsvt_con_font *font = kmsvt_con_vc_font(vc);

	vc->vc_font.width = font->width;
	vc->vc_font.height = font->height;
	vc->vc_font.charcount = font->charcount;
	vc->vc_scan_lines = kmsvt_con_text_height(con);
	if (!init)
		return vc_resize(vc, kmsvt_con_cols(con, font), kmsvt_con_rows(con, font));
	vc->vc_cols = kmsvt_con_cols(con, font);
	vc->vc_rows = kmsvt_con_rows(con, font);
	return 0;
}

/*
 * 512 glyphs or 256: the glyph's ninth bit takes the place of the
 * foreground's lowest in every cell of @vc (vc_hi_font_mask), and the
 * cells already written move their colours, as fbcon's set_vc_hi_font()
 * does.  The vt layer writes new cells that way by itself.
 */
static void kmsvt_con_set_hi_font(struct vc_data *vc, bool hi)
{
	u16 *cp = (u16 *)vc->vc_origin;
	u32 count = vc->vc_screenbuf_size / 2;

	if (!!vc->vc_hi_font_mask == hi)
		return;
	vc->vc_hi_font_mask = hi ? 0x100 : 0;
	if (kmsvt_con.back[vc->vc_num])
		kmsvt_con_back_hi_font(kmsvt_con.back[vc->vc_num], hi);
	if (hi) {
		vc->vc_complement_mask <<= 1;
		vc->vc_s_complement_mask <<= 1;
		vc->vc_attr <<= 1;
	} else {
		vc->vc_complement_mask >>= 1;
		vc->vc_s_complement_mask >>= 1;
		vc->vc_attr >>= 1;
	}
	for (; count; count--, cp++)
		scr_writew(kmsvt_con_hi_cell(scr_readw(cp), hi), cp);
	vc->vc_video_erase_char = kmsvt_con_hi_cell(vc->vc_video_erase_char, hi);
}

/*
 * A new VT, or one taken from fbcon: the default font until it gets one,
 * and an empty scrollback (allocated here, where sleeping is allowed).
 */
/*
 * The font of the VT in front, for a VT being made (fbcon_init() does the
 * same): setupcon loads its font into the VTs open at the time, and a VT
 * opened later (openvt, a getty on tty7) gets it too.
 */
static struct kmsvt_con_font *kmsvt_con_front_font(const struct vc_data *vc)
{
	const struct vc_data *front = vc_cons[fg_console].d;
	struct kmsvt_con_font *font;

	if (!front || front == vc)
		return NULL;
	font = kmsvt_con.fonts[front->vc_num];
	if (font)
		kref_get(&font->ref);
	return font;
}

static void kmsvt_con_init(struct vc_data *vc, bool init)
{
	vc->vc_can_do_color = 1;
	vc->vc_complement_mask = 0x7700;	/* swaps foreground and background */
	vc->vc_hi_font_mask = 0;
	kmsvt_con_font_put(kmsvt_con.fonts[vc->vc_num]);
	kmsvt_con.fonts[vc->vc_num] = init ? kmsvt_con_front_font(vc) : NULL;
	/* A new VT has no cells yet: the vt layer writes them with the mask. */
	if (kmsvt_con_vc_font(vc)->charcount == 512) {
		vc->vc_hi_font_mask = 0x100;
		vc->vc_complement_mask <<= 1;
	}
	kmsvt_con_set_geometry(vc, init);
	kmsvt_con_back_free(kmsvt_con.back[vc->vc_num]);
	kmsvt_con.back[vc->vc_num] = kmsvt_con_back_new(kmsvt_con_scrollback_kib * 512,
							vc->vc_cols);
}

/*
 * The VT goes, or goes back to fbcon: its cells as 256 glyphs, its font
 * and scrollback freed.
 */
static void kmsvt_con_deinit(struct vc_data *vc)
{
	kmsvt_con_set_hi_font(vc, false);
	kmsvt_con_font_put(kmsvt_con.fonts[vc->vc_num]);
	kmsvt_con.fonts[vc->vc_num] = NULL;
	kmsvt_con_back_free(kmsvt_con.back[vc->vc_num]);
	kmsvt_con.back[vc->vc_num] = NULL;
}

static void kmsvt_con_clear(struct vc_data *vc, unsigned int y, unsigned int x,
			    unsigned int count)
{
	kmsvt_con_to_bottom(vc);
	kmsvt_con_dirty();
}

/*
 * The vt layer moves the cells; the worker draws what changed.  Rows about
 * to scroll off the top go to the scrollback first (the vt layer calls
 * this for the VT on screen only, as it did for vgacon's).
 */
static bool kmsvt_con_scroll(struct vc_data *vc, unsigned int top, unsigned int bottom,
			     enum con_scroll dir, unsigned int lines)
{
	struct kmsvt_con_back *back = kmsvt_con_vc_back(vc);
	unsigned int i;

	kmsvt_con_to_bottom(vc);
	if (back && dir == SM_UP && top == 0)
		for (i = 0; i < lines; i++)
			kmsvt_con_back_push(back, (u16 *)vc->vc_origin + i * vc->vc_cols);
	kmsvt_con_dirty();
	return false;
}

/* Shift+PageUp/PageDown: @lines back (negative) or forward in the scrollback. */
static void kmsvt_con_scrolldelta(struct vc_data *vc, int lines)
{
	struct kmsvt_con_back *back = kmsvt_con_vc_back(vc);

	if (back && kmsvt_con_back_scroll(back, lines))
		kmsvt_con_invalidate();
}

/* ESC [ 3 J: the scrollback is emptied. */
static void kmsvt_con_flush_scrollback(struct vc_data *vc)
{
	struct kmsvt_con_back *back = kmsvt_con.back[vc->vc_num];

	if (back)
		kmsvt_con_back_flush(back);
	kmsvt_con_invalidate();
}

/*
 * Drawn from the cells by the worker: the vt layer need not redraw them.
 * A VT switched to is looked at from its bottom.  Kernels without
 * con_flush_scrollback (compat.h) empty the scrollback of ESC [ 3 J by
 * calling this for the VT already in front; so do redraws after a resize,
 * which con_resize tells apart.
 */
static bool kmsvt_con_switch(struct vc_data *vc)
{
	struct kmsvt_con *con = &kmsvt_con;
	bool again = con->front_vc == vc->vc_num, resized = con->resized_vc == vc->vc_num;

	con->front_vc = vc->vc_num;
	con->resized_vc = -1;
	if (!again)
		kmsvt_con_to_bottom(vc);
	else if (!KMSVT_CONSW_FLUSH_SCROLLBACK && !resized)
		kmsvt_con_flush_scrollback(vc);
	kmsvt_con_invalidate();
	return false;
}

/* Shown (as after every write) or hidden; shown, it starts a blink on. */
static void kmsvt_con_show_cursor(struct vc_data *vc, bool enable)
{
	if (con_is_visible(vc)) {
		kmsvt_con.cursor_on = enable;
		kmsvt_con.blink_off = false;
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

/* A new mode: every VT of ours gets the cells that now fit in its font. */
static void kmsvt_con_resize_all(void)
{
	int i;

	for (i = 0; i < MAX_NR_CONSOLES; i++)
		if (kmsvt_con_is_ours(vc_cons[i].d))
			kmsvt_con_set_geometry(vc_cons[i].d, false);
	kmsvt_con_invalidate();
}

/*
 * @vc's scrollback laid out @cols wide: what fits is kept.  Without memory
 * for that, an empty one; without memory for that either, none.
 */
static void kmsvt_con_back_resize(struct vc_data *vc, u32 cols)
{
	struct kmsvt_con_back **back = &kmsvt_con.back[vc->vc_num], *to;

	if (!*back || (*back)->cols == cols)
		return;
	to = kmsvt_con_back_relayout(*back, cols, vc->vc_video_erase_char);
	if (!to)
		to = kmsvt_con_back_new((*back)->size, cols);
	kmsvt_con_back_free(*back);
	*back = to;
}

static int kmsvt_con_resize(struct vc_data *vc, unsigned int width, unsigned int height)
{
	const struct kmsvt_con_font *font = kmsvt_con_vc_font(vc);

	if (!kmsvt_con.kdev)
		return -ENODEV;
	if (width > kmsvt_con_cols(&kmsvt_con, font) || height > kmsvt_con_rows(&kmsvt_con, font))
		return -EINVAL;
	kmsvt_con_back_resize(vc, width);
	kmsvt_con.resized_vc = vc->vc_num;
	kmsvt_con_invalidate();
	return 0;
}

/*
 * @font for @vc (NULL: the default), sharing a font another VT has with
 * the same glyphs; the cells follow it.  Takes the caller's reference.
 */
static int kmsvt_con_use_font(struct vc_data *vc, struct kmsvt_con_font *font)
{
	struct kmsvt_con *con = &kmsvt_con;
	struct kmsvt_con_font *old = con->fonts[vc->vc_num];
	u32 hi = vc->vc_hi_font_mask;
	int i, ret;

	for (i = 0; font && i < MAX_NR_CONSOLES; i++) {
		if (con->fonts[i] && con->fonts[i] != font &&
		    kmsvt_con_font_same(con->fonts[i], font)) {
			kmsvt_con_font_put(font);
			font = con->fonts[i];
			kref_get(&font->ref);
			break;
		}
	}
	con->fonts[vc->vc_num] = font;
	kmsvt_con_set_hi_font(vc, kmsvt_con_vc_font(vc)->charcount == 512);
	ret = kmsvt_con_set_geometry(vc, false);
	if (ret) {
		con->fonts[vc->vc_num] = old;
		kmsvt_con_set_hi_font(vc, hi);
		kmsvt_con_set_geometry(vc, false);
		old = font;
	}
	kmsvt_con_font_put(old);
	kmsvt_con_invalidate();
	return ret;
}

/* Does a font @width x @height fit on the screen, and can the console draw it? */
static bool kmsvt_con_font_fits(u32 width, u32 height, u32 charcount)
{
	return width && width <= KMSVT_CON_FONT_MAX_WIDTH && height &&
	       height <= KMSVT_CON_FONT_MAX_HEIGHT && (charcount == 256 || charcount == 512) &&
	       width <= kmsvt_con_text_width(&kmsvt_con) &&
	       height <= kmsvt_con_text_height(&kmsvt_con);
}

/* Any font fbcon takes: 1 to 32 pixels each way, 256 or 512 glyphs of @vpitch rows. */
static int kmsvt_con_font_set(struct vc_data *vc, const struct console_font *font,
			      unsigned int vpitch)
{
	struct kmsvt_con *con = &kmsvt_con;
	struct kmsvt_con_font *own;

	if (!con->kdev)
		return -ENODEV;
	if (!kmsvt_con_font_fits(font->width, font->height, font->charcount) ||
	    font->height > vpitch)
		return -EINVAL;
	own = kmsvt_con_font_copy(font, vpitch, con->rotate);
	if (!own)
		return -ENOMEM;
	return kmsvt_con_use_font(vc, own);
}

static int kmsvt_con_font_get(struct vc_data *vc, struct console_font *font,
			      unsigned int vpitch)
{
	const struct kmsvt_con_font *own = kmsvt_con_vc_font(vc);

	if (!kmsvt_con.kdev)
		return -ENODEV;
	font->width = own->width;
	font->height = own->height;
	font->charcount = own->charcount;
	if (!font->data)
		return 0;
	if (vpitch < own->height)
		return -EINVAL;
	kmsvt_con_font_export(own, font->data, vpitch);
	return 0;
}

/* A built-in font by name (setfont -d's PIO_FONTRESET: none, the default). */
static int kmsvt_con_font_default(struct vc_data *vc, struct console_font *font,
				  const char *name)
{
	struct kmsvt_con *con = &kmsvt_con;
	const struct font_desc *desc = name ? find_font(name) : NULL;
	struct kmsvt_con_font *own = NULL;
	int ret;

	if (!con->kdev)
		return -ENODEV;
	if (name && !desc)
		return -ENOENT;
	if (desc && !kmsvt_con_font_fits(desc->width, desc->height, desc->charcount))
		return -EINVAL;
	if (desc) {
		own = kmsvt_con_font_builtin(desc, con->rotate);
		if (!own)
			return -ENOMEM;
	}
	ret = kmsvt_con_use_font(vc, own);
	if (ret)
		return ret;
	font->width = kmsvt_con_vc_font(vc)->width;
	font->height = kmsvt_con_vc_font(vc)->height;
	font->charcount = kmsvt_con_vc_font(vc)->charcount;
	return 0;
}

/* The consw entry points, whose types changed in 6.9 (compat.h). */
#if KMSVT_CONSW_6_9
static void kmsvt_con_putc(struct vc_data *vc, u16 ca, unsigned int y, unsigned int x)
{
	kmsvt_con_to_bottom(vc);
	kmsvt_con_dirty();
}

static void kmsvt_con_putcs(struct vc_data *vc, const u16 *s, unsigned int count,
			    unsigned int y, unsigned int x)
{
	kmsvt_con_to_bottom(vc);
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
	kmsvt_con_to_bottom(vc);
	kmsvt_con_dirty();
}

static void kmsvt_con_putcs(struct vc_data *vc, const unsigned short *s, int count, int y,
			    int x)
{
	kmsvt_con_to_bottom(vc);
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
	.con_scrolldelta = kmsvt_con_scrolldelta,
#if KMSVT_CONSW_FLUSH_SCROLLBACK
	.con_flush_scrollback = kmsvt_con_flush_scrollback,
#endif
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

/* The keys that leave the view where it is: modifiers and the scrolling ones. */
static bool kmsvt_con_key_keeps_view(unsigned long code, unsigned int keysym)
{
	unsigned int type = KTYP(keysym) - 0xf0, val = KVAL(keysym);

	if (code != KBD_KEYSYM)
		return false;
	return type == KT_SHIFT ||
	       (type == KT_SPEC && (val == KVAL(K_SCROLLBACK) || val == KVAL(K_SCROLLFORW)));
}

/*
 * A key pressed brings the VT in front back to its bottom, as vgacon did.
 * Called in atomic context: the worker does it.
 */
static int kmsvt_con_key(struct notifier_block *nb, unsigned long code, void *data)
{
	const struct keyboard_notifier_param *param = data;

	if (!param->down || (code != KBD_KEYSYM && code != KBD_UNICODE) ||
	    kmsvt_con_key_keeps_view(code, param->value) || !kmsvt_con_text_in_front())
		return NOTIFY_DONE;
	WRITE_ONCE(kmsvt_con.key_pressed, true);
	kmsvt_con_dirty();
	return NOTIFY_DONE;
}

static struct notifier_block kmsvt_con_keys = {
	.notifier_call = kmsvt_con_key,
};

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

/* The default font: kmsvt.font= if the kernel has it and it fits, or VGA8x16. */
static struct kmsvt_con_font *kmsvt_con_default_font(struct kmsvt_device *kdev)
{
	const char *name = kmsvt_con_font_name;
	const struct font_desc *desc = name && *name ? find_font(name) : NULL;

	if (name && *name &&
	    (!desc || !kmsvt_con_font_fits(desc->width, desc->height, desc->charcount))) {
		drm_warn(&kdev->drm, "console: no built-in font %s that fits, VGA8x16 instead\n",
			 name);
		desc = NULL;
	}
	return kmsvt_con_font_builtin(desc ?: &font_vga_8x16, kmsvt_con.rotate);
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
	con->info = info;
	con->deflt = kmsvt_con_default_font(kdev);
	if (!con->deflt) {
		console_unlock();
		drm_err(&kdev->drm, "console: no memory for the font, fbcon keeps the VTs\n");
		return;
	}
	con->kdev = kdev;
	con->display = display;
	con->shown_vc = -1;
	con->front_vc = -1;
	con->resized_vc = -1;
	con->cursor_x = -1;
	con->blanked = false;
	con->suspended = false;
	init_irq_work(&con->kick, kmsvt_con_kick);
	INIT_DELAYED_WORK(&con->draw, kmsvt_con_draw);
	INIT_DELAYED_WORK(&con->blink, kmsvt_con_blink);
	kmsvt_con_unbind_previous();
	ret = do_take_over_console(&kmsvt_consw, 0, MAX_NR_CONSOLES - 1, 1);
	if (ret) {
		con->kdev = NULL;
		kmsvt_con_font_put(con->deflt);
		con->deflt = NULL;
	}
	console_unlock();
	if (!ret)
		register_keyboard_notifier(&kmsvt_con_keys);
	if (ret)
		drm_err(&kdev->drm, "console: cannot take the VTs (%d), fbcon keeps them\n", ret);
}

/* Give the VTs back (to fbcon, or the system console) before the buffer goes. */
void kmsvt_con_detach(struct kmsvt_device *kdev)
{
	struct kmsvt_con *con = &kmsvt_con;
	int i;

	if (con->kdev != kdev)
		return;
	unregister_keyboard_notifier(&kmsvt_con_keys);
	console_lock();
	do_unbind_con_driver(&kmsvt_consw, 0, MAX_NR_CONSOLES - 1, 1);
	do_unregister_con_driver(&kmsvt_consw);
	con->kdev = NULL;
	/* Unbinding deinit every VT, which put its font and scrollback. */
	for (i = 0; i < MAX_NR_CONSOLES; i++) {
		kmsvt_con_font_put(con->fonts[i]);
		con->fonts[i] = NULL;
		kmsvt_con_back_free(con->back[i]);
		con->back[i] = NULL;
	}
	kmsvt_con_font_put(con->deflt);
	con->deflt = NULL;
	con->shown_font = NULL;
	console_unlock();
	irq_work_sync(&con->kick);
	cancel_delayed_work_sync(&con->draw);
	cancel_delayed_work_sync(&con->blink);
	kfree(con->shown);
	con->shown = NULL;
	con->shown_cols = 0;
	con->shown_rows = 0;
}

/* The mode changed (fbset, console lock held): new cell counts. */
void kmsvt_con_mode_changed(struct kmsvt_device *kdev)
{
	if (kmsvt_con.kdev == kdev)
		kmsvt_con_resize_all();
}

/* The console's picture is on screen again (a master left): the cursor blinks again. */
void kmsvt_con_shown(struct kmsvt_device *kdev)
{
	if (kmsvt_con.kdev == kdev)
		kmsvt_con_dirty();
}

/*
 * debugfs kmsvt_console: the VT in front's font and scrollback, and how
 * often the cursor blinked, for a user (or a test) to see what the console
 * holds.
 */
static int kmsvt_con_debugfs_show(struct seq_file *m, void *data)
{
	struct drm_info_node *node = m->private;
	struct kmsvt_con *con = &kmsvt_con;
	const struct kmsvt_con_font *font;
	const struct kmsvt_con_back *back;
	struct vc_data *vc;

	console_lock();
	vc = vc_cons[fg_console].d;
	if (con->kdev != to_kmsvt(node->minor->dev) || !kmsvt_con_is_ours(vc)) {
		console_unlock();
		seq_puts(m, "vt: none of this device's\n");
		return 0;
	}
	font = kmsvt_con_vc_font(vc);
	back = con->back[vc->vc_num];
	seq_printf(m, "vt: %d\nfont: %ux%u, %u glyphs\n", vc->vc_num + 1, font->width,
		   font->height, font->charcount);
	seq_printf(m, "scrollback: %u of %u rows, %u back\n", back ? back->count : 0,
		   back ? back->rows : 0, back ? back->offset : 0);
	seq_printf(m, "blinks: %llu\n", con->blinks);
	console_unlock();
	return 0;
}

static const struct drm_info_list kmsvt_con_debugfs_list[] = {
	{ "kmsvt_console", kmsvt_con_debugfs_show, 0 },
};

void kmsvt_con_debugfs_init(struct drm_minor *minor)
{
	drm_debugfs_create_files(kmsvt_con_debugfs_list, ARRAY_SIZE(kmsvt_con_debugfs_list),
				 minor->debugfs_root, minor);
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
