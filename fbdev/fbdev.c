// SPDX-License-Identifier: GPL-2.0
/*
 * fbdev emulation for fbcon, as an in-kernel DRM client.
 *
 * The console gets one dumb buffer, pinned in VRAM for as long as the
 * console exists, and draws into it directly (VRAM is scanned out in place,
 * so there is no shadow buffer and no damage worker).  fbcon may draw at any
 * moment, also while a master's buffer is on screen, so its buffer must
 * never move.  Because it is never moved or cleared, taking the display back
 * after a DRM master leaves only needs the client's modeset restored: the
 * console text is still there.
 */
#include <linux/console.h>
#include <linux/fb.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <drm/drm_client.h>
#include <drm/drm_drv.h>
#include <drm/drm_edid.h>
#include <drm/drm_modes.h>
#include <drm/drm_vblank.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_print.h>

#include "compat.h"
#include "kmsvt_drv.h"
#include "draw/draw.h"

struct kmsvt_fbdev {
	struct drm_client_dev client;
	struct drm_client_buffer *buffer;
	struct fb_info *info;
	bool pinned;			/* buffer pinned in VRAM */
	struct fb_var_screeninfo shown;	/* the mode and offsets last set */
	u32 pseudo_palette[16];
	/* The device nodes /dev/fbN was mapped through (see kmsvt_fb_mmap). */
	struct mutex nodes_lock;
	struct list_head nodes;
	/* Taking the display back again, after a commit that failed. */
	struct delayed_work retake;
	unsigned int retakes;
};

struct kmsvt_fb_node {
	struct list_head link;
	struct inode *inode;		/* a reference held */
};

static struct kmsvt_fbdev *to_fbdev(struct drm_client_dev *client)
{
	return container_of(client, struct kmsvt_fbdev, client);
}

static void kmsvt_fbdev_free_buffer(struct kmsvt_fbdev *fbdev)
{
	if (!fbdev->buffer)
		return;
	if (fbdev->pinned)
		kmsvt_gem_unpin_console(fbdev->buffer->fb->obj[0]);
	kmsvt_client_buffer_delete(fbdev->buffer);
	fbdev->buffer = NULL;
}

/* Give the display back to the console, unless a DRM master holds it. */
static int kmsvt_fbdev_restore(struct drm_client_dev *client)
{
	int ret = drm_client_modeset_commit(client);

	return ret == -EBUSY ? 0 : ret;
}

/*
 * A mode of @w x @h for the console's CRTC: the connector's own of that
 * size (its preferred first) or else a CVT mode, if the CRTC takes it.
 * The caller owns the copy.
 */
static struct drm_display_mode *kmsvt_fbdev_mode(struct kmsvt_fbdev *fbdev,
						 struct drm_mode_set *modeset, u32 w, u32 h)
{
	struct drm_device *drm = fbdev->client.dev;
	struct drm_display_mode *mode, *found = NULL;
	struct drm_connector *conn = modeset->num_connectors ? modeset->connectors[0] : NULL;

	if (conn) {
		mutex_lock(&drm->mode_config.mutex);
		list_for_each_entry(mode, &conn->modes, head) {
			if (mode->hdisplay != w || mode->vdisplay != h)
				continue;
			if (!found || mode->type & DRM_MODE_TYPE_PREFERRED)
				found = mode;
		}
		if (found)
			found = drm_mode_duplicate(drm, found);
		mutex_unlock(&drm->mode_config.mutex);
	}
	if (!found) {
		found = drm_cvt_mode(drm, w, h, 60, false, false, false);
		if (found)
			drm_mode_set_crtcinfo(found, CRTC_INTERLACE_HALVE_V);
	}
	if (found && kmsvt_mode_valid(to_kmsvt(drm), found) != MODE_OK) {
		drm_mode_destroy(drm, found);
		found = NULL;
	}
	return found;
}

/*
 * Make @var's size and offsets those of every CRTC the console uses (or,
 * with @dry_run, only check that the CRTCs take that size).
 */
