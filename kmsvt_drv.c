// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt: KMS console and panic display for QEMU's Bochs/std-VGA devices.
 *
 * The driver's root: device probe and teardown, the DRM driver and mode
 * configuration, power management, and what joins the parts: kms/ (mode
 * setting), gem/ (buffers and the VRAM layout), fbdev/ (the console) and
 * panic/.  The parts below never call up into each other's callers; what
 * one needs to tell another goes through here (a master dropping its role,
 * a commit landing with no master).
 */
#include <linux/aperture.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pci.h>
#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_drv.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_gem_ttm_helper.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_modeset_helper.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <drm/drm_probe_helper.h>
#include <drm/drm_vblank.h>

#include "compat.h"
#include "kmsvt_drv.h"
#include "kms/dispi.h"

unsigned int kmsvt_fbdev_bpp = 32;

static int kmsvt_set_fbdev_bpp(const char *val, const struct kernel_param *kp)
{
	unsigned int bpp;
	int ret = kstrtouint(val, 0, &bpp);

	if (ret || (bpp != 16 && bpp != 32)) {
		pr_err(KMSVT_NAME ": fbdev_bpp=%s is not supported (use 16 or 32)\n", val);
		return -EINVAL;
	}
	return param_set_uint(val, kp);
}

static const struct kernel_param_ops kmsvt_fbdev_bpp_ops = {
	.set = kmsvt_set_fbdev_bpp,
	.get = param_get_uint,
};

module_param_cb(fbdev_bpp, &kmsvt_fbdev_bpp_ops, &kmsvt_fbdev_bpp, 0444);
MODULE_PARM_DESC(fbdev_bpp, "console framebuffer depth: 32 (XRGB8888, default) or 16 (RGB565)");

/*
 * Scanout reads VRAM in place, so damage is on screen the moment it is
 * drawn: accept DirtyFB without the blocking commit of the atomic helper
 * (which would make every Xorg damage flush wait a frame).
 */
static int kmsvt_fb_dirty(struct drm_framebuffer *fb, struct drm_file *file, unsigned int flags,
			  unsigned int color, struct drm_clip_rect *clips, unsigned int num_clips)
{
	return 0;
}

static const struct drm_framebuffer_funcs kmsvt_fb_funcs = {
	.destroy = drm_gem_fb_destroy,
	.create_handle = drm_gem_fb_create_handle,
	.dirty = kmsvt_fb_dirty,
};

/* Only our own buffers can be scanned out; refuse anything imported. */
static struct drm_framebuffer *kmsvt_fb_create(struct drm_device *drm, struct drm_file *file,
					       KMSVT_FB_CREATE_INFO_PARAM
					       const struct drm_mode_fb_cmd2 *cmd)
{
	struct drm_gem_object *obj;
	bool ours;

	/*
	 * 6.1's core accepts DRM_FORMAT_MOD_INVALID with DRM_MODE_FB_MODIFIERS
	 * and only SetCrtc refuses the result later (kmscube hits this).
	 * Refuse it here, as newer kernels do, so clients retry without.
	 */
	if ((cmd->flags & DRM_MODE_FB_MODIFIERS) && cmd->modifier[0] == DRM_FORMAT_MOD_INVALID)
		return ERR_PTR(-EINVAL);

	obj = drm_gem_object_lookup(file, cmd->handles[0]);
	if (!obj)
		return ERR_PTR(-ENOENT);
	ours = kmsvt_gem_is_ours(obj);
	drm_gem_object_put(obj);
	if (!ours)
		return ERR_PTR(-EINVAL);
	return kmsvt_gem_fb_create_with_funcs(drm, file, info, cmd, &kmsvt_fb_funcs);
}

/*
 * Another client's picture landed while nobody is master: a commit that
 * passed the master check before its master dropped the role.  The console
 * takes the display back if a text VT is in front.  The picture's owner
 * is read before the commit's hardware is done: after that the next
 * commit may replace and free this one's new state.
 */
static void kmsvt_commit_tail(struct kmsvt_atomic_state *state)
{
	struct kmsvt_device *kdev = to_kmsvt(state->dev);
	struct drm_plane_state *plane = drm_atomic_get_new_plane_state(state, &kdev->primary);
	bool foreign = plane && plane->visible && !kmsvt_gem_is_console(plane->fb->obj[0]);

	kmsvt_crtc_commit_tail(state);
	if (foreign && !READ_ONCE(kdev->drm.master))
		kmsvt_fbdev_unowned(kdev);
}

static const struct drm_mode_config_helper_funcs kmsvt_mode_config_helpers = {
	.atomic_commit_tail = kmsvt_commit_tail,
};

static const struct drm_mode_config_funcs kmsvt_mode_config_funcs = {
	.fb_create = kmsvt_fb_create,
	.atomic_check = drm_atomic_helper_check,
	.atomic_commit = drm_atomic_helper_commit,
};

DEFINE_DRM_GEM_FOPS(kmsvt_fops);

static void kmsvt_debugfs_init(struct drm_minor *minor)
{
	kmsvt_gem_debugfs_init(minor);
	kmsvt_scanout_debugfs_init(minor);
	kmsvt_con_debugfs_init(minor);
	kmsvt_panic_debugfs_init(to_kmsvt(minor->dev), minor->debugfs_root);
}

static void kmsvt_master_drop(struct drm_device *drm, struct drm_file *file)
{
	kmsvt_crtc_master_drop(to_kmsvt(drm));
	kmsvt_fbdev_unowned(to_kmsvt(drm));
}

