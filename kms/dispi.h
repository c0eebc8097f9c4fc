/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Bochs DISPI interface: registers and limits.  kms/hw.c is the only
 * code that writes them; the limits also bound the modes (kms/output.c)
 * and the mode configuration (kmsvt_drv.c).
 */
#ifndef KMSVT_DISPI_H
#define KMSVT_DISPI_H

/* DISPI register file in the MMIO BAR (QEMU hw/display/vga-pci.c). */
#define DISPI_ID		0x0
#define DISPI_XRES		0x1
#define DISPI_YRES		0x2
#define DISPI_BPP		0x3
#define DISPI_ENABLE		0x4
#define DISPI_BANK		0x5
#define DISPI_VIRT_WIDTH	0x6
#define DISPI_VIRT_HEIGHT	0x7
#define DISPI_X_OFFSET		0x8
#define DISPI_Y_OFFSET		0x9
#define DISPI_VIDEO_MEMORY_64K	0xa

#define DISPI_ID0		0xb0c0
#define DISPI_ID5		0xb0c5
#define DISPI_ENABLED		0x01
#define DISPI_LFB_ENABLED	0x40
#define DISPI_NOCLEARMEM	0x80

/* QEMU clamps XRES/YRES to these and rounds widths down to 8 pixels. */
#define DISPI_MAX_XRES		16000
#define DISPI_MAX_YRES		12000
#define DISPI_MIN_RES		64

#endif /* KMSVT_DISPI_H */