static int kmsvt_fbdev_apply(struct kmsvt_fbdev *fbdev, const struct fb_var_screeninfo *var,
			     bool dry_run)
{
	struct drm_client_dev *client = &fbdev->client;
	struct drm_display_mode *mode;
	struct drm_mode_set *modeset;
	int ret = 0;

	mutex_lock(&client->modeset_mutex);
	drm_client_for_each_modeset(modeset, client) {
		if (!modeset->mode)
			continue;
		if (!dry_run) {
			modeset->x = var->xoffset;
			modeset->y = var->yoffset;
		}
		if (modeset->mode->hdisplay == var->xres && modeset->mode->vdisplay == var->yres)
			continue;
		mode = kmsvt_fbdev_mode(fbdev, modeset, var->xres, var->yres);
		if (!mode) {
			ret = -EINVAL;
			break;
		}
		if (dry_run) {
			drm_mode_destroy(client->dev, mode);
			continue;
		}
		drm_mode_destroy(client->dev, modeset->mode);
		modeset->mode = mode;
	}
	mutex_unlock(&client->modeset_mutex);
	return ret;
}

/*
 * Show @var: its mode and offsets, committed unless a master holds the
 * display.  What the display does not take is undone in the client too.
 */
static int kmsvt_fbdev_show(struct kmsvt_fbdev *fbdev, const struct fb_var_screeninfo *var)
{
	int ret = kmsvt_fbdev_apply(fbdev, var, false);
	bool resized;

	if (!ret)
		ret = kmsvt_fbdev_restore(&fbdev->client);
	if (ret) {
		kmsvt_fbdev_apply(fbdev, &fbdev->shown, false);
		return ret;
	}
	resized = var->xres != fbdev->shown.xres || var->yres != fbdev->shown.yres;
	fbdev->shown = *var;
	if (resized)
		kmsvt_con_mode_changed(to_kmsvt(fbdev->client.dev));
	return 0;
}

static int kmsvt_fb_set_par(struct fb_info *info)
{
	return kmsvt_fbdev_show(info->par, &info->var);
}

/*
 * fbset and friends: any mode the CRTC takes that fits in the console's
 * buffer, at the buffer's depth.  The virtual screen is the buffer itself
 * (its pitch fixes the virtual width), so a smaller mode can pan in it.
 * The buffer is never replaced: fbcon and /dev/fb0's mappings point into
 * it, and VRAM it gives up could hold another client's picture.
 */
static int kmsvt_fb_check_var(struct fb_var_screeninfo *var, struct fb_info *info)
{
	struct kmsvt_fbdev *fbdev = info->par;
	const struct drm_framebuffer *fb = fbdev->buffer->fb;
	const struct drm_mode_config *config = &fbdev->client.dev->mode_config;
	int ret;

	if (var->bits_per_pixel != info->var.bits_per_pixel || var->grayscale ||
	    var->nonstd || var->xres < config->min_width || var->yres < config->min_height ||
	    var->xres > fb->width || var->yres > fb->height || var->xres % 8 ||
	    var->xres_virtual > fb->width || var->yres_virtual > fb->height)
		return -EINVAL;
	ret = kmsvt_fbdev_apply(fbdev, var, true);
	if (ret)
		return ret;
	var->xres_virtual = fb->width;
	var->yres_virtual = fb->height;
	/* Offsets that the new size leaves no room for are moved in. */
	var->xoffset = round_down(min(var->xoffset, fb->width - var->xres), info->fix.xpanstep);
	var->yoffset = min(var->yoffset, fb->height - var->yres);
	var->red = info->var.red;
	var->green = info->var.green;
	var->blue = info->var.blue;
	var->transp = info->var.transp;
	return 0;
}

/*
 * Scanout offsets change with a plane update, latched at the next vblank.
 * fbcon pans to where the screen already is on every VT switch: that
 * costs no commit (and no frame of waiting).
 */
static int kmsvt_fb_pan_display(struct fb_var_screeninfo *var, struct fb_info *info)
{
	struct kmsvt_fbdev *fbdev = info->par;
	struct fb_var_screeninfo to = fbdev->shown;

	if (to.xoffset == var->xoffset && to.yoffset == var->yoffset)
		return 0;
	to.xoffset = var->xoffset;
	to.yoffset = var->yoffset;
	return kmsvt_fbdev_show(fbdev, &to);
}

/*
 * FBIO_WAITFORVSYNC: back after the next vblank, or at once with the CRTC
 * off.  Not drm_crtc_wait_one_vblank(): a master may turn the CRTC off
 * while we wait, and that helper then warns after 100 ms of no vblank.
 * Here the wait ends when vblank goes off too, and a signal ends it.
 */
