// SPDX-License-Identifier: GPL-2.0
/*
 * Encoder and connector: a virtual monitor that is always connected and
 * describes itself with the EDID QEMU puts in the MMIO BAR.
 */
#include <drm/drm_atomic_helper.h>
#include <drm/drm_edid.h>
#include <drm/drm_probe_helper.h>

#include "compat.h"
#include "kmsvt_drv.h"
#include "kms/dispi.h"

/* Largest mode offered without EDID; EDID modes are limited by VRAM only. */
#define NOEDID_MAX_W 1920
#define NOEDID_MAX_H 1200

/*
 * The vblank hrtimer runs at the mode's refresh: keep it between 1 Hz and
 * 240 Hz, and the pixel clock (kHz) below 2 GHz, so that a client's
 * made-up timings cannot turn the timer into an interrupt storm.
 */
#define KMSVT_MAX_CLOCK		2000000
#define KMSVT_MIN_REFRESH_MHZ	1000
#define KMSVT_MAX_REFRESH_MHZ	240000

static enum drm_mode_status kmsvt_mode_timing_valid(const struct drm_display_mode *mode)
{
	u64 frame = (u64)mode->htotal * mode->vtotal, mhz;

	if (mode->clock <= 0 || !frame)
		return MODE_CLOCK_LOW;
	if (mode->clock > KMSVT_MAX_CLOCK)
		return MODE_CLOCK_HIGH;
	mhz = div64_u64((u64)mode->clock * 1000000, frame);
	if (mhz < KMSVT_MIN_REFRESH_MHZ)
		return MODE_CLOCK_LOW;
	if (mhz > KMSVT_MAX_REFRESH_MHZ)
		return MODE_CLOCK_HIGH;
	return MODE_OK;
}

enum drm_mode_status kmsvt_mode_valid(struct kmsvt_device *kdev,
				      const struct drm_display_mode *mode)
{
	u64 size = (u64)ALIGN(mode->hdisplay * 4, 64) * mode->vdisplay;
	enum drm_mode_status status;

	if (mode->hdisplay % 8)
		return MODE_H_ILLEGAL;
	if (mode->hdisplay < DISPI_MIN_RES || mode->vdisplay < DISPI_MIN_RES)
		return MODE_BAD;
	if (mode->hdisplay > DISPI_MAX_XRES)
		return MODE_BAD_HVALUE;
	if (mode->vdisplay > DISPI_MAX_YRES)
		return MODE_BAD_VVALUE;
	status = kmsvt_mode_timing_valid(mode);
	if (status != MODE_OK)
		return status;
	/*
	 * Every mode must fit at 32 bpp, with room for a second buffer to flip
	 * to, in the VRAM buffers can be pinned in: not the panic buffer, and
	 * not the console's once it exists.
	 */
	if (!kmsvt_gem_mode_fits(kdev, size))
		return MODE_MEM;
	return MODE_OK;
}

static int kmsvt_connector_get_modes(struct drm_connector *connector)
{
	struct kmsvt_device *kdev = to_kmsvt(connector->dev);
	const struct drm_edid *edid = kmsvt_hw_read_edid(kdev);
	int count;

	drm_edid_free(kdev->edid);
	kdev->edid = edid;
	count = kmsvt_edid_update_modes(connector, edid);
	count += drm_add_modes_noedid(connector, NOEDID_MAX_W, NOEDID_MAX_H);
	if (!edid)
		drm_set_preferred_mode(connector, 1024, 768);
	return count;
}

static bool kmsvt_edid_same(const struct drm_edid *a, const struct drm_edid *b)
{
	const struct edid *ra = a ? drm_edid_raw(a) : NULL, *rb = b ? drm_edid_raw(b) : NULL;

	if (!ra || !rb)
		return ra == rb;
	return ra->extensions == rb->extensions &&
	       !memcmp(ra, rb, (ra->extensions + 1) * EDID_LENGTH);
}

/*
 * The display has no hotplug line: the connector is polled, and what can
 * change is QEMU's EDID (or a debugfs edid_override), e.g. its preferred
 * mode.  A new one bumps the epoch, and the poll then sends the hotplug
 * event that has the console pick the new mode.
 */
static int kmsvt_connector_detect(struct drm_connector *connector,
				  struct drm_modeset_acquire_ctx *ctx, bool force)
{
	struct kmsvt_device *kdev = to_kmsvt(connector->dev);
	const struct drm_edid *edid = kmsvt_hw_read_edid(kdev);

	if (kmsvt_edid_same(edid, kdev->edid)) {
		drm_edid_free(edid);
	} else {
		drm_edid_free(kdev->edid);
		kdev->edid = edid;
		connector->epoch_counter++;
	}
	return connector_status_connected;
}

static enum drm_mode_status kmsvt_connector_mode_valid(struct drm_connector *connector,
						       KMSVT_MODE_VALID_CONST
						       struct drm_display_mode *mode)
{
	return kmsvt_mode_valid(to_kmsvt(connector->dev), mode);
}

static const struct drm_connector_helper_funcs kmsvt_connector_helper_funcs = {
	.get_modes = kmsvt_connector_get_modes,
	.detect_ctx = kmsvt_connector_detect,
	.mode_valid = kmsvt_connector_mode_valid,
};

static const struct drm_connector_funcs kmsvt_connector_funcs = {
	.fill_modes = drm_helper_probe_single_connector_modes,
	.destroy = drm_connector_cleanup,
	.reset = drm_atomic_helper_connector_reset,
	.atomic_duplicate_state = drm_atomic_helper_connector_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_connector_destroy_state,
};

static const struct drm_encoder_funcs kmsvt_encoder_funcs = {
	.destroy = drm_encoder_cleanup,
};

int kmsvt_output_init(struct kmsvt_device *kdev)
{
	struct drm_connector *connector = &kdev->connector;
	struct drm_encoder *encoder = &kdev->encoder;
	int ret;

	ret = drm_encoder_init(&kdev->drm, encoder, &kmsvt_encoder_funcs,
			       DRM_MODE_ENCODER_VIRTUAL, NULL);
	if (ret)
		return ret;
	encoder->possible_crtcs = drm_crtc_mask(&kdev->crtc);

	ret = drm_connector_init(&kdev->drm, connector, &kmsvt_connector_funcs,
				 DRM_MODE_CONNECTOR_VIRTUAL);
	if (ret)
		return ret;
	drm_connector_helper_add(connector, &kmsvt_connector_helper_funcs);
	connector->polled = DRM_CONNECTOR_POLL_CONNECT | DRM_CONNECTOR_POLL_DISCONNECT;
	drm_connector_attach_edid_property(connector);
	return drm_connector_attach_encoder(connector, encoder);
}