static const struct drm_driver kmsvt_driver = {
	.driver_features = DRIVER_MODESET | DRIVER_GEM | DRIVER_ATOMIC,
	.fops = &kmsvt_fops,
	.name = KMSVT_NAME,
	.desc = "KMS console for QEMU Bochs/std-VGA",
	KMSVT_DRIVER_DATE("20261203")
	.major = 1,
	.minor = 0,
	.dumb_create = kmsvt_gem_dumb_create,
	.dumb_map_offset = drm_gem_ttm_dumb_map_offset,
	.gem_prime_import = kmsvt_gem_prime_import,
	.debugfs_init = kmsvt_debugfs_init,
	.master_drop = kmsvt_master_drop,
	KMSVT_PRIME_CALLBACKS
};

static int kmsvt_modeset_init(struct kmsvt_device *kdev)
{
	struct drm_device *drm = &kdev->drm;
	int ret;

	ret = drmm_mode_config_init(drm);
	if (ret)
		return ret;
	drm->mode_config.min_width = DISPI_MIN_RES;
	drm->mode_config.min_height = DISPI_MIN_RES;
	drm->mode_config.max_width = DISPI_MAX_XRES;
	drm->mode_config.max_height = DISPI_MAX_YRES;
	drm->mode_config.preferred_depth = 24;
	drm->mode_config.funcs = &kmsvt_mode_config_funcs;
	drm->mode_config.helper_private = &kmsvt_mode_config_helpers;

	ret = kmsvt_plane_init(kdev);
	if (ret)
		return ret;
	ret = kmsvt_crtc_init(kdev);
	if (ret)
		return ret;
	ret = kmsvt_output_init(kdev);
	if (ret)
		return ret;
	ret = drm_vblank_init(drm, 1);
	if (ret)
		return ret;
	drm_mode_config_reset(drm);
	return 0;
}

static void kmsvt_release(struct drm_device *drm, void *data)
{
	kmsvt_hw_fini(to_kmsvt(drm));
}

static int kmsvt_pci_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	struct kmsvt_device *kdev;
	int ret;

	kdev = devm_drm_dev_alloc(&pdev->dev, &kmsvt_driver, struct kmsvt_device, drm);
	if (IS_ERR(kdev))
		return PTR_ERR(kdev);
	pci_set_drvdata(pdev, &kdev->drm);

	ret = kmsvt_hw_init(kdev);
	if (ret)
		return ret;
	kmsvt_vram_layout(kdev);
	ret = drmm_add_action(&kdev->drm, kmsvt_release, NULL);
	if (ret)
		return ret;
	ret = kmsvt_gem_init(kdev);
	if (ret)
		return ret;

	ret = kmsvt_modeset_init(kdev);
	if (ret)
		return ret;
	ret = kmsvt_panic_init(kdev);
	if (ret)
		return ret;
	/*
	 * Before the first probe: 6.1's probe helper marks polling as running
	 * whether or not it was set up, and would then never start it.
	 */
	drm_kms_helper_poll_init(&kdev->drm);
	ret = drm_dev_register(&kdev->drm, 0);
	if (ret) {
		drm_kms_helper_poll_fini(&kdev->drm);
		return ret;
	}
	kmsvt_fbdev_init(kdev);
	kmsvt_pstore_init(kdev);
	return 0;
}

static void kmsvt_pci_remove(struct pci_dev *pdev)
{
	struct drm_device *drm = pci_get_drvdata(pdev);

	drm_kms_helper_poll_fini(drm);
	drm_dev_unplug(drm);
	drm_atomic_helper_shutdown(drm);
}

static void kmsvt_pci_shutdown(struct pci_dev *pdev)
{
	drm_atomic_helper_shutdown(pci_get_drvdata(pdev));
}

/*
 * Firmware may reset the display on resume (DISPI off: QEMU then says the
 * guest has not initialised it; Debian 12's QEMU 7.2 keeps the registers);
 * VRAM keeps its contents.  Suspend saves the
 * atomic state with the CRTC off; resume programs the byte order again and
 * commits the saved state, which sets the mode and the scanout as they
 * were: the console's buffer or a master's picture, and what the panic
 * screen draws into.
 */
static int kmsvt_pm_suspend(struct device *dev)
{
	struct kmsvt_device *kdev = to_kmsvt(dev_get_drvdata(dev));
	int ret;

	kmsvt_fbdev_set_suspend(kdev, true);
	ret = drm_mode_config_helper_suspend(&kdev->drm);
	if (ret)
		kmsvt_fbdev_set_suspend(kdev, false);
	return ret;
}

static int kmsvt_pm_resume(struct device *dev)
{
	struct kmsvt_device *kdev = to_kmsvt(dev_get_drvdata(dev));
	int ret;

	kmsvt_hw_resume(kdev);
	ret = drm_mode_config_helper_resume(&kdev->drm);
	kmsvt_fbdev_set_suspend(kdev, false);
	return ret;
}

static DEFINE_SIMPLE_DEV_PM_OPS(kmsvt_pm_ops, kmsvt_pm_suspend, kmsvt_pm_resume);

static const struct pci_device_id kmsvt_pci_ids[] = {
	{ PCI_DEVICE(0x1234, 0x1111) },	/* QEMU std-VGA, secondary-vga, bochs-display */
	{ }
};
MODULE_DEVICE_TABLE(pci, kmsvt_pci_ids);

static struct pci_driver kmsvt_pci_driver = {
	.name = KMSVT_NAME,
	.id_table = kmsvt_pci_ids,
	.probe = kmsvt_pci_probe,
	.remove = kmsvt_pci_remove,
	.shutdown = kmsvt_pci_shutdown,
	.driver.pm = pm_sleep_ptr(&kmsvt_pm_ops),
};

module_pci_driver(kmsvt_pci_driver);

MODULE_AUTHOR("The kmsvt developers");
MODULE_DESCRIPTION("KMS console and panic display for QEMU Bochs/std-VGA");
MODULE_LICENSE("GPL");