static int kmsvt_fb_ioctl(struct fb_info *info, unsigned int cmd, unsigned long arg)
{
	struct kmsvt_fbdev *fbdev = info->par;
	struct drm_crtc *crtc = &to_kmsvt(fbdev->client.dev)->crtc;
	struct drm_vblank_crtc *vblank = &crtc->dev->vblank[drm_crtc_index(crtc)];
	u64 last;
	long ret;
	u32 screen;

	if (cmd != FBIO_WAITFORVSYNC)
		return -ENOTTY;
	if (get_user(screen, (u32 __user *)arg))
		return -EFAULT;
	if (screen)
		return -EINVAL;
	if (drm_crtc_vblank_get(crtc))
		return 0;
	last = drm_crtc_vblank_count(crtc);
	ret = wait_event_interruptible_timeout(vblank->queue,
					       drm_crtc_vblank_count(crtc) != last ||
					       !READ_ONCE(vblank->enabled),
					       msecs_to_jiffies(100));
	drm_crtc_vblank_put(crtc);
	return ret < 0 ? ret : 0;
}

static int kmsvt_fb_setcolreg(unsigned int regno, unsigned int red, unsigned int green,
			      unsigned int blue, unsigned int transp, struct fb_info *info)
{
	const struct fb_var_screeninfo *var = &info->var;
	u32 *palette = info->pseudo_palette;

	if (regno >= ARRAY_SIZE(((struct kmsvt_fbdev *)NULL)->pseudo_palette))
		return -EINVAL;
	palette[regno] = (red >> (16 - var->red.length)) << var->red.offset |
			 (green >> (16 - var->green.length)) << var->green.offset |
			 (blue >> (16 - var->blue.length)) << var->blue.offset;
	return 0;
}

/*
 * A colour map is 256 entries at most; at true colour only the first 16
 * mean anything (fbcon's palette), the rest are kept for FBIOGETCMAP.
 */
static int kmsvt_fb_setcmap(struct fb_cmap *cmap, struct fb_info *info)
{
	u32 i;

	if (cmap->start >= info->cmap.len || cmap->len > info->cmap.len - cmap->start)
		return -EINVAL;
	for (i = 0; i < cmap->len && cmap->start + i < 16; i++)
		kmsvt_fb_setcolreg(cmap->start + i, cmap->red[i], cmap->green[i], cmap->blue[i], 0,
				   info);
	return 0;
}

static int kmsvt_fbdev_dpms(struct kmsvt_fbdev *fbdev, bool blank)
{
	int ret = drm_client_modeset_dpms(&fbdev->client,
					  blank ? DRM_MODE_DPMS_OFF : DRM_MODE_DPMS_ON);

	return ret == -EBUSY ? 0 : ret;
}

static int kmsvt_fb_blank(int blank, struct fb_info *info)
{
	return kmsvt_fbdev_dpms(info->par, blank != FB_BLANK_UNBLANK);
}

/* The console's blanking (console lock held). */
static void kmsvt_fbdev_blank(struct kmsvt_device *kdev, bool blank)
{
	if (kdev->fbdev)
		kmsvt_fbdev_dpms(kdev->fbdev, blank);
}

/*
 * The display back to the console after a master left, or a VT left
 * graphics mode.  A commit that fails, for want of memory for its state
 * most likely, would leave the screen black until the next master leaves:
 * try again, a few frames apart, for a second, then say so.
 */
#define KMSVT_RETAKE_TRIES	20
#define KMSVT_RETAKE_MS		50

static int kmsvt_fbdev_take_back(struct kmsvt_fbdev *fbdev)
{
	int ret = kmsvt_fbdev_restore(&fbdev->client);

	if (!ret) {
		fbdev->retakes = 0;
		kmsvt_con_shown(to_kmsvt(fbdev->client.dev));
	} else if (++fbdev->retakes < KMSVT_RETAKE_TRIES) {
		schedule_delayed_work(&fbdev->retake, msecs_to_jiffies(KMSVT_RETAKE_MS));
	} else {
		drm_err(fbdev->client.dev, "console: cannot take the display back (%d)\n", ret);
		fbdev->retakes = 0;
	}
	return ret;
}

