// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-info: show what a DRM device offers, through plain libdrm calls:
 * driver, connectors and their modes, CRTCs, planes and their formats.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "tool.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmsvt-info [-d /dev/dri/cardN] [-m]\n"
		"Print the DRM driver, connectors, CRTCs and planes of a device.\n"
		"  -d, --device PATH  device node (default /dev/dri/card0)\n"
		"  -m, --modes        list every mode of each connector\n"
		"  -h, --help         this text\n");
}

static void print_connectors(int fd, drmModeRes *res, int all_modes)
{
	for (int i = 0; i < res->count_connectors; i++) {
		drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);

		if (!c)
			continue;
		printf("connector %u: %s-%u %s, %d modes\n", c->connector_id,
		       drmModeGetConnectorTypeName(c->connector_type),
		       c->connector_type_id,
		       c->connection == DRM_MODE_CONNECTED ? "connected" : "disconnected",
		       c->count_modes);
		for (int m = 0; m < c->count_modes; m++) {
			drmModeModeInfo *mi = &c->modes[m];
			int preferred = mi->type & DRM_MODE_TYPE_PREFERRED;

			if (all_modes || preferred)
				printf("  mode #%d %ux%u@%u%s\n", m, mi->hdisplay, mi->vdisplay,
				       mi->vrefresh, preferred ? " preferred" : "");
		}
		drmModeFreeConnector(c);
	}
}

static void print_crtcs(int fd, drmModeRes *res)
{
	for (int i = 0; i < res->count_crtcs; i++) {
		drmModeCrtc *crtc = drmModeGetCrtc(fd, res->crtcs[i]);

		if (!crtc)
			continue;
		if (crtc->mode_valid)
			printf("crtc %u: %ux%u fb %u\n", crtc->crtc_id,
			       crtc->mode.hdisplay, crtc->mode.vdisplay, crtc->buffer_id);
		else
			printf("crtc %u: off\n", crtc->crtc_id);
		drmModeFreeCrtc(crtc);
	}
}

static void print_planes(int fd)
{
	drmModePlaneRes *pres = drmModeGetPlaneResources(fd);

	for (unsigned int i = 0; pres && i < pres->count_planes; i++) {
		drmModePlane *p = drmModeGetPlane(fd, pres->planes[i]);

		if (!p)
			continue;
		printf("plane %u: formats", p->plane_id);
		for (unsigned int f = 0; f < p->count_formats; f++)
			printf(" %.4s", (char *)&p->formats[f]);
		printf("\n");
		drmModeFreePlane(p);
	}
	drmModeFreePlaneResources(pres);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "modes", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *path = "/dev/dri/card0";
	int all_modes = 0, o, fd;
	drmVersion *ver;
	drmModeRes *res;

	while ((o = getopt_long(argc, argv, "d:mh", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			path = optarg;
			break;
		case 'm':
			all_modes = 1;
			break;
		default:
			return tool_help(o, usage);
		}
	}

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "kmsvt-info: %s: %s\n", path, strerror(errno));
		return 1;
	}
	drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
	ver = drmGetVersion(fd);
	if (ver) {
		printf("driver: %s %d.%d.%d (%s)\n", ver->name, ver->version_major,
		       ver->version_minor, ver->version_patchlevel, ver->desc);
		drmFreeVersion(ver);
	}
	res = drmModeGetResources(fd);
	if (!res) {
		fprintf(stderr, "kmsvt-info: %s: not a KMS device\n", path);
		close(fd);
		return 1;
	}
	print_connectors(fd, res, all_modes);
	print_crtcs(fd, res);
	print_planes(fd);
	drmModeFreeResources(res);
	close(fd);
	return 0;
}
