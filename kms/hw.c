// SPDX-License-Identifier: GPL-2.0
/*
 * Bochs DISPI hardware access, through the MMIO BAR only.
 *
 * Every exported function touches the device only inside
 * drm_dev_enter/exit: once the device is unplugged (PCI remove) its BARs
 * are unmapped, and a caller that still holds the drm_device (an open file,
 * the vblank timer winding down, a panic) must leave it alone.
 *
 * QEMU lays out BAR 2 as: EDID blob at 0x000, VGA ioports 0x3c0-0x3df at
 * 0x400, DISPI registers (16 bit, index * 2) at 0x500, QEMU extended
 * registers at 0x600.
 */
#include <linux/aperture.h>
#include <linux/io.h>
#include <video/vga.h>
#include <drm/drm_drv.h>
#include <drm/drm_edid.h>
#include <drm/drm_print.h>

#include "kmsvt_drv.h"
#include "kms/dispi.h"

#define MMIO_EDID	0x000
#define MMIO_EDID_SIZE	0x400
#define MMIO_VGA	0x400
#define MMIO_DISPI	0x500
#define MMIO_QEXT	0x600
#define QEXT_BYTEORDER	0x604
#define QEXT_LITTLE	0x1e1e1e1e

static u16 dispi_read(struct kmsvt_device *kdev, u16 reg)
{
	return readw(kdev->mmio + MMIO_DISPI + (reg << 1));
}

static void dispi_write(struct kmsvt_device *kdev, u16 reg, u16 val)
{
	writew(val, kdev->mmio + MMIO_DISPI + (reg << 1));
}

static void kmsvt_vga_write(struct kmsvt_device *kdev, u16 port, u8 val)
{
	writeb(val, kdev->mmio + MMIO_VGA + port - 0x3c0);
}

static u8 kmsvt_vga_read(struct kmsvt_device *kdev, u16 port)
{
	return readb(kdev->mmio + MMIO_VGA + port - 0x3c0);
}

/* The attribute controller gates the display; 0x20 turns it on. */
static void kmsvt_att_blank(struct kmsvt_device *kdev, bool blank)
{
	kmsvt_vga_write(kdev, VGA_MIS_W, VGA_MIS_COLOR);
	kmsvt_vga_read(kdev, VGA_IS1_RC);	/* reset the attribute flip-flop */
	kmsvt_vga_write(kdev, VGA_ATT_W, blank ? 0 : 0x20);
}

void kmsvt_hw_blank(struct kmsvt_device *kdev, bool blank)
{
	int idx;

	if (!drm_dev_enter(&kdev->drm, &idx))
		return;
	kmsvt_att_blank(kdev, blank);
	drm_dev_exit(idx);
}

/*
 * The DAC's first @n entries, for 8 bpp scanout.  QEMU's DAC takes 6 bits
 * per channel unless DISPI's 8-bit DAC flag is set, which kmsvt never sets.
 */
void kmsvt_hw_set_palette(struct kmsvt_device *kdev, const u32 *rgb, unsigned int n)
{
	unsigned int i;
	int idx;

	if (!drm_dev_enter(&kdev->drm, &idx))
		return;
	kmsvt_vga_write(kdev, VGA_PEL_MSK, 0xff);
	kmsvt_vga_write(kdev, VGA_PEL_IW, 0);
	for (i = 0; i < n; i++) {
		kmsvt_vga_write(kdev, VGA_PEL_D, (rgb[i] >> 18) & 0x3f);
		kmsvt_vga_write(kdev, VGA_PEL_D, (rgb[i] >> 10) & 0x3f);
		kmsvt_vga_write(kdev, VGA_PEL_D, (rgb[i] >> 2) & 0x3f);
	}
	drm_dev_exit(idx);
}

static int kmsvt_map_bars(struct kmsvt_device *kdev)
{
	struct pci_dev *pdev = to_pci_dev(kdev->drm.dev);
	int ret;

	if (!(pci_resource_flags(pdev, 2) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, 2) < MMIO_QEXT) {
		drm_err(&kdev->drm,
			"no DISPI MMIO BAR (QEMU device with mmio=off?): not supported\n");
		return -ENODEV;
	}
	if (!(pci_resource_flags(pdev, 0) & IORESOURCE_MEM)) {
		drm_err(&kdev->drm, "no VRAM BAR: not supported\n");
		return -ENODEV;
	}

	/* Take over from vgacon/vesafb/efifb before claiming their memory. */
	ret = aperture_remove_conflicting_pci_devices(pdev, KMSVT_NAME);
	if (ret)
		return ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(0) | BIT(2), KMSVT_NAME);
	if (ret) {
		drm_err(&kdev->drm, "cannot claim BARs: %d\n", ret);
		return ret;
	}
	kdev->mmio = pcim_iomap_table(pdev)[2];
	kdev->vram_base = pci_resource_start(pdev, 0);
	kdev->vram_size = pci_resource_len(pdev, 0);
	return 0;
}