static void kmsvt_fbdev_retake(struct work_struct *work)
{
	kmsvt_fbdev_take_back(container_of(to_delayed_work(work), struct kmsvt_fbdev, retake));
}

/*
 * Nobody holds the display and a text VT is in front, yet the console's
 * picture may not be what is on screen: a master dropped its role after
 * the switch to that VT tried to give the display back (the console's
 * restore then found it busy), or a commit of its that had passed the
 * master check before the drop landed after the restore.  Take it back,
 * from a worker (callers hold the master lock or are in a commit); the
 * restore yields to any master that came meanwhile.
 */
void kmsvt_fbdev_unowned(struct kmsvt_device *kdev)
{
	struct kmsvt_fbdev *fbdev = kdev->fbdev;

	if (fbdev && kmsvt_con_text_in_front())
		mod_delayed_work(system_wq, &fbdev->retake, msecs_to_jiffies(KMSVT_RETAKE_MS));
}

/* A VT leaves graphics mode: the console's mode again, unless a master holds the display. */
static void kmsvt_fbdev_restore_display(struct kmsvt_device *kdev)
{
	if (kdev->fbdev)
		kmsvt_fbdev_take_back(kdev->fbdev);
}

static const struct kmsvt_con_display kmsvt_fbdev_display = {
	.restore = kmsvt_fbdev_restore_display,
	.blank = kmsvt_fbdev_blank,
};

/*
 * /dev/fbN mappings of the console's buffer in VRAM.  fb_io_mmap() maps the
 * whole range at once, and the mapping outlives the device: after a PCI
 * remove, writes through it go to whatever the BAR's address holds next,
 * the VRAM of the device probed again at a rescan.  Here pages are mapped
 * on fault, inside drm_dev_enter(), and the device nodes mapped through are
 * kept, so that unplugging unmaps them all: a later access is SIGBUS.
 */
static vm_fault_t kmsvt_fb_vm_fault(struct vm_fault *vmf)
{
	struct fb_info *info = vmf->vma->vm_private_data;
	struct kmsvt_fbdev *fbdev = info->par;
	unsigned long pages = PAGE_ALIGN(info->fix.smem_len) >> PAGE_SHIFT;
	vm_fault_t ret = VM_FAULT_SIGBUS;
	int idx;

	if (vmf->pgoff >= pages || !drm_dev_enter(fbdev->client.dev, &idx))
		return VM_FAULT_SIGBUS;
	ret = vmf_insert_pfn(vmf->vma, vmf->address,
			     (info->fix.smem_start >> PAGE_SHIFT) + vmf->pgoff);
	drm_dev_exit(idx);
	return ret;
}

static const struct vm_operations_struct kmsvt_fb_vm_ops = {
	.fault = kmsvt_fb_vm_fault,
};

/* Keep a reference to the node @inode, once: unplug unmaps through it. */
static int kmsvt_fb_track_node(struct kmsvt_fbdev *fbdev, struct inode *inode)
{
	struct kmsvt_fb_node *node;
	int ret = 0;

	mutex_lock(&fbdev->nodes_lock);
	list_for_each_entry(node, &fbdev->nodes, link)
		if (node->inode == inode)
			goto out;
	node = kmalloc(sizeof(*node), GFP_KERNEL);
	if (!node) {
		ret = -ENOMEM;
		goto out;
	}
	ihold(inode);
	node->inode = inode;
	list_add(&node->link, &fbdev->nodes);
out:
	mutex_unlock(&fbdev->nodes_lock);
	return ret;
}

static int kmsvt_fb_mmap(struct fb_info *info, struct vm_area_struct *vma)
{
	unsigned long pages = PAGE_ALIGN(info->fix.smem_len) >> PAGE_SHIFT;
	unsigned long len = vma_pages(vma);
	int ret;

	if (vma->vm_pgoff > pages || len > pages - vma->vm_pgoff)
		return -EINVAL;
	ret = kmsvt_fb_track_node(info->par, file_inode(vma->vm_file));
	if (ret)
		return ret;
	vma->vm_page_prot = pgprot_writecombine(vm_get_page_prot(vma->vm_flags));
	kmsvt_vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &kmsvt_fb_vm_ops;
	vma->vm_private_data = info;
	return 0;
}

