// SPDX-License-Identifier: GPL-2.0
/*
 * The console's fonts: any that fbcon takes (1 to 32 pixels wide and high,
 * 256 or 512 glyphs), the kernel's built-in ones or a VT's own from
 * KDFONTOP (setfont).  A font for a turned screen (rotate=) has its glyphs
 * turned here, once, as fbcon turns its font once: drawing a cell then
 * copies rows whatever the rotation.  Called with the console lock held.
 */
#include <linux/console.h>
#include <linux/fb.h>
#include <linux/font.h>
#include <linux/kd.h>
#include <linux/slab.h>

#include "con.h"

static bool kmsvt_con_font_bit(const u8 *rows, u32 pitch, u32 x, u32 y)
{
	return rows[y * pitch + x / 8] & (0x80 >> (x % 8));
}

/*
 * Pixel (@x, @y) of a glyph @w wide and @h high where the screen shows it,
 * turned as fbcon turns it (fbcon_rotate.h): clockwise, the glyph's bottom
 * row becomes its left column.
 */
static void kmsvt_con_font_turn_px(u32 rotate, u32 w, u32 h, u32 x, u32 y, u32 *sx, u32 *sy)
{
	switch (rotate) {
	case FB_ROTATE_CW:
		*sx = h - 1 - y;
		*sy = x;
		break;
	case FB_ROTATE_UD:
		*sx = w - 1 - x;
		*sy = h - 1 - y;
		break;
	default:			/* FB_ROTATE_CCW */
		*sx = y;
		*sy = w - 1 - x;
		break;
	}
}

/* @font's glyphs as the screen shows them: turned for @rotate, or its own. */
static int kmsvt_con_font_turn(struct kmsvt_con_font *font, u32 rotate)
{
	u32 glyph = font->height * font->pitch, c, x, y, sx, sy;
	u8 *out;

	font->gw = rotate & 1 ? font->height : font->width;
	font->gh = rotate & 1 ? font->width : font->height;
	font->gpitch = DIV_ROUND_UP(font->gw, 8);
	if (rotate == FB_ROTATE_UR) {
		font->glyphs = font->data;
		return 0;
	}
	out = kvcalloc(font->charcount, font->gh * font->gpitch, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	for (c = 0; c < font->charcount; c++) {
		const u8 *in = font->data + c * glyph;
		u8 *to = out + c * font->gh * font->gpitch;

		for (y = 0; y < font->height; y++)
			for (x = 0; x < font->width; x++) {
				if (!kmsvt_con_font_bit(in, font->pitch, x, y))
					continue;
				kmsvt_con_font_turn_px(rotate, font->width, font->height, x, y,
						       &sx, &sy);
				to[sy * font->gpitch + sx / 8] |= 0x80 >> (sx % 8);
			}
	}
	font->turned = out;
	font->glyphs = out;
	return 0;
}

static void kmsvt_con_font_release(struct kref *ref)
{
	struct kmsvt_con_font *font = container_of(ref, struct kmsvt_con_font, ref);

	kvfree(font->turned);
	kvfree(font->own);
	kfree(font);
}

void kmsvt_con_font_put(struct kmsvt_con_font *font)
{
	if (font)
		kref_put(&font->ref, kmsvt_con_font_release);
}

/* A font over @data (@own: the font's to free), turned for @rotate. */
static struct kmsvt_con_font *kmsvt_con_font_new(const u8 *data, u8 *own, u32 width,
						 u32 height, u32 charcount, u32 rotate)
{
	struct kmsvt_con_font *font = kzalloc(sizeof(*font), GFP_KERNEL);

	if (!font) {
		kvfree(own);
		return NULL;
	}
	kref_init(&font->ref);
	font->width = width;
	font->height = height;
	font->charcount = charcount;
	font->pitch = DIV_ROUND_UP(width, 8);
	font->data = data;
	font->own = own;
	if (kmsvt_con_font_turn(font, rotate)) {
		kmsvt_con_font_put(font);
		return NULL;
	}
	return font;
}

/* One of the kernel's fonts (lib/fonts), drawn from its own data. */
struct kmsvt_con_font *kmsvt_con_font_builtin(const struct font_desc *desc, u32 rotate)
{
	return kmsvt_con_font_new(desc->data, NULL, desc->width, desc->height,
				  desc->charcount, rotate);
}

/*
 * A VT's own font from KDFONTOP: glyph i at @font->data + i * @vpitch
 * rows, as the vt layer hands it over, kept @height rows a glyph.  The
 * caller checked the sizes.
 */
struct kmsvt_con_font *kmsvt_con_font_copy(const struct console_font *font, u32 vpitch,
					   u32 rotate)
{
	u32 pitch = DIV_ROUND_UP(font->width, 8), glyph = font->height * pitch, c;
	u8 *data = kvmalloc_array(font->charcount, glyph, GFP_KERNEL);

	if (!data)
		return NULL;
	for (c = 0; c < font->charcount; c++)
		memcpy(data + c * glyph, font->data + c * vpitch * pitch, glyph);
	return kmsvt_con_font_new(data, data, font->width, font->height, font->charcount,
				  rotate);
}

/* The same glyphs: one font can serve both VTs. */
bool kmsvt_con_font_same(const struct kmsvt_con_font *a, const struct kmsvt_con_font *b)
{
	return a->width == b->width && a->height == b->height &&
	       a->charcount == b->charcount &&
	       !memcmp(a->data, b->data, a->charcount * a->height * a->pitch);
}

/* @font into @out for KDFONTOP's get: @vpitch rows a glyph, the rest zero. */
void kmsvt_con_font_export(const struct kmsvt_con_font *font, u8 *out, u32 vpitch)
{
	u32 glyph = font->height * font->pitch, c;

	for (c = 0; c < font->charcount; c++) {
		u8 *to = out + c * vpitch * font->pitch;

		memcpy(to, font->data + c * glyph, glyph);
		memset(to + glyph, 0, (vpitch - font->height) * font->pitch);
	}
}