int kmsvt_hw_init(struct kmsvt_device *kdev)
{
	struct pci_dev *pdev = to_pci_dev(kdev->drm.dev);
	resource_size_t dispi_mem;
	int ret;

	ret = kmsvt_map_bars(kdev);
	if (ret)
		return ret;

	kdev->dispi_id = dispi_read(kdev, DISPI_ID);
	if (kdev->dispi_id < DISPI_ID0 || kdev->dispi_id > DISPI_ID5) {
		drm_err(&kdev->drm, "DISPI id %#x is not a Bochs display: not supported\n",
			kdev->dispi_id);
		return -ENODEV;
	}

	dispi_mem = (resource_size_t)dispi_read(kdev, DISPI_VIDEO_MEMORY_64K) << 16;
	if (dispi_mem && dispi_mem < kdev->vram_size)
		kdev->vram_size = dispi_mem;

	/* Write-combined: scanout memory is written a lot and never read back. */
	kdev->vram = devm_ioremap_wc(&pdev->dev, kdev->vram_base, kdev->vram_size);
	if (!kdev->vram)
		return -ENOMEM;

	if (pdev->revision >= 2) {
		kdev->qext_size = readl(kdev->mmio + MMIO_QEXT);
		if (kdev->qext_size < 8 || kdev->qext_size > pci_resource_len(pdev, 2))
			kdev->qext_size = 0;
	}
	kmsvt_hw_resume(kdev);

	drm_info(&kdev->drm, "Bochs DISPI %#x, %llu KiB VRAM at %pa\n",
		 kdev->dispi_id, (u64)kdev->vram_size / 1024, &kdev->vram_base);
	return 0;
}

/* At probe and after a system sleep, which reset the device. */
void kmsvt_hw_resume(struct kmsvt_device *kdev)
{
	int idx;

	if (!drm_dev_enter(&kdev->drm, &idx))
		return;
	/* The framebuffer formats we expose are little endian. */
	if (kdev->qext_size)
		writel(QEXT_LITTLE, kdev->mmio + QEXT_BYTEORDER);
	drm_dev_exit(idx);
}

void kmsvt_hw_fini(struct kmsvt_device *kdev)
{
	drm_edid_free(kdev->edid);
	kdev->edid = NULL;
}

static int kmsvt_edid_block(void *data, u8 *buf, unsigned int block, size_t len)
{
	struct kmsvt_device *kdev = data;
	size_t start = block * EDID_LENGTH;

	if (start + len > MMIO_EDID_SIZE)
		return -EINVAL;
	memcpy_fromio(buf, kdev->mmio + MMIO_EDID + start, len);
	return 0;
}

/* QEMU leaves the EDID window zeroed when the device has edid=off. */
const struct drm_edid *kmsvt_hw_read_edid(struct kmsvt_device *kdev)
{
	const struct drm_edid *edid = NULL;
	u8 header[8];
	int idx;

	if (!drm_dev_enter(&kdev->drm, &idx))
		return NULL;
	kmsvt_edid_block(kdev, header, 0, sizeof(header));
	if (drm_edid_header_is_valid(header) == 8)
		edid = drm_edid_read_custom(&kdev->connector, kmsvt_edid_block, kdev);
	drm_dev_exit(idx);
	return edid;
}

/*
 * DISPI addresses the scanout as (x, y) offsets into a virtual screen of
 * VIRT_WIDTH pixels per line; QEMU resets both offsets to 0 when they are
 * out of range, so check that the offset is expressible before using it.
 */
int kmsvt_hw_scanout_valid(const struct kmsvt_scanout *so, u32 height)
{
	u64 y = div_u64(so->offset, so->pitch);
	u32 x = (so->offset - y * so->pitch) / so->cpp;

	if (so->pitch % (8 * so->cpp))
		return -EINVAL;
	if (so->pitch / so->cpp > DISPI_MAX_XRES)
		return -EINVAL;
	if (so->offset % 4 || (so->offset - y * so->pitch) % so->cpp)
		return -EINVAL;
	if (x > DISPI_MAX_XRES || y > DISPI_MAX_YRES)
		return -ERANGE;
	return 0;
}

/* A blank scanout only turns the picture off; set_mode turns it on again. */
static void kmsvt_set_base(struct kmsvt_device *kdev, const struct kmsvt_scanout *so)
{
	u64 y = div_u64(so->offset, so->pitch);
	u32 x = (so->offset - y * so->pitch) / so->cpp;

	if (so->blank) {
		kmsvt_att_blank(kdev, true);
		return;
	}
	dispi_write(kdev, DISPI_VIRT_WIDTH, so->pitch / so->cpp);
	dispi_write(kdev, DISPI_X_OFFSET, x);
	dispi_write(kdev, DISPI_Y_OFFSET, y);
}

void kmsvt_hw_set_base(struct kmsvt_device *kdev, const struct kmsvt_scanout *so)
{
	int idx;

	if (!drm_dev_enter(&kdev->drm, &idx))
		return;
	kmsvt_set_base(kdev, so);
	drm_dev_exit(idx);
}

void kmsvt_hw_set_mode(struct kmsvt_device *kdev, const struct kmsvt_scanout *so)
{
	int idx;

	if (!drm_dev_enter(&kdev->drm, &idx))
		return;
	if (!so->blank)
		kmsvt_att_blank(kdev, false);
	dispi_write(kdev, DISPI_ENABLE, 0);
	dispi_write(kdev, DISPI_BPP, so->bpp);
	dispi_write(kdev, DISPI_XRES, so->width);
	dispi_write(kdev, DISPI_YRES, so->height);
	dispi_write(kdev, DISPI_BANK, 0);
	/*
	 * NOCLEARMEM: without it QEMU zeroes the start of VRAM on enable,
	 * which is where other clients' buffers (the console's) live.
	 * Enabling resets the virtual width and offsets, so set them after.
	 */
	dispi_write(kdev, DISPI_ENABLE,
		    DISPI_ENABLED | DISPI_LFB_ENABLED | DISPI_NOCLEARMEM);
	kmsvt_set_base(kdev, so);
	drm_dev_exit(idx);
}

void kmsvt_hw_disable(struct kmsvt_device *kdev)
{
	int idx;

	if (!drm_dev_enter(&kdev->drm, &idx))
		return;
	dispi_write(kdev, DISPI_ENABLE, 0);
	kmsvt_att_blank(kdev, true);
	drm_dev_exit(idx);
}