/* The device is going: no mapping of its VRAM may stay in any process. */
static void kmsvt_fb_unmap_all(struct kmsvt_fbdev *fbdev)
{
	struct kmsvt_fb_node *node;

	mutex_lock(&fbdev->nodes_lock);
	list_for_each_entry(node, &fbdev->nodes, link)
		unmap_mapping_range(node->inode->i_mapping, 0, 0, 1);
	mutex_unlock(&fbdev->nodes_lock);
}

static void kmsvt_fb_put_nodes(struct kmsvt_fbdev *fbdev)
{
	struct kmsvt_fb_node *node, *tmp;

	list_for_each_entry_safe(node, tmp, &fbdev->nodes, link) {
		iput(node->inode);
		kfree(node);
	}
	mutex_destroy(&fbdev->nodes_lock);
}

/* Last user of /dev/fbN or the console is gone: free everything. */
static void kmsvt_fb_destroy(struct fb_info *info)
{
	struct kmsvt_fbdev *fbdev = info->par;

	kmsvt_fbdev_free_buffer(fbdev);
	drm_client_release(&fbdev->client);
	fb_dealloc_cmap(&info->cmap);
	framebuffer_release(info);
	kmsvt_fb_put_nodes(fbdev);
	kfree(fbdev);
}

/*
 * Only userspace opens of /dev/fbN pin the module.  With fb_ops.owner set,
 * fbcon would pin it too and "rmmod kmsvt" could never succeed; instead,
 * device removal unbinds fbcon through unregister_framebuffer().
 */
static int kmsvt_fb_open(struct fb_info *info, int user)
{
	if (user && !try_module_get(THIS_MODULE))
		return -ENODEV;
	return 0;
}

static int kmsvt_fb_release(struct fb_info *info, int user)
{
	if (user)
		module_put(THIS_MODULE);
	return 0;
}

/*
 * Once the panic screen is up, the console must not draw over it: panic()
 * flushes the console after the screen is drawn, and fbcon's cursor blinks.
 * An oops banner likewise keeps the top rows: console drawing is clipped
 * below it.
 */
static bool kmsvt_fb_clip(struct fb_info *info, u32 *dy, u32 *height, u32 *sy)
{
	struct kmsvt_fbdev *fbdev = info->par;
	struct kmsvt_device *kdev = to_kmsvt(fbdev->client.dev);
	u32 top, cut;

	if (kmsvt_scanout_taken(kdev))
		return false;
	top = kmsvt_scanout_banner(kdev);
	if (*dy >= top)
		return true;
	cut = top - *dy;
	if (cut >= *height || !sy)
		return false;
	*dy += cut;
	*sy += cut;
	*height -= cut;
	return true;
}

/*
 * fbcon's drawing is the console's speed: without acceleration it redraws
 * every changed cell, and the whole screen on every scrolled line.  Text
 * (1-bit images in two palette colours) and plain fills are drawn here, 8
 * bytes a store from a table of the words a bit pattern makes; anything
 * else (the boot logo, XOR fills) goes to the generic helpers.
 */
static bool kmsvt_fb_fast(const struct fb_info *info, u32 color1, u32 color2)
{
	u32 bpp = info->var.bits_per_pixel;

	return (bpp == 32 || bpp == 16) && color1 < 16 && color2 < 16;
}

static void kmsvt_fb_fill(struct fb_info *info, const struct fb_fillrect *r)
{
	u32 px = ((u32 *)info->pseudo_palette)[r->color], cpp = info->var.bits_per_pixel / 8;
	u32 pitch = info->fix.line_length, y;
	u8 __iomem *row = info->screen_base + r->dy * pitch + r->dx * cpp;

	for (y = 0; y < r->height; y++, row += pitch)
		kmsvt_fill_span(row, cpp, px, r->width);
}

static void kmsvt_fb_fillrect(struct fb_info *info, const struct fb_fillrect *rect)
{
	struct fb_fillrect r = *rect;
	u32 sy = 0;

	if (!kmsvt_fb_clip(info, &r.dy, &r.height, &sy))
		return;
	if (r.rop == ROP_COPY && kmsvt_fb_fast(info, r.color, r.color))
		kmsvt_fb_fill(info, &r);
	else
		cfb_fillrect(info, &r);
}

static void kmsvt_fb_copyarea(struct fb_info *info, const struct fb_copyarea *area)
{
	struct fb_copyarea a = *area;

	if (kmsvt_fb_clip(info, &a.dy, &a.height, &a.sy))
		cfb_copyarea(info, &a);
}

/* A 1-bit image: rows of (width + 7) / 8 bytes, leftmost pixel in bit 7. */
static void kmsvt_fb_blit_mono(struct fb_info *info, const struct fb_image *image)
{
	const u32 *pal = info->pseudo_palette;
	u32 cpp = info->var.bits_per_pixel / 8, pitch = info->fix.line_length;
	u32 src_pitch = DIV_ROUND_UP(image->width, 8), whole = image->width / 8;
	u8 __iomem *row = info->screen_base + image->dy * pitch + image->dx * cpp;
	const u8 *src = image->data;
	struct kmsvt_ink ink;
	u32 y;

	kmsvt_ink_init(&ink, cpp, pal[image->fg_color], pal[image->bg_color]);
	for (y = 0; y < image->height; y++, row += pitch, src += src_pitch) {
		kmsvt_ink_bytes(&ink, row, src, whole);
		if (image->width % 8)
			kmsvt_ink_part(&ink, row + whole * 8 * cpp, src[whole],
				       image->width % 8);
	}
}

/* Glyph rows are not cut: one overlapping the banner is left out whole. */
static void kmsvt_fb_imageblit(struct fb_info *info, const struct fb_image *image)
{
	u32 dy = image->dy, height = image->height;

	if (!kmsvt_fb_clip(info, &dy, &height, NULL))
		return;
	if (image->depth == 1 && kmsvt_fb_fast(info, image->fg_color, image->bg_color))
		kmsvt_fb_blit_mono(info, image);
	else
		cfb_imageblit(info, image);
}

static const struct fb_ops kmsvt_fb_ops = {
	.fb_open = kmsvt_fb_open,
	.fb_release = kmsvt_fb_release,
	.fb_read = kmsvt_fb_read,
	.fb_write = kmsvt_fb_write,
	.fb_mmap = kmsvt_fb_mmap,
	.fb_fillrect = kmsvt_fb_fillrect,
	.fb_copyarea = kmsvt_fb_copyarea,
	.fb_imageblit = kmsvt_fb_imageblit,
	.fb_check_var = kmsvt_fb_check_var,
	.fb_set_par = kmsvt_fb_set_par,
	.fb_pan_display = kmsvt_fb_pan_display,
	.fb_ioctl = kmsvt_fb_ioctl,
	.fb_setcolreg = kmsvt_fb_setcolreg,
	.fb_setcmap = kmsvt_fb_setcmap,
	.fb_blank = kmsvt_fb_blank,
	.fb_destroy = kmsvt_fb_destroy,
};

static void kmsvt_fill_var(struct fb_var_screeninfo *var, const struct drm_framebuffer *fb)
{
	var->xres = fb->width;
	var->yres = fb->height;
	var->xres_virtual = fb->width;
	var->yres_virtual = fb->height;
	var->bits_per_pixel = fb->format->cpp[0] * 8;
	var->activate = FB_ACTIVATE_NOW;
	var->height = -1;
	var->width = -1;
	if (fb->format->format == DRM_FORMAT_RGB565) {
		var->red = (struct fb_bitfield){ .offset = 11, .length = 5 };
		var->green = (struct fb_bitfield){ .offset = 5, .length = 6 };
		var->blue = (struct fb_bitfield){ .offset = 0, .length = 5 };
	} else {
		var->red = (struct fb_bitfield){ .offset = 16, .length = 8 };
		var->green = (struct fb_bitfield){ .offset = 8, .length = 8 };
		var->blue = (struct fb_bitfield){ .offset = 0, .length = 8 };
	}
}

static int kmsvt_fbdev_register(struct kmsvt_fbdev *fbdev)
{
	struct kmsvt_device *kdev = to_kmsvt(fbdev->client.dev);
	struct drm_framebuffer *fb = fbdev->buffer->fb;
	s64 offset = kmsvt_gem_vram_offset(fb->obj[0]);
	struct fb_info *info;
	int ret;

	info = framebuffer_alloc(0, kdev->drm.dev);
	if (!info)
		return -ENOMEM;
	info->par = fbdev;
	info->fbops = &kmsvt_fb_ops;
	info->flags = FBINFO_DEFAULT;
	info->pseudo_palette = fbdev->pseudo_palette;
	info->screen_base = kdev->vram + offset;
	info->screen_size = fb->obj[0]->size;

	strscpy(info->fix.id, KMSVT_NAME, sizeof(info->fix.id));
	info->fix.type = FB_TYPE_PACKED_PIXELS;
	info->fix.visual = FB_VISUAL_TRUECOLOR;
	info->fix.line_length = fb->pitches[0];
	info->fix.smem_start = kdev->vram_base + offset;
	info->fix.smem_len = fb->obj[0]->size;
	info->fix.xpanstep = 8;		/* DISPI's scanout starts on 8-pixel groups */
	info->fix.ypanstep = 1;
	kmsvt_fill_var(&info->var, fb);
	fbdev->shown = info->var;

	ret = fb_alloc_cmap(&info->cmap, 256, 0);
	if (ret)
		goto err_release;
	ret = register_framebuffer(info);
	if (ret)
		goto err_cmap;
	fbdev->info = info;
	kmsvt_con_attach(kdev, info, &kmsvt_fbdev_display);
	return 0;

err_cmap:
	fb_dealloc_cmap(&info->cmap);
err_release:
	framebuffer_release(info);
	return ret;
}

/* Every CRTC the console lights shows its buffer; the size of the largest mode in @w, @h. */
static void kmsvt_fbdev_use_buffer(struct kmsvt_fbdev *fbdev, u32 *w, u32 *h)
{
	struct drm_client_dev *client = &fbdev->client;
	struct drm_mode_set *modeset;

	mutex_lock(&client->modeset_mutex);
	drm_client_for_each_modeset(modeset, client) {
		if (!modeset->mode)
			continue;
		modeset->fb = fbdev->buffer->fb;
		if (w)
			*w = max_t(u32, *w, modeset->mode->hdisplay);
		if (h)
			*h = max_t(u32, *h, modeset->mode->vdisplay);
	}
	mutex_unlock(&client->modeset_mutex);
}

/* Pick modes for the connectors, and one buffer that covers all of them. */
static int kmsvt_fbdev_setup(struct kmsvt_fbdev *fbdev)
{
	struct drm_client_dev *client = &fbdev->client;
	u32 format = kmsvt_fbdev_bpp == 16 ? DRM_FORMAT_RGB565 : DRM_FORMAT_XRGB8888;
	struct drm_mode_set *modeset;
	u32 width = 0, height = 0;
	int ret;

	ret = drm_client_modeset_probe(client, 0, 0);
	if (ret)
		return ret;

	mutex_lock(&client->modeset_mutex);
	drm_client_for_each_modeset(modeset, client) {
		if (!modeset->mode)
			continue;
		width = max_t(u32, width, modeset->mode->hdisplay);
		height = max_t(u32, height, modeset->mode->vdisplay);
	}
	mutex_unlock(&client->modeset_mutex);
	if (!width || !height)
		return -ENODEV;

	fbdev->buffer = kmsvt_client_buffer_create(client, width, height, format);
	if (IS_ERR(fbdev->buffer)) {
		ret = PTR_ERR(fbdev->buffer);
		fbdev->buffer = NULL;
		return ret;
	}
	ret = kmsvt_gem_pin_console(fbdev->buffer->fb->obj[0]);
	if (ret)
		return ret;
	fbdev->pinned = true;

	kmsvt_fbdev_use_buffer(fbdev, NULL, NULL);
	ret = kmsvt_fbdev_restore(client);
	if (ret)
		return ret;
	return kmsvt_fbdev_register(fbdev);
}

/*
 * A re-probe: the connectors' preferred modes again, among those that fit
 * the console's buffer (it is never replaced, see kmsvt_fb_check_var()),
 * and the console takes the new size, as fbset would set it.
 */
/*
 * A size set here rather than through FBIOPUT_VSCREENINFO (which does the
 * same in fb_set_var()) goes into the fb's mode list too: fbcon, when it
 * gets the VTs back (kmsvt unloaded), looks the current size up there and
 * dereferences what it finds.  Caller holds the console lock.
 */
static int kmsvt_fbdev_add_mode(struct fb_info *info)
{
	struct fb_videomode mode;
	int ret;

	fb_var_to_videomode(&mode, &info->var);
	lock_fb_info(info);
	ret = fb_add_videomode(&mode, &info->modelist);
	unlock_fb_info(info);
	return ret;
}

static int kmsvt_fbdev_hotplug(struct drm_client_dev *client)
{
	struct kmsvt_fbdev *fbdev = to_fbdev(client);
	const struct drm_framebuffer *fb;
	struct fb_var_screeninfo var;
	u32 w = 0, h = 0;
	int ret;

	if (!fbdev->info)
		return 0;
	fb = fbdev->buffer->fb;
	ret = drm_client_modeset_probe(client, fb->width, fb->height);
	if (ret)
		return ret;
	kmsvt_fbdev_use_buffer(fbdev, &w, &h);
	if (!w || !h)
		return kmsvt_fbdev_restore(client);

	/* The console reads its new size from the var being shown. */
	console_lock();
	var = fbdev->info->var;
	fbdev->info->var.xres = w;
	fbdev->info->var.yres = h;
	fbdev->info->var.xoffset = 0;
	fbdev->info->var.yoffset = 0;
	ret = kmsvt_fbdev_show(fbdev, &fbdev->info->var);
	if (ret)
		fbdev->info->var = var;
	else
		ret = kmsvt_fbdev_add_mode(fbdev->info);
	console_unlock();
	return ret;
}

static void kmsvt_fbdev_unregister(struct drm_client_dev *client)
{
	struct kmsvt_fbdev *fbdev = to_fbdev(client);

	to_kmsvt(client->dev)->fbdev = NULL;
	cancel_delayed_work_sync(&fbdev->retake);

	if (fbdev->info) {
		kmsvt_con_detach(to_kmsvt(client->dev));
		kmsvt_fb_unmap_all(fbdev);
		/* fb_destroy frees the rest once the last user is gone. */
		unregister_framebuffer(fbdev->info);
		return;
	}
	kmsvt_fbdev_free_buffer(fbdev);
	drm_client_release(client);
	kmsvt_fb_put_nodes(fbdev);
	kfree(fbdev);
}

/*
 * Around a system sleep: fbcon stops drawing, and redraws the whole screen
 * on resume, once the display is back.
 */
void kmsvt_fbdev_set_suspend(struct kmsvt_device *kdev, bool suspend)
{
	struct kmsvt_fbdev *fbdev = kdev->fbdev;

	if (!fbdev || !fbdev->info)
		return;
	console_lock();
	fb_set_suspend(fbdev->info, suspend);
	kmsvt_con_set_suspend(kdev, suspend);
	console_unlock();
}

/* The last master closed its file: the console's picture again. */
static int kmsvt_fbdev_client_restore(KMSVT_CLIENT_RESTORE_PARAMS)
{
	return kmsvt_fbdev_take_back(to_fbdev(client));
}

/* No .owner: the client lives and dies with the device, not beyond it. */
static const struct drm_client_funcs kmsvt_fbdev_funcs = {
	.unregister = kmsvt_fbdev_unregister,
	.restore = kmsvt_fbdev_client_restore,
	.hotplug = kmsvt_fbdev_hotplug,
};

/* A console failure is not a device failure: KMS clients still work. */
void kmsvt_fbdev_init(struct kmsvt_device *kdev)
{
	struct kmsvt_fbdev *fbdev;
	int ret;

	fbdev = kzalloc(sizeof(*fbdev), GFP_KERNEL);
	if (!fbdev)
		return;
	mutex_init(&fbdev->nodes_lock);
	INIT_LIST_HEAD(&fbdev->nodes);
	INIT_DELAYED_WORK(&fbdev->retake, kmsvt_fbdev_retake);
	ret = drm_client_init(&kdev->drm, &fbdev->client, "kmsvt-fbdev", &kmsvt_fbdev_funcs);
	if (ret) {
		kmsvt_fb_put_nodes(fbdev);
		kfree(fbdev);
		goto err;
	}
	ret = kmsvt_fbdev_setup(fbdev);
	/* Registered even on failure: unregister is what frees the client. */
	drm_client_register(&fbdev->client);
	if (!ret) {
		kdev->fbdev = fbdev;
		return;
	}
err:
	drm_err(&kdev->drm, "fbdev: no console (%d)\n", ret);
}
